// The world-run workflow (issue 6 item 4), id `run-<run id>`:
//   mark running (only from queued) → reserve credits → run replications on the pool → settle what the events cost
//   → record the end state (only from running, so canceled stays canceled).
// A cancel settles the work done (discarded replications included); a failure caused by the service releases the
// reservation and ends failed. Deterministic: imports only the workflow SDK, pure domain code and activity types.
import { ActivityFailure, ApplicationFailure, CancellationScope, isCancellation, proxyActivities } from '@temporalio/workflow';
import type { runActivities } from '../activities/runs.ts';
import { creditsForEvents } from '../domain/simulation/limits.ts';
import { meteredWork } from './credits.ts';
import { startQueued } from './reconcile.ts';

type RunActivities = ReturnType<typeof runActivities>;
type RunUsage = Awaited<ReturnType<RunActivities['readRunUsage']>>;

const rowActivities = proxyActivities<RunActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '500 milliseconds', maximumInterval: '30 seconds', backoffCoefficient: 2 },
});
// The run activity enforces the run's wall-clock limit itself; heartbeats detect a lost worker, and a retry continues
// from the stored replications. Cancellation waits for the activity to record what it discarded.
const { runReplications } = proxyActivities<RunActivities>({
  startToCloseTimeout: '25 hours',
  heartbeatTimeout: '30 seconds',
  cancellationType: 'WAIT_CANCELLATION_COMPLETED',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 5 },
});

function creditsUsed(usage: RunUsage, credits_reserved: number): number {
  const events = usage.events_simulated + usage.events_discarded;
  return events > 0 ? Math.min(credits_reserved, creditsForEvents(events)) : 0;
}

function failureOf(error: unknown): { code: string; message: string } {
  const cause = error instanceof ActivityFailure && error.cause ? error.cause : error;
  if (cause instanceof ApplicationFailure) return { code: cause.type ?? 'INTERNAL', message: cause.message };
  return { code: 'INTERNAL', message: 'The run failed because of the service; nothing was charged.' };
}

export async function worldRunWorkflow(input: { run_id: string }): Promise<{ status: string; credits_used: number }> {
  const { run_id } = input;
  const start = await rowActivities.startRun({ run_id });
  if (!start.started) return { status: start.status, credits_used: 0 };

  let credits_used = 0;
  try {
    const outcome = await meteredWork(
      {
        transfer_id_base: run_id,
        org_id: start.org_id,
        subject: { project_id: start.project_id, kind: 'run', id: run_id },
        credits_max: start.credits_reserved,
        reason: 'world run',
        caused_by: start.created_by,
      },
      async (meter) => {
        try {
          const result = await runReplications({ run_id });
          meter.add(creditsUsed(result.usage, start.credits_reserved));
          credits_used = meter.used();
          return result.outcome;
        } catch (error) {
          if (isCancellation(error)) {
            // spec: What the service does 6 — a canceled run pays for the work it did, read from what was recorded.
            const usage = await CancellationScope.nonCancellable(() => rowActivities.readRunUsage({ run_id }));
            meter.add(creditsUsed(usage, start.credits_reserved));
            credits_used = meter.used();
          }
          throw error;
        }
      },
    );
    const status = outcome === 'completed' ? 'succeeded' : outcome === 'canceled' ? 'canceled' : 'timed_out';
    const final = await rowActivities.finishRun({ run_id, status, credits_used });
    return { status: final, credits_used };
  } catch (error) {
    if (isCancellation(error)) {
      await CancellationScope.nonCancellable(() => rowActivities.finishRun({ run_id, status: 'canceled', credits_used }));
      throw error;
    }
    // A failure caused by the service: meteredWork released the reservation (or none was made); nothing is charged.
    const final = await rowActivities.finishRun({ run_id, status: 'failed', credits_used: 0, error: failureOf(error) });
    return { status: final, credits_used: 0 };
  }
}

/** A run still queued after this long is (re)started by the reconciler; one whose workflow runs is left alone. */
export const QUEUED_RUN_RESTART_AFTER_MS = 5 * 60 * 1000;
/** Runs (re)started per reconciler pass. */
export const QUEUED_RUNS_PER_PASS = 100;

/**
 * The runs' reconciler (ARCHITECTURE.md: How a request flows, step 3), run by the maintenance schedule: starts the workflow
 * of every run left queued (its row committed but its start lost), as an abandoned child under the run's deterministic id.
 */
export async function reconcileQueuedRunsWorkflow(input: { older_than_ms?: number } = {}): Promise<{ started: number }> {
  const ids = await rowActivities.queuedRunsToStart({ older_than_ms: input.older_than_ms ?? QUEUED_RUN_RESTART_AFTER_MS, limit: QUEUED_RUNS_PER_PASS });
  return startQueued(ids, worldRunWorkflow, (run_id) => ({ workflowId: `run-${run_id}`, input: { run_id } }));
}
