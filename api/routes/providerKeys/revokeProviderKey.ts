import { ProviderKey } from '../../../domain/contracts/providerKeys.ts';
import { revokeProviderKey } from '../../../store/providerKeys/keys.ts';
import { authorizeOrg } from '../../auth.ts';
import type { AppDeps } from '../../context.ts';
import { route, type RouteDef } from '../../registry.ts';

export function revokeProviderKeyRoute(deps: AppDeps): RouteDef {
  return route({
    method: 'delete',
    path: '/v1/orgs/{org_id}/provider-keys/{key_id}',
    operation_id: 'revokeProviderKey',
    summary: 'Revoke a provider key and destroy its ciphertext',
    tag: 'provider-keys',
    no_store: true,
    auth: 'user',
    scope: 'write',
    role: 'admin',
    responses: { 200: { description: 'revoked (repeating the call returns the revoked key)', schema: ProviderKey } },
    handler: async (ctx, input) => {
      const org_id = input.params.org_id;
      const { auth } = await authorizeOrg(deps, ctx, org_id);
      ctx.body = await deps.db.transaction((tx) => revokeProviderKey(tx, org_id, input.params.key_id, auth.user_id));
    },
  });
}
