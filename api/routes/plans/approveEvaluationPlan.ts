import { ApprovePlanBody, Plan } from '../../../domain/contracts/plans.ts';
import { requireApprovableScope } from '../../../domain/plans/planner.ts';
import { approvePlan, findPlan } from '../../../store/plans/plans.ts';
import type { AppDeps } from '../../context.ts';
import { route, type RouteDef } from '../../registry.ts';
import { loadPlan } from './load.ts';

export function approveEvaluationPlanRoute(deps: AppDeps): RouteDef {
  const { db } = deps;
  return route({
    method: 'post',
    path: '/v1/projects/{project_id}/evaluation-plans/{plan_id}/approve',
    operation_id: 'approveEvaluationPlan',
    summary: 'Approve one scope the plan lists (hosted_inference approves hosted inference for this plan); approving again is a no-op',
    tag: 'review',
    auth: 'user',
    scope: 'write',
    role: 'member',
    body: ApprovePlanBody,
    responses: {
      200: { description: 'the plan with its approvals', schema: Plan },
      422: { description: 'the scope is not one the plan lists (VALIDATION_FAILED)' },
    },
    handler: async (ctx, input) => {
      const plan = await loadPlan(deps, ctx, input.params.project_id, input.params.plan_id, 'write');
      requireApprovableScope(plan.id, plan.plan, input.body.scope);
      const auth = input.auth;
      await db.transaction((tx) => approvePlan(tx, { plan_id: plan.id, scope: input.body.scope, approved_by: auth.user_id }));
      ctx.body = await findPlan(db, plan.project_id, plan.id);
    },
  });
}
