import { AllocateBody, Allocation } from '../../../domain/contracts/sponsors.ts';
import { ServiceError } from '../../../domain/errors.ts';
import { checkAllocation } from '../../../domain/sponsors/rules.ts';
import { allocateCredits } from '../../../store/credits/ledger.ts';
import { allocatedToRecipient, findEnrollment, poolBalance } from '../../../store/sponsors/sponsors.ts';
import type { AppDeps } from '../../context.ts';
import { idempotent, respond } from '../../idempotency.ts';
import { route, type RouteDef } from '../../registry.ts';
import { institutionPost, loadProgram, lockedProgram } from './access.ts';

export function allocateSponsorCreditsRoute(deps: AppDeps): RouteDef {
  return route({
    ...institutionPost,
    method: 'post',
    path: '/v1/sponsors/programs/{program_id}/allocate',
    operation_id: 'allocateSponsorCredits',
    summary: "Move credits from the program's pool to an active member's sponsored balance; returns the ledger transaction id",
    body: AllocateBody,
    responses: { 201: { description: 'the allocation', schema: Allocation } },
    handler: async (ctx, { body, params, auth }) => {
      const found = await loadProgram(deps, auth.user_id, params.program_id);
      const outcome = await idempotent(deps.db, ctx, { owner_id: found.institution_id, hashed_body: { program_id: found.id, ...body } }, async (tx) => {
        // The program lock serializes every allocation of the program: cap and pool are checked under it.
        const program = await lockedProgram(tx, found.id);
        const enrollment = await findEnrollment(tx, program.id, body.org_id);
        if (!enrollment) throw new ServiceError('NOT_FOUND', `Organization ${body.org_id} has no enrollment in program ${program.id}.`);
        const allocated = await allocatedToRecipient(tx, program.id, body.org_id);
        checkAllocation(
          program,
          { enrollment_status: enrollment.status, credits: body.credits, allocated_to_recipient: allocated, pool_balance: await poolBalance(tx, program.id) },
          Date.now(),
        );
        const transfer = await allocateCredits(tx, {
          program_id: program.id,
          org_id: body.org_id,
          credits: body.credits,
          reason: `allocation from sponsor program ${program.id}`,
          caused_by: auth.user_id,
        });
        return {
          status: 201,
          body: {
            transaction_id: transfer.id,
            program_id: program.id,
            org_id: body.org_id,
            credits: transfer.credits,
            credits_allocated_to_recipient: allocated + transfer.credits,
          },
        };
      });
      respond(ctx, outcome);
    },
  });
}
