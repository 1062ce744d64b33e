// Worlds (spec: Public endpoints — validate; Projects, worlds, runs): validate a WorldSpec without a token, save a valid
// one as a numbered world revision of a project (no idempotency key, as the spec says), read and list revisions.
import type { AppDeps } from '../../context.ts';
import type { RouteDef } from '../../registry.ts';
import { getWorldRevisionRoute } from './getWorldRevision.ts';
import { listWorldsRoute } from './listWorlds.ts';
import { saveWorldRoute } from './saveWorld.ts';
import { validateWorldSpecRoute } from './validateWorldSpec.ts';

export function worldRoutes(deps: AppDeps): RouteDef[] {
  return [validateWorldSpecRoute(deps), saveWorldRoute(deps), listWorldsRoute(deps), getWorldRevisionRoute(deps)];
}
