// Reading an organization's credits and ledger (spec: Credit ledger). Members only, scope read; another organization's
// credits are a plain 404. Writes happen in workflows (the saga), the operator's grant-credits, sponsors' allocations and
// billing's purchases, never through these routes.
import type { AppDeps } from '../../context.ts';
import type { RouteDef } from '../../registry.ts';
import { getOrganizationCreditsRoute } from './getOrganizationCredits.ts';
import { listOrganizationLedgerRoute } from './listOrganizationLedger.ts';

export function creditRoutes(deps: AppDeps): RouteDef[] {
  return [getOrganizationCreditsRoute(deps), listOrganizationLedgerRoute(deps)];
}
