import { ApiToken } from '../../../domain/contracts/accounts.ts';
import { ServiceError } from '../../../domain/errors.ts';
import { revokeApiToken } from '../../../store/accounts/accounts.ts';
import { forgetCredential } from '../../auth.ts';
import type { AppDeps } from '../../context.ts';
import { route, type RouteDef } from '../../registry.ts';

export function revokeApiTokenRoute(deps: AppDeps): RouteDef {
  return route({
    method: 'delete',
    path: '/v1/me/api-tokens/{token_id}',
    operation_id: 'revokeApiToken',
    summary: 'Revoke one of your API tokens',
    tag: 'accounts',
    auth: 'session',
    responses: { 200: { description: 'revoked', schema: ApiToken } },
    handler: async (ctx, { auth, params }) => {
      const revoked = await revokeApiToken(deps.db, auth.user_id, params.token_id);
      if (!revoked) throw new ServiceError('NOT_FOUND', `API token ${params.token_id} was not found.`);
      forgetCredential(deps, { token_id: revoked.id });
      ctx.body = revoked;
    },
  });
}
