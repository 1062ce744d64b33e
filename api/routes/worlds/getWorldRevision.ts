import { WorldRevision } from '../../../domain/contracts/worlds.ts';
import type { AppDeps } from '../../context.ts';
import { route, type RouteDef } from '../../registry.ts';
import { loadWorldRevision } from './load.ts';

export function getWorldRevisionRoute(deps: AppDeps): RouteDef {
  return route({
    method: 'get',
    path: '/v1/world-revisions/{world_revision_id}',
    operation_id: 'getWorldRevision',
    summary: 'Read one world revision with its WorldSpec',
    tag: 'worlds',
    auth: 'user',
    scope: 'read',
    role: 'member',
    responses: { 200: { description: 'the revision', schema: WorldRevision } },
    handler: async (ctx, input) => {
      ctx.body = await loadWorldRevision(deps, ctx, input.params.world_revision_id, 'read');
    },
  });
}
