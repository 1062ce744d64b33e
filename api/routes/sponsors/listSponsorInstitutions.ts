import { InstitutionList } from '../../../domain/contracts/sponsors.ts';
import { INSTITUTIONS_LIST_MAX } from '../../../domain/sponsors/rules.ts';
import { listAdminInstitutions } from '../../../store/sponsors/sponsors.ts';
import type { AppDeps } from '../../context.ts';
import { route, type RouteDef } from '../../registry.ts';
import { SPONSOR_ADMIN, sponsorCommon } from './access.ts';

export function listSponsorInstitutionsRoute(deps: AppDeps): RouteDef {
  return route({
    ...sponsorCommon,
    method: 'get',
    path: '/v1/sponsors/institutions',
    operation_id: 'listSponsorInstitutions',
    summary: 'The institutions the signed-in user administers, with verification dates (at most 200)',
    auth: 'session',
    scope: 'read',
    audience: SPONSOR_ADMIN,
    responses: { 200: { description: 'institutions', schema: InstitutionList } },
    handler: async (ctx, { auth }) => {
      const rows = await listAdminInstitutions(deps.db, auth.user_id, INSTITUTIONS_LIST_MAX);
      ctx.body = { data: rows.map((row) => ({ id: row.id, name: row.name, verified_at: row.verified_at })) };
    },
  });
}
