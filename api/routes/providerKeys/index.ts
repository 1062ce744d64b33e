// Provider keys (spec: Provider key; Provider keys endpoints) and the metered AI calls of an organization.
import type { AppDeps } from '../../context.ts';
import type { RouteDef } from '../../registry.ts';
import { createProviderKeyRoute } from './createProviderKey.ts';
import { listAiUsageRoute } from './listAiUsage.ts';
import { listProviderKeysRoute } from './listProviderKeys.ts';
import { revokeProviderKeyRoute } from './revokeProviderKey.ts';

export function providerKeyRoutes(deps: AppDeps): RouteDef[] {
  return [createProviderKeyRoute(deps), listProviderKeysRoute(deps), revokeProviderKeyRoute(deps), listAiUsageRoute(deps)];
}
