import { ApiToken } from '../../../domain/contracts/accounts.ts';
import { Page } from '../../../domain/contracts/common.ts';
import { listApiTokens } from '../../../store/accounts/accounts.ts';
import type { AppDeps } from '../../context.ts';
import { page } from '../../http/request.ts';
import { route, type RouteDef } from '../../registry.ts';
import { PageQuery } from '../../schemas.ts';

export function listApiTokensRoute(deps: AppDeps): RouteDef {
  return route({
    method: 'get',
    path: '/v1/me/api-tokens',
    operation_id: 'listApiTokens',
    summary: "List your API tokens (never their secrets); an organization's API token sees only that organization's tokens",
    tag: 'accounts',
    auth: 'user',
    scope: 'read',
    query: PageQuery,
    responses: { 200: { description: 'tokens', schema: Page(ApiToken) } },
    handler: async (ctx, { auth, query: { offset, limit } }) => {
      // An organization-scoped token speaks for that organization only: the user's tokens of others stay unseen.
      const org_id = auth.kind === 'token' ? auth.org_id : null;
      ctx.body = page(await listApiTokens(deps.db, auth.user_id, org_id, offset, limit), offset, limit);
    },
  });
}
