import { trimmedName } from '../../../domain/accounts/rules.ts';
import { CreateProgramBody, Program, PROGRAM_NAME_LENGTH_MAX } from '../../../domain/contracts/sponsors.ts';
import { ServiceError } from '../../../domain/errors.ts';
import { normalizeDomains, programWindow, reportMinCohort } from '../../../domain/sponsors/rules.ts';
import { ensureProgramPool } from '../../../store/credits/ledger.ts';
import { createProgram, findInstitution, isSponsorAdmin } from '../../../store/sponsors/sponsors.ts';
import type { AppDeps } from '../../context.ts';
import { idempotent, respond } from '../../idempotency.ts';
import { route, type RouteDef } from '../../registry.ts';
import { institutionPost } from './access.ts';
import { presentProgram } from './present.ts';

export function createSponsorProgramRoute(deps: AppDeps): RouteDef {
  const { db } = deps;
  return route({
    ...institutionPost,
    method: 'post',
    path: '/v1/sponsors/programs',
    operation_id: 'createSponsorProgram',
    summary: 'Create a draft program of an institution the caller administers (no credits issued, nothing charged)',
    body: CreateProgramBody,
    responses: { 201: { description: 'the draft program', schema: Program } },
    handler: async (ctx, { body, auth }) => {
      const institution = await findInstitution(db, body.sponsor_id);
      if (!institution || !(await isSponsorAdmin(db, institution.id, auth.user_id))) {
        throw new ServiceError('NOT_FOUND', `Institution ${body.sponsor_id} was not found among the institutions you administer.`);
      }
      const name = trimmedName(body.name, 'name', PROGRAM_NAME_LENGTH_MAX);
      const window = programWindow({ starts_at: body.starts_at, ends_at: body.ends_at }, Date.now());
      const eligible_email_domains = normalizeDomains(body.eligible_email_domains ?? []);
      const report_min_cohort = reportMinCohort(body.report_min_cohort);
      const outcome = await idempotent(db, ctx, { owner_id: institution.id, hashed_body: body }, async (tx) => {
        const created = await createProgram(tx, {
          institution_id: institution.id,
          name,
          ...window,
          per_recipient_cap: body.per_recipient_cap,
          max_recipients: body.max_recipients,
          eligible_email_domains,
          requires_approval: body.requires_approval ?? true,
          report_min_cohort,
          created_by: auth.user_id,
        });
        await ensureProgramPool(tx, { program_id: created.id, ends_at: created.ends_at });
        return { status: 201, body: presentProgram(created) };
      });
      respond(ctx, outcome);
    },
  });
}
