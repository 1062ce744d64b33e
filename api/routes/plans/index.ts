// Evaluation plans (spec: What the service does 2; EvaluationPlan; endpoints evaluation-plans and approve).
// A plan is made from the project's latest confirmed intake revision; nothing on it is approved implicitly.
import type { AppDeps } from '../../context.ts';
import type { RouteDef } from '../../registry.ts';
import { approveEvaluationPlanRoute } from './approveEvaluationPlan.ts';
import { createEvaluationPlanRoute } from './createEvaluationPlan.ts';
import { getEvaluationPlanRoute } from './getEvaluationPlan.ts';
import { listEvaluationPlansRoute } from './listEvaluationPlans.ts';

export function planRoutes(deps: AppDeps): RouteDef[] {
  return [createEvaluationPlanRoute(deps), getEvaluationPlanRoute(deps), listEvaluationPlansRoute(deps), approveEvaluationPlanRoute(deps)];
}
