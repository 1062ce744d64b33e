// Sign-in, sign-out, the current user, organization members and API tokens (spec: Authentication).
import type { AppDeps } from '../../context.ts';
import type { RouteDef } from '../../registry.ts';
import { createApiTokenRoute } from './createApiToken.ts';
import { getMeRoute } from './getMe.ts';
import { listApiTokensRoute } from './listApiTokens.ts';
import { listMembersRoute } from './listMembers.ts';
import { revokeApiTokenRoute } from './revokeApiToken.ts';
import { signInRoute } from './signIn.ts';
import { signOutRoute } from './signOut.ts';

export function accountRoutes(deps: AppDeps): RouteDef[] {
  return [
    signInRoute(deps),
    signOutRoute(deps),
    getMeRoute(deps),
    listMembersRoute(deps),
    createApiTokenRoute(deps),
    listApiTokensRoute(deps),
    revokeApiTokenRoute(deps),
  ];
}
