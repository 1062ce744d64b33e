import { ApiTokenCreated, CreateApiTokenBody } from '../../../domain/contracts/accounts.ts';
import { ServiceError } from '../../../domain/errors.ts';
import { createApiToken, membershipRole } from '../../../store/accounts/accounts.ts';
import type { AppDeps } from '../../context.ts';
import { route, type RouteDef } from '../../registry.ts';

export function createApiTokenRoute(deps: AppDeps): RouteDef {
  const { db } = deps;
  return route({
    method: 'post',
    path: '/v1/me/api-tokens',
    operation_id: 'createApiToken',
    summary: 'Create an API token for one organization (user session only); the secret is returned once',
    tag: 'accounts',
    no_store: true,
    auth: 'session',
    role: 'member',
    audience: 'a member of org_id',
    body: CreateApiTokenBody,
    responses: { 201: { description: 'created', schema: ApiTokenCreated } },
    handler: async (ctx, { body, auth: session }) => {
      const name = body.name.trim();
      if (!name) throw new ServiceError('VALIDATION_FAILED', 'name must not be blank.', [{ path: '/name', message: 'must not be blank' }]);
      const role = await membershipRole(db, body.org_id, session.user_id);
      if (!role) throw new ServiceError('NOT_FOUND', `Organization ${body.org_id} was not found.`);
      const created = await db.transaction((tx) => createApiToken(tx, { user_id: session.user_id, org_id: body.org_id, name, scopes: body.scopes }));
      ctx.status = 201;
      ctx.body = created;
    },
  });
}
