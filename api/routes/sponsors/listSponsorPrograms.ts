import { Page } from '../../../domain/contracts/common.ts';
import { Program } from '../../../domain/contracts/sponsors.ts';
import { listAdminPrograms } from '../../../store/sponsors/sponsors.ts';
import type { AppDeps } from '../../context.ts';
import { page } from '../../http/request.ts';
import { route, type RouteDef } from '../../registry.ts';
import { PageQuery } from '../../schemas.ts';
import { SPONSOR_ADMIN, sponsorCommon } from './access.ts';
import { presentProgram } from './present.ts';

export function listSponsorProgramsRoute(deps: AppDeps): RouteDef {
  return route({
    ...sponsorCommon,
    method: 'get',
    path: '/v1/sponsors/programs',
    operation_id: 'listSponsorPrograms',
    summary: 'Programs of the institutions the signed-in user administers, newest first',
    auth: 'session',
    scope: 'read',
    audience: SPONSOR_ADMIN,
    query: PageQuery,
    responses: { 200: { description: 'programs', schema: Page(Program) } },
    handler: async (ctx, { query, auth }) => {
      const rows = await listAdminPrograms(deps.db, auth.user_id, query.offset, query.limit);
      const out = page(rows, query.offset, query.limit);
      ctx.body = { data: out.data.map(presentProgram), next_offset: out.next_offset };
    },
  });
}
