import { Project } from '../../../domain/contracts/projects.ts';
import { authorizeOwned } from '../../auth.ts';
import type { AppDeps } from '../../context.ts';
import { sendRendered } from '../../poll.ts';
import { route, type RouteDef } from '../../registry.ts';
import { projectAnswer } from './load.ts';

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
      const answer = await projectAnswer(deps, params.project_id);
      await authorizeOwned(deps, ctx, `Project ${params.project_id}`, answer?.project);
      sendRendered(ctx, answer!.body);
    },
  });
}
