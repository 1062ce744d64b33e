import { CreatePlanBody, Plan } from '../../../domain/contracts/plans.ts';
import { ServiceError } from '../../../domain/errors.ts';
import { planEvaluations } from '../../../domain/plans/planner.ts';
import '../../../domain/reviews/register.ts';
import { getIntakeRevision, latestIntakeRevision } from '../../../store/intake/revisions.ts';
import { createPlan } from '../../../store/plans/plans.ts';
import type { AppDeps } from '../../context.ts';
import { idempotent, respond } from '../../idempotency.ts';
import { route, type RouteDef } from '../../registry.ts';
import { loadProject } from '../projects/load.ts';

export function createEvaluationPlanRoute(deps: AppDeps): RouteDef {
  const { db, config } = deps;
  return route({
    method: 'post',
    path: '/v1/projects/{project_id}/evaluation-plans',
    operation_id: 'createEvaluationPlan',
    summary:
      "Plan the evaluations for the project's latest confirmed intake: a decision with an explanation per evaluation, approvals needed, estimated credits, Business questions",
    tag: 'review',
    auth: 'user',
    scope: 'write',
    role: 'member',
    idempotency: 'optional',
    body: CreatePlanBody,
    responses: {
      201: { description: 'the plan; nothing is approved yet', schema: Plan },
      409: { description: 'the project has no confirmed intake yet (CONFLICT)' },
    },
    handler: async (ctx, input) => {
      const project = await loadProject(deps, ctx, input.params.project_id, 'write');
      const body = input.body;
      const auth = input.auth;
      const outcome = await idempotent(db, ctx, { owner_id: project.org_id, hashed_body: { project_id: project.id, ...body } }, async (tx) => {
        const revision = body.intake_revision ? await getIntakeRevision(tx, project.id, body.intake_revision) : await latestIntakeRevision(tx, project.id);
        if (!revision) {
          if (body.intake_revision) {
            throw new ServiceError('NOT_FOUND', `Project ${project.id} has no confirmed intake revision ${body.intake_revision}.`, [
              { path: '/intake_revision', message: 'no such confirmed revision' },
            ]);
          }
          throw new ServiceError(
            'CONFLICT',
            `Project ${project.id} has no confirmed intake yet; confirm one with POST /v1/projects/${project.id}/intakes, then create the plan.`,
            [{ path: '/intake', message: 'confirm an intake first' }],
          );
        }
        const plan = planEvaluations({ intake: revision.spec, intake_revision: revision.revision, credits_per_1k_tokens: config.ai_credits_per_1k_tokens });
        return { status: 201, body: await createPlan(tx, { project_id: project.id, org_id: project.org_id, plan, created_by: auth.user_id }) };
      });
      respond(ctx, outcome);
    },
  });
}
