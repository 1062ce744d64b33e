import type { Context } from 'koa';
import { ServiceError } from '../../../domain/errors.ts';
import { findPlan, type PlanView } from '../../../store/plans/plans.ts';
import type { AppDeps } from '../../context.ts';
import { loadProject } from '../projects/load.ts';

/** A plan of a project the caller may act on; another project's or organization's plan is a plain 404. */
export async function loadPlan(deps: AppDeps, ctx: Context, project_id: string, plan_id: string, scope: 'read' | 'write' | 'run'): Promise<PlanView> {
  await loadProject(deps, ctx, project_id, scope);
  const plan = await findPlan(deps.db, project_id, plan_id);
  if (!plan) throw new ServiceError('NOT_FOUND', `Evaluation plan ${plan_id} of project ${project_id} was not found.`);
  return plan;
}
