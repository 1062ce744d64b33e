import { Redemption, RedeemBody } from '../../../domain/contracts/sponsors.ts';
import { ServiceError } from '../../../domain/errors.ts';
import { redemptionOutcome } from '../../../domain/sponsors/rules.ts';
import { findUser } from '../../../store/accounts/accounts.ts';
import { isUniqueViolation } from '../../../store/db.ts';
import {
  codeDigest,
  countCodeUse,
  countRecipients,
  createEnrollment,
  findCodeByDigest,
  hasRedeemed,
  lockCodeByDigest,
} from '../../../store/sponsors/sponsors.ts';
import { authorizeOrg } from '../../auth.ts';
import type { AppDeps } from '../../context.ts';
import { idempotent, respond } from '../../idempotency.ts';
import { route, type RouteDef } from '../../registry.ts';
import { lockedProgram, sponsorCommon } from './access.ts';

export function redeemSponsorCodeRoute(deps: AppDeps): RouteDef {
  const { db } = deps;
  return route({
    ...sponsorCommon,
    method: 'post',
    path: '/v1/sponsors/redeem',
    operation_id: 'redeemSponsorCode',
    summary: 'Redeem an operator-issued code for an organization; returns a pending or active enrollment (the code is never echoed)',
    auth: 'user',
    scope: 'write',
    role: 'admin',
    idempotency: 'required',
    idempotency_namespace: 'organization',
    no_store: true,
    body: RedeemBody,
    responses: { 201: { description: 'the enrollment', schema: Redemption } },
    handler: async (ctx, { body, auth }) => {
      await authorizeOrg(deps, ctx, body.org_id);
      // spec: Sponsor API, rule 5 — the replay hash sees a digest of the code, never the code.
      const digest = codeDigest(body.code);
      const user = await findUser(db, auth.user_id);
      if (!user) throw new ServiceError('NOT_FOUND', 'The signed-in user was not found.');
      const outcome = await idempotent(db, ctx, { owner_id: body.org_id, hashed_body: { org_id: body.org_id, code_digest: digest } }, async (tx) => {
        const invalid = () => new ServiceError('NOT_FOUND', 'The redemption code is not valid: it is wrong, expired, revoked or used up.');
        const seen = await findCodeByDigest(tx, digest);
        if (!seen) throw invalid();
        // Program first, then the code: the lock order every sponsor write uses.
        const program = await lockedProgram(tx, seen.program_id);
        const code = (await lockCodeByDigest(tx, digest))!;
        if (code.revoked_at || Date.parse(code.expires_at) <= Date.now() || code.uses >= code.max_uses) throw invalid();
        if (await hasRedeemed(tx, program.id, body.org_id, auth.user_id)) {
          throw new ServiceError('CONFLICT', 'This organization or this person already redeemed a code of this program; one redemption each per program.');
        }
        const status = redemptionOutcome(program, { redeemer_email: user.email, recipients: await countRecipients(tx, program.id) }, Date.now());
        await countCodeUse(tx, code.id);
        const enrollment = await createEnrollment(tx, {
          program_id: program.id,
          org_id: body.org_id,
          redeemed_by: auth.user_id,
          code_id: code.id,
          status,
        }).catch((error) => {
          if (isUniqueViolation(error)) throw new ServiceError('CONFLICT', 'This organization or this person already redeemed a code of this program.');
          throw error;
        });
        return {
          status: 201,
          body: {
            enrollment_id: enrollment.id,
            program_id: program.id,
            program_name: program.name,
            org_id: enrollment.org_id,
            status,
            created_at: enrollment.created_at,
          },
        };
      });
      respond(ctx, outcome);
    },
  });
}
