import { Project } from '../../../domain/contracts/projects.ts';
import type { AppDeps } from '../../context.ts';
import { route, type RouteDef } from '../../registry.ts';
import { loadProject } from './load.ts';

export function getProjectRoute(deps: AppDeps): RouteDef {
  return route({
    method: 'get',
    path: '/v1/projects/{project_id}',
    operation_id: 'getProject',
    summary: 'Read one project',
    tag: 'projects',
    auth: 'user',
    scope: 'read',
    role: 'member',
    responses: { 200: { description: 'the project', schema: Project } },
    handler: async (ctx, { params }) => {
      ctx.body = await loadProject(deps, ctx, params.project_id);
    },
  });
}
