import type { Static } from 'typebox';
import { RunCreated, RunRequest } from '../../../domain/contracts/runs.ts';
import { ServiceError } from '../../../domain/errors.ts';
import type { RunEstimate } from '../../../domain/simulation/index.ts';
import { estimateOf } from './estimates.ts';
import { admitRun } from '../../../domain/simulation/pricing.ts';
import { startJobOf } from '../../../integrations/temporal/jobs.ts';
import { reserveJobCredits } from '../../../store/jobs.ts';
import { createRun, type RunView } from '../../../store/runs/runs.ts';
import type { WorldRevisionView } from '../../../store/worlds/worlds.ts';
import type { AppDeps } from '../../context.ts';
import { idempotent, respond } from '../../idempotency.ts';
import { route, type RouteDef } from '../../registry.ts';
import { loadWorldRevision } from '../worlds/load.ts';

/** The same rule as the estimate; the balance is checked inside the creating transaction. Returns the reservation. */
function admit(estimate: RunEstimate, budget_limit_credits: number): number {
  const admission = admitRun(estimate, budget_limit_credits, null);
  if (admission.runnable) return admission.credits_reserved;
  const first = admission.issues[0]!;
  throw new ServiceError(
    'VALIDATION_FAILED',
    first.kind === 'budget'
      ? `${first.message} (POST /v1/runs/estimate shows the cost model).`
      : `The world cannot run: ${first.message}. Reduce it below the named limits and save a new revision.`,
    admission.issues.map((issue) => ({
      path: issue.pointer,
      message: issue.message,
      ...(issue.kind === 'budget' ? { credits_estimate: estimate.credits_estimate } : {}),
    })),
  );
}

export function createRunRoute(deps: AppDeps): RouteDef {
  const { db, config } = deps;
  return route({
    method: 'post',
    path: '/v1/runs',
    operation_id: 'createRun',
    starts_job: 'the run',
    summary: 'Create a run of a world revision under a credit budget and start it (the world-run workflow)',
    tag: 'runs',
    auth: 'user',
    scope: 'run',
    role: 'member',
    idempotency: 'optional',
    body: RunRequest,
    responses: {
      202: { description: 'the run, queued, with the model check of its world (warnings); poll GET /v1/runs/{run_id}', schema: RunCreated },
      402: { description: 'INSUFFICIENT_CREDITS: the balance cannot cover the reservation' },
      422: { description: 'VALIDATION_FAILED: the budget is below the estimate, or the world exceeds a run limit' },
    },
    handler: async (ctx, input) => {
      const body = input.body;
      const revision = await loadWorldRevision(deps, ctx, body.world_revision_id, 'run');
      const estimate = estimateOf(revision);
      const credits_reserved = admit(estimate, body.budget_limit_credits);
      const outcome = await idempotent(db, ctx, { owner_id: revision.org_id, hashed_body: body }, async (tx) => {
        // Admission: the run's reservation, in this transaction (store/jobs.ts). Of concurrent creates beyond the balance
        // the extra ones get 402 now and nothing is queued for them; a refusal rolls back with the idempotency record,
        // so a retry with the same key after adding credits is admitted.
        const run = await createRun(tx, newRun(revision, body, estimate, credits_reserved, config.run_wall_clock_limit_seconds, input.auth.user_id));
        await reserveJobCredits(tx, {
          kind: 'run',
          resource_id: run.run_id,
          org_id: run.org_id,
          project_id: run.project_id,
          credits: credits_reserved,
          caused_by: run.created_by,
        });
        // The model check's warnings go with the answer: the run starts anyway, and its creator reads why it may compare nothing.
        return { status: 202, body: { ...run, warnings: estimate.warnings } };
      });
      // After the commit, on replays too: the deterministic id makes a repeated start a no-op.
      const run = outcome.body as RunView;
      await startJobOf(deps.temporal, 'run', { id: run.run_id, org_id: run.org_id, project_id: run.project_id });
      respond(ctx, outcome);
    },
  });
}

function newRun(
  revision: WorldRevisionView,
  body: Static<typeof RunRequest>,
  estimate: RunEstimate,
  credits_reserved: number,
  wall_clock_limit_seconds: number,
  created_by: string,
): Parameters<typeof createRun>[1] {
  return {
    org_id: revision.org_id,
    project_id: revision.project_id,
    world_revision_id: revision.world_revision_id,
    budget_limit_credits: body.budget_limit_credits,
    credits_estimate: estimate.credits_estimate,
    events_estimate: estimate.events_estimate,
    credits_reserved,
    replications_requested: revision.world.replications * revision.world.variants.length,
    wall_clock_limit_seconds,
    created_by,
  };
}
