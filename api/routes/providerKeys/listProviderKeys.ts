import { Page } from '../../../domain/contracts/common.ts';
import { ProviderKey } from '../../../domain/contracts/providerKeys.ts';
import { listProviderKeys } from '../../../store/providerKeys/keys.ts';
import { authorizeOrg } from '../../auth.ts';
import type { AppDeps } from '../../context.ts';
import { page } from '../../http/request.ts';
import { route, type RouteDef } from '../../registry.ts';
import { PageQuery } from '../../schemas.ts';

export function listProviderKeysRoute(deps: AppDeps): RouteDef {
  return route({
    method: 'get',
    path: '/v1/orgs/{org_id}/provider-keys',
    operation_id: 'listProviderKeys',
    summary: "List the organization's provider keys (provider, label, last four characters), newest first",
    tag: 'provider-keys',
    no_store: true,
    auth: 'user',
    scope: 'read',
    role: 'member',
    query: { ...PageQuery },
    responses: { 200: { description: 'keys, live and revoked', schema: Page(ProviderKey) } },
    handler: async (ctx, input) => {
      const org_id = input.params.org_id;
      const { offset, limit } = input.query;
      await authorizeOrg(deps, ctx, org_id);
      ctx.body = page(await listProviderKeys(deps.db, org_id, offset, limit), offset, limit);
    },
  });
}
