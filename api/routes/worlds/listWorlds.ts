import { Page } from '../../../domain/contracts/common.ts';
import { WorldRevisionSummary } from '../../../domain/contracts/worlds.ts';
import { listWorldRevisions } from '../../../store/worlds/worlds.ts';
import type { AppDeps } from '../../context.ts';
import { page } from '../../http/request.ts';
import { route, type RouteDef } from '../../registry.ts';
import { PageQuery } from '../../schemas.ts';
import { loadProject } from '../projects/load.ts';

export function listWorldsRoute(deps: AppDeps): RouteDef {
  return route({
    method: 'get',
    path: '/v1/projects/{project_id}/worlds',
    operation_id: 'listWorlds',
    summary: "List a project's world revisions, newest first (without the documents)",
    tag: 'worlds',
    auth: 'user',
    scope: 'read',
    role: 'member',
    query: { ...PageQuery },
    responses: { 200: { description: 'revisions', schema: Page(WorldRevisionSummary) } },
    handler: async (ctx, input) => {
      const project = await loadProject(deps, ctx, input.params.project_id, 'read');
      const { offset, limit } = input.query;
      ctx.body = page(await listWorldRevisions(deps.db, project.id, offset, limit), offset, limit);
    },
  });
}
