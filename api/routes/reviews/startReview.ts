import type { ByokProvider } from '../../../domain/ai/keys.ts';
import type { JobRow } from '../../../domain/jobs.ts';
import { Review, StartReviewBody } from '../../../domain/contracts/reviews.ts';
import { ServiceError } from '../../../domain/errors.ts';
import { admitReview } from '../../../domain/reviews/pricing.ts';
import '../../../domain/reviews/register.ts';
import { startJobOf } from '../../../integrations/temporal/jobs.ts';
import { reserveJobCredits } from '../../../store/jobs.ts';
import { assertAiAvailable } from '../../../store/providerKeys/availability.ts';
import { findPlan } from '../../../store/plans/plans.ts';
import { createReview } from '../../../store/reviews/reviews.ts';
import type { AppDeps } from '../../context.ts';
import { idempotent, respond } from '../../idempotency.ts';
import { route, type RouteDef } from '../../registry.ts';
import { loadProject } from '../projects/load.ts';
import { reviewBody } from './load.ts';

export function startReviewRoute(deps: AppDeps): RouteDef {
  const { db, config } = deps;
  return route({
    method: 'post',
    path: '/v1/projects/{project_id}/reviews',
    operation_id: 'startReview',
    starts_job: 'the review',
    summary:
      'Start a concept and evidence review for a plan that recommends it; needs hosted_inference approved on the plan or byok_provider. Credits are reserved at the start and settled at actual usage.',
    tag: 'review',
    auth: 'user',
    scope: 'run',
    role: 'member',
    idempotency: 'optional',
    body: StartReviewBody,
    responses: {
      201: { description: 'the review, queued; poll GET /v1/reviews/{review_id}', schema: Review },
      402: { description: 'INSUFFICIENT_CREDITS: the reservation is not covered' },
      409: { description: 'APPROVAL_REQUIRED (no hosted_inference approval and no byok_provider) or CONFLICT (the plan skips the review)' },
      503: { description: 'PROVIDER_NOT_CONFIGURED' },
    },
    handler: async (ctx, input) => {
      const project = await loadProject(deps, ctx, input.params.project_id, 'run');
      const body = input.body;
      const byok_provider: ByokProvider | null = body.byok_provider ?? null;
      const outcome = await idempotent(
        db,
        ctx,
        { owner_id: project.org_id, hashed_body: { project_id: project.id, plan_id: body.plan_id, byok_provider } },
        async (tx) => {
          const plan = await findPlan(tx, project.id, body.plan_id);
          if (!plan)
            throw new ServiceError('NOT_FOUND', `Evaluation plan ${body.plan_id} of project ${project.id} was not found.`, [
              { path: '/plan_id', message: 'no such plan in this project' },
            ]);
          const { credits_reserved } = admitReview({
            plan_id: plan.id,
            project_id: project.id,
            plan: plan.plan,
            approvals: plan.approvals,
            byok_provider,
            credits_per_1k_tokens: config.ai_credits_per_1k_tokens,
          });
          await assertAiAvailable({ config, db: tx }, project.org_id, byok_provider);
          const row = await createReview(tx, {
            project_id: project.id,
            org_id: project.org_id,
            plan_id: plan.id,
            byok_provider,
            credits_reserved,
            created_by: input.auth.user_id,
          });
          // Admission: the review's reservation (store/jobs.ts); 402 rolls the create back. Caused by the review, as in its workflow.
          await reserveJobCredits(tx, {
            kind: 'review',
            resource_id: row.id,
            org_id: row.org_id,
            project_id: row.project_id,
            credits: credits_reserved,
            caused_by: row.id,
          });
          return { status: 201, body: await reviewBody(tx, row) };
        },
      );
      // Started after the commit, on replays too: the deterministic id makes a second start a no-op.
      await startJobOf(deps.temporal, 'review', outcome.body as JobRow);
      respond(ctx, outcome);
    },
  });
}
