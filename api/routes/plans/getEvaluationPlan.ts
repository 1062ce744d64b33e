import { Plan } from '../../../domain/contracts/plans.ts';
import type { AppDeps } from '../../context.ts';
import { route, type RouteDef } from '../../registry.ts';
import { loadPlan } from './load.ts';

export function getEvaluationPlanRoute(deps: AppDeps): RouteDef {
  return route({
    method: 'get',
    path: '/v1/projects/{project_id}/evaluation-plans/{plan_id}',
    operation_id: 'getEvaluationPlan',
    summary: 'Read one evaluation plan with its approvals',
    tag: 'review',
    auth: 'user',
    scope: 'read',
    role: 'member',
    responses: { 200: { description: 'the plan', schema: Plan } },
    handler: async (ctx, input) => {
      ctx.body = await loadPlan(deps, ctx, input.params.project_id, input.params.plan_id, 'read');
    },
  });
}
