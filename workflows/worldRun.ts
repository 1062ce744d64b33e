// The world-run workflow (spec: Run states), id `run-<run id>`:
//   mark running (only from queued) → reserve credits → run the replications as shards, at most a few at once, each an
//   activity on the simulation queue that any worker takes → settle what the stored events cost → record the end state
//   (only from running, so canceled stays canceled).
// A cancel settles the work done (discarded replications included); a failure caused by the service releases the
// reservation and ends failed.
// The short row and ledger steps are local activities (docs/decisions.md): only the replications take a round trip of
// their own through the Temporal server. Runs started before that change replay with the steps as activities (the
// RUN_LOCAL_STEPS_PATCH marker tells them apart); runs started before shards replay with the whole run as one activity
// (RUN_SHARDS_PATCH).
// Deterministic: imports only the workflow SDK, pure domain code and activity types.
import { CancellationScope, isCancellation, patched, proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { RunShardResult, runActivities } from '../activities/runs.ts';
import type { RunShard } from '../domain/simulation/shards.ts';
import { creditsForEvents } from '../domain/simulation/limits.ts';
import { JOB_CREDITS } from '../domain/jobs.ts';
import { queuedActivities } from './activityQueues.ts';
import { ACTIVITY_PROFILES, LOCAL_ACTIVITY_PROFILES } from './activityOptions.ts';
import { failureOf, startingStep } from './common.ts';
import { meteredWork, recordOutcome } from './credits.ts';

type RunActivities = ReturnType<typeof runActivities>;
type RunUsage = Awaited<ReturnType<RunActivities['readRunUsage']>>;

/** The patch id (a history marker) of runs whose row and ledger steps are local activities. */
export const RUN_LOCAL_STEPS_PATCH = 'run-local-steps';
/** The patch id of runs whose replications run as shards (runs started before it ran as one activity). */
export const RUN_SHARDS_PATCH = 'run-shards';
const remoteRowActivities = proxyActivities<RunActivities>(ACTIVITY_PROFILES.store);
const localRowActivities = proxyLocalActivities<RunActivities>(LOCAL_ACTIVITY_PROFILES.store);
// The run activity enforces the run's wall-clock limit itself; a retry continues from the stored replications.
const { runReplications, runShard } = queuedActivities<RunActivities>('simulation', ACTIVITY_PROFILES.simulation);

type ShardsOutcome = { outcome: RunShardResult['outcome']; stop_reason: 'budget' | 'wall_clock' | null };

/**
 * Runs the shards in order, at most `in_flight` at once. The first shard that stops early (budget, wall clock, the row
 * canceled) or meets stop_when ends the dispatching; the shards already running end by themselves (they meet the same
 * budget, clock or row). A failed shard cancels the others (their work is the service's loss, not charged) and its
 * failure is the run's; a cancel of the workflow reaches every running shard. Returns once no shard is running.
 */
async function runShards(run_id: string, shards: readonly RunShard[], in_flight: number): Promise<ShardsOutcome> {
  const scope = new CancellationScope();
  return scope.run(async () => {
    let next = 0;
    const state: { stop: RunShardResult['outcome'] | null; precise: boolean; failure: { error: unknown } | null } = {
      stop: null,
      precise: false,
      failure: null,
    };
    const running = new Set<Promise<void>>();
    const launch = (shard: RunShard) => {
      const done: Promise<void> = runShard({ run_id, from: shard.from, to: shard.to })
        .then(
          (result) => {
            if (result.outcome !== 'completed') state.stop ??= result.outcome;
            state.precise ||= result.precise;
          },
          (error: unknown) => {
            if (state.failure) return;
            state.failure = { error };
            if (!isCancellation(error)) scope.cancel();
          },
        )
        .then(() => {
          running.delete(done);
        });
      running.add(done);
    };
    for (;;) {
      while (!state.stop && !state.precise && !state.failure && running.size < in_flight && next < shards.length) launch(shards[next++]!);
      if (running.size === 0) break;
      await Promise.race(running);
    }
    if (state.failure) throw state.failure.error;
    const outcome = state.stop ?? 'completed';
    return { outcome, stop_reason: outcome === 'budget' || outcome === 'wall_clock' ? outcome : null };
  });
}

function creditsUsed(usage: RunUsage, credits_reserved: number): number {
  const events = usage.events_simulated + usage.events_discarded;
  return events > 0 ? Math.min(credits_reserved, creditsForEvents(events)) : 0;
}

export async function worldRunWorkflow(input: { run_id: string }): Promise<{ status: string; credits_used: number }> {
  const { run_id } = input;
  const local = patched(RUN_LOCAL_STEPS_PATCH);
  const rowActivities = local ? localRowActivities : remoteRowActivities;
  const start = await startingStep(() => rowActivities.startRun({ run_id }));
  if (!start.started) return { status: start.status, credits_used: 0 };
  const sharded = patched(RUN_SHARDS_PATCH);
  let stop_reason: ShardsOutcome['stop_reason'] = null;

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
        if (sharded) {
          const plan = await rowActivities.planRunShards({ run_id });
          const ended = await runShards(run_id, plan.shards, plan.in_flight);
          // Settled once, from the events the shards stored and discarded.
          meter.add(creditsUsed(await rowActivities.readRunUsage({ run_id }), start.credits_reserved));
          stop_reason = ended.stop_reason;
          return ended.outcome;
        }
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
      const final = await rowActivities.finishRun(sharded ? { run_id, status, credits_used, stop_reason } : { run_id, status, credits_used });
      return { status: final, credits_used };
    },
    // Canceled through Temporal (an operator): the row says so as a run canceled on request does (store/runs/runs.ts).
    canceled: (credits_used) =>
      rowActivities.finishRun({ run_id, status: 'canceled', credits_used, failure: { code: 'CANCELED', message: 'the run was canceled' } }),
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
