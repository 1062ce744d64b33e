import { revokeSession } from '../../../store/accounts/accounts.ts';
import { forgetCredential } from '../../auth.ts';
import type { AppDeps } from '../../context.ts';
import { route, type RouteDef } from '../../registry.ts';
import { setSessionCookie } from './cookie.ts';

export function signOutRoute(deps: AppDeps): RouteDef {
  return route({
    method: 'delete',
    path: '/v1/auth/sessions/current',
    operation_id: 'signOut',
    summary: 'Sign out: ends the current user session',
    tag: 'accounts',
    auth: 'session',
    responses: { 204: { description: 'signed out' } },
    handler: async (ctx, { auth }) => {
      await revokeSession(deps.db, auth.session_id);
      forgetCredential(deps, { session_id: auth.session_id });
      setSessionCookie(ctx, deps.config.public_url, '', 0);
      ctx.status = 204;
    },
  });
}
