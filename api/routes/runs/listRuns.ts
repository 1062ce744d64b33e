import { Page } from '../../../domain/contracts/common.ts';
import { Run } from '../../../domain/contracts/runs.ts';
import { listRuns } from '../../../store/runs/runs.ts';
import type { AppDeps } from '../../context.ts';
import { page } from '../../http/request.ts';
import { route, type RouteDef } from '../../registry.ts';
import { PageQuery } from '../../schemas.ts';
import { loadProject } from '../projects/load.ts';

export function listRunsRoute(deps: AppDeps): RouteDef {
  return route({
    method: 'get',
    path: '/v1/projects/{project_id}/runs',
    operation_id: 'listRuns',
    summary: "List a project's runs, newest first",
    tag: 'runs',
    auth: 'user',
    scope: 'read',
    role: 'member',
    query: { ...PageQuery },
    responses: { 200: { description: 'runs', schema: Page(Run) } },
    handler: async (ctx, input) => {
      const project = await loadProject(deps, ctx, input.params.project_id, 'read');
      const { offset, limit } = input.query;
      ctx.body = page(await listRuns(deps.db, project.id, offset, limit), offset, limit);
    },
  });
}
