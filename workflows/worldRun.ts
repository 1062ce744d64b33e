// The world-run workflow (spec: Run states), id `run-<run id>`:
//   mark running (only from queued) → reserve credits → run replications on the pool → settle what the events cost
//   → record the end state (only from running, so canceled stays canceled).
// A cancel settles the work done (discarded replications included); a failure caused by the service releases the
// reservation and ends failed.
// The short row and ledger steps are local activities (docs/decisions.md): only the replications take a round trip of
// their own through the Temporal server. Runs started before that change replay with the steps as activities (the
// RUN_LOCAL_STEPS_PATCH marker tells them apart).
// Deterministic: imports only the workflow SDK, pure domain code and activity types.
import { CancellationScope, isCancellation, patched, proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { runActivities } from '../activities/runs.ts';
import { creditsForEvents } from '../domain/simulation/limits.ts';
import { JOB_CREDITS } from '../domain/jobs.ts';
import { queuedActivities } from './activityQueues.ts';
import { ACTIVITY_PROFILES, LOCAL_ACTIVITY_PROFILES } from './activityOptions.ts';
import { failureOf } from './common.ts';
import { meteredWork, recordOutcome } from './credits.ts';

type RunActivities = ReturnType<typeof runActivities>;
type RunUsage = Awaited<ReturnType<RunActivities['readRunUsage']>>;

/** The patch id (a history marker) of runs whose row and ledger steps are local activities. */
export const RUN_LOCAL_STEPS_PATCH = 'run-local-steps';
const remoteRowActivities = proxyActivities<RunActivities>(ACTIVITY_PROFILES.store);
const localRowActivities = proxyLocalActivities<RunActivities>(LOCAL_ACTIVITY_PROFILES.store);
// The run activity enforces the run's wall-clock limit itself; a retry continues from the stored replications.
const { runReplications } = queuedActivities<RunActivities>('simulation', ACTIVITY_PROFILES.simulation);

function creditsUsed(usage: RunUsage, credits_reserved: number): number {
  const events = usage.events_simulated + usage.events_discarded;
  return events > 0 ? Math.min(credits_reserved, creditsForEvents(events)) : 0;
}

export async function worldRunWorkflow(input: { run_id: string }): Promise<{ status: string; credits_used: number }> {
  const { run_id } = input;
  const local = patched(RUN_LOCAL_STEPS_PATCH);
  const rowActivities = local ? localRowActivities : remoteRowActivities;
  const start = await rowActivities.startRun({ run_id });
  if (!start.started) return { status: start.status, credits_used: 0 };

  const outcome = await meteredWork(
    {
      transfer_id_base: run_id,
      org_id: start.org_id,
      subject: { project_id: start.project_id, kind: 'run', id: run_id },
      credits_max: start.credits_reserved,
      reason: JOB_CREDITS.run.reason,
      caused_by: start.created_by,
      local_ledger: local,
    },
    async (meter) => {
      try {
        const result = await runReplications({ run_id });
        meter.add(creditsUsed(result.usage, start.credits_reserved));
        return result.outcome;
      } catch (error) {
        if (isCancellation(error)) {
          // spec: What the service does 6 — a canceled run pays for the work it did, read from what was recorded.
          const usage = await CancellationScope.nonCancellable(() => rowActivities.readRunUsage({ run_id }));
          meter.add(creditsUsed(usage, start.credits_reserved));
        }
        throw error;
      }
    },
  );
  return recordOutcome(outcome, {
    succeeded: async (value, credits_used) => {
      const status = value === 'completed' ? 'succeeded' : value === 'canceled' ? 'canceled' : 'timed_out';
      return { status: await rowActivities.finishRun({ run_id, status, credits_used }), credits_used };
    },
    canceled: (credits_used) => rowActivities.finishRun({ run_id, status: 'canceled', credits_used }),
    // A failure caused by the service: meteredWork released the reservation (or none was made); nothing is charged.
    failed: async (error) => {
      const final = await rowActivities.finishRun({
        run_id,
        status: 'failed',
        credits_used: 0,
        failure: failureOf(error, 'The run failed because of the service; nothing was charged.'),
      });
      return { status: final, credits_used: 0 };
    },
  });
}
