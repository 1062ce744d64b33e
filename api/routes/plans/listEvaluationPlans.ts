import { Page } from '../../../domain/contracts/common.ts';
import { Plan } from '../../../domain/contracts/plans.ts';
import { listPlans } from '../../../store/plans/plans.ts';
import type { AppDeps } from '../../context.ts';
import { page } from '../../http/request.ts';
import { route, type RouteDef } from '../../registry.ts';
import { PageQuery } from '../../schemas.ts';
import { loadProject } from '../projects/load.ts';

export function listEvaluationPlansRoute(deps: AppDeps): RouteDef {
  return route({
    method: 'get',
    path: '/v1/projects/{project_id}/evaluation-plans',
    operation_id: 'listEvaluationPlans',
    summary: "List a project's evaluation plans, newest first",
    tag: 'review',
    auth: 'user',
    scope: 'read',
    role: 'member',
    query: { ...PageQuery },
    responses: { 200: { description: 'plans', schema: Page(Plan) } },
    handler: async (ctx, input) => {
      const project = await loadProject(deps, ctx, input.params.project_id, 'read');
      const { offset, limit } = input.query;
      ctx.body = page(await listPlans(deps.db, project.id, offset, limit), offset, limit);
    },
  });
}
