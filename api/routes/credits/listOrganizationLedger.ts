import { Page } from '../../../domain/contracts/common.ts';
import { LedgerEntry } from '../../../domain/contracts/credits.ts';
import { listLedger } from '../../../store/credits/ledger.ts';
import { authorizeOrg } from '../../auth.ts';
import type { AppDeps } from '../../context.ts';
import { page } from '../../http/request.ts';
import { route, type RouteDef } from '../../registry.ts';
import { PageQuery } from '../../schemas.ts';

export function listOrganizationLedgerRoute(deps: AppDeps): RouteDef {
  return route({
    method: 'get',
    path: '/v1/orgs/{org_id}/ledger',
    operation_id: 'listOrganizationLedger',
    summary: "An organization's ledger entries, newest first",
    tag: 'credits',
    auth: 'user',
    scope: 'read',
    role: 'member',
    query: { ...PageQuery },
    responses: { 200: { description: 'ledger entries', schema: Page(LedgerEntry) } },
    handler: async (ctx, input) => {
      const org_id = input.params.org_id;
      const { offset, limit } = input.query;
      await authorizeOrg(deps, ctx, org_id);
      ctx.body = page(await listLedger(deps.db, org_id, offset, limit), offset, limit);
    },
  });
}
