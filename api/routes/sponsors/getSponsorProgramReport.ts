import { ProgramReport } from '../../../domain/contracts/sponsors.ts';
import { programReport } from '../../../domain/sponsors/rules.ts';
import { sponsoredUsage } from '../../../store/credits/ledger.ts';
import { countRecipients } from '../../../store/sponsors/sponsors.ts';
import type { AppDeps } from '../../context.ts';
import { route, type RouteDef } from '../../registry.ts';
import { loadProgram, SPONSOR_ADMIN, sponsorCommon } from './access.ts';

export function getSponsorProgramReportRoute(deps: AppDeps): RouteDef {
  return route({
    ...sponsorCommon,
    method: 'get',
    path: '/v1/sponsors/programs/{program_id}/report',
    operation_id: 'getSponsorProgramReport',
    summary: 'The fixed whole-program report; suppressed below report_min_cohort active recipients; takes no parameters',
    auth: 'session',
    scope: 'read',
    audience: SPONSOR_ADMIN,
    query_closed: true,
    responses: { 200: { description: 'the report', schema: ProgramReport } },
    handler: async (ctx, { params, auth }) => {
      const program = await loadProgram(deps, auth.user_id, params.program_id);
      ctx.body = await deps.db.transaction(
        async (tx) => {
          const active = await countRecipients(tx, program.id, ['active']);
          return programReport(program.id, program.report_min_cohort, active, await sponsoredUsage(tx, program.id));
        },
        { isolation: 'repeatable read' },
      );
    },
  });
}
