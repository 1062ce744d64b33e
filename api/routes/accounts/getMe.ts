import { Me } from '../../../domain/contracts/accounts.ts';
import { ServiceError } from '../../../domain/errors.ts';
import { findUser, listMemberships } from '../../../store/accounts/accounts.ts';
import type { AppDeps } from '../../context.ts';
import { route, type RouteDef } from '../../registry.ts';
import { presentMe } from './present.ts';

export function getMeRoute(deps: AppDeps): RouteDef {
  return route({
    method: 'get',
    path: '/v1/me',
    operation_id: 'getMe',
    summary: 'The signed-in user and their memberships',
    tag: 'accounts',
    auth: 'user',
    scope: 'read',
    responses: { 200: { description: 'the user', schema: Me } },
    handler: async (ctx, { auth }) => {
      const user = await findUser(deps.db, auth.user_id);
      if (!user) throw new ServiceError('UNAUTHENTICATED', 'The user no longer exists; sign in again.');
      ctx.body = presentMe(user, await listMemberships(deps.db, auth.user_id), auth);
    },
  });
}
