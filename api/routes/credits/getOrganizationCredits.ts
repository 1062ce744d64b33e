import { OrganizationCredits } from '../../../domain/contracts/credits.ts';
import { balances } from '../../../store/credits/ledger.ts';
import { authorizeOrg } from '../../auth.ts';
import { addCreditsFor } from '../../addCredits.ts';
import type { AppDeps, State } from '../../context.ts';
import { route, type RouteDef } from '../../registry.ts';

export function getOrganizationCreditsRoute(deps: AppDeps): RouteDef {
  return route({
    method: 'get',
    path: '/v1/orgs/{org_id}/credits',
    operation_id: 'getOrganizationCredits',
    summary: "An organization's available and reserved credits, in total and per source",
    tag: 'credits',
    auth: 'user',
    scope: 'read',
    role: 'member',
    responses: { 200: { description: 'the balances', schema: OrganizationCredits } },
    handler: async (ctx, input) => {
      const org_id = input.params.org_id;
      await authorizeOrg(deps, ctx, org_id);
      ctx.body = { ...(await balances(deps.db, org_id)), add_credits: await addCreditsFor(deps, ctx.state as State, org_id) };
    },
  });
}
