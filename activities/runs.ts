// World-run activities: move the run row through its states and run the replications on the worker
// pool. Each is safe to retry: the row changes are conditional on the prior state and a replication is stored once by
// its (run, variant, replication) key, so a retried run activity continues where the last attempt's stored work ends.
import type { JobFailure } from '../domain/contracts/jobFailure.ts';
import { Context } from '@temporalio/activity';
import { CancelledFailure } from '@temporalio/common';
import { replicationJobs } from '../domain/simulation/index.ts';
import {
  finishRun,
  loadRunWork,
  markRunning,
  type RunStart,
  type RunStatus,
  type RunUsage,
  recordStopReason,
  runStatus,
  runUsage,
} from '../store/runs/runs.ts';
import { type ActivityDeps, withDeps } from './deps.ts';
import { ReplicationAttempt, type RunWork } from './replicationAttempt.ts';
import { runReplicationsOnPool } from '../compute/simulation/pool.ts';

/** How often the run activity heartbeats (and looks at the run row for a cancel made while Temporal was unreachable). */
export const RUN_HEARTBEAT_INTERVAL_MS = 1000;

export type RunReplicationsResult = {
  /** completed: every replication ran; budget or wall_clock: stopped early (timed_out); canceled: the row was canceled */
  outcome: 'completed' | 'budget' | 'wall_clock' | 'canceled';
  usage: RunUsage;
};

/**
 * Stops the attempt on Temporal's cancel (seen through heartbeats), at the wall-clock limit, or when the row left
 * running (a cancel made while Temporal was unreachable), looked at with each heartbeat. Returns how to stop watching.
 */
function watchAttempt({ db, logger }: ActivityDeps, context: Context, run_id: string, attempt: ReplicationAttempt): () => void {
  const onCancel = () => attempt.abort('canceled');
  context.cancellationSignal.addEventListener('abort', onCancel, { once: true });
  const wallClock = setTimeout(() => attempt.abort('wall_clock'), Math.max(0, attempt.deadline_ms - Date.now()));
  let checking = false;
  const ticker = setInterval(() => {
    context.heartbeat({ events_kept: attempt.events_kept });
    if (checking) return;
    checking = true;
    runStatus(db, run_id)
      .then((status) => {
        if (status !== 'running') attempt.abort('canceled');
      })
      .catch((error) => logger.warn({ err: error, run_id }, 'run status check failed'))
      .finally(() => {
        checking = false;
      });
  }, RUN_HEARTBEAT_INTERVAL_MS);
  return () => {
    clearInterval(ticker);
    clearTimeout(wallClock);
    context.cancellationSignal.removeEventListener('abort', onCancel);
  };
}

/** The replications of the run's world that no earlier attempt stored. */
function pendingJobs(work: RunWork) {
  const storedKeys = new Set(work.stored.map((s) => `${s.variant_id}\u0000${s.replication_index}`));
  return replicationJobs(work.world).filter((job) => !storedKeys.has(`${job.variant_id}\u0000${job.replication_index}`));
}

/**
 * Runs the replications not stored yet on the worker pool, storing the complete groups behind the computation (the
 * groups that complete while one store commits go together in the next). Stops dispatching when the
 * next replication would take the run's credits past its reservation (budget), at the wall-clock limit, or on a
 * cancel (Temporal's, seen through heartbeats, or the row's). A replication already running is not interrupted; its
 * result is discarded and its events are recorded as work done.
 */
async function runReplications(deps: ActivityDeps, input: { run_id: string }): Promise<RunReplicationsResult> {
  const { db, logger } = deps;
  const context = Context.current();
  const work = await loadRunWork(db, input.run_id);
  if (work.status !== 'running') return { outcome: 'canceled', usage: await runUsage(db, input.run_id) };
  const jobs = pendingJobs(work);
  const deadline_ms = Date.parse(work.started_at) + work.wall_clock_limit_seconds * 1000;
  if (jobs.length === 0) return { outcome: 'completed', usage: await runUsage(db, input.run_id) };
  if (Date.now() >= deadline_ms) {
    await recordStopReason(db, input.run_id, 'wall_clock');
    return { outcome: 'wall_clock', usage: await runUsage(db, input.run_id) };
  }

  const attempt = new ReplicationAttempt(db, input.run_id, work, deadline_ms);
  const unwatch = watchAttempt(deps, context, input.run_id, attempt);
  try {
    const pool = await runReplicationsOnPool(work.world, {
      jobs,
      org_id: work.org_id,
      signal: attempt.signal,
      onReplication: ({ result }) => attempt.keep(result),
    });
    const settled = await pool.settled;
    await attempt.stored();
    await attempt.recordDiscarded(settled.events_discarded);
    const outcome: RunReplicationsResult['outcome'] = attempt.stop ?? 'completed';
    if (outcome === 'budget' || outcome === 'wall_clock') await recordStopReason(db, input.run_id, outcome);
    const usage = await runUsage(db, input.run_id);
    logger.info({ run_id: input.run_id, outcome, ...usage, threads: pool.threads, wall_ms: Math.round(pool.wall_ms) }, 'run replications ended');
    if (outcome === 'canceled' && context.cancellationSignal.aborted) throw new CancelledFailure('the run was canceled');
    return { outcome, usage };
  } finally {
    unwatch();
    attempt.dispose();
  }
}

/** queued -> running; reports whether this run is to be worked on (a run canceled while queued is not). */
async function startRun({ db }: ActivityDeps, input: { run_id: string }): Promise<RunStart> {
  return markRunning(db, input.run_id);
}

/** What a run has used so far (read after a cancel, when the run activity's own result is not available). */
async function readRunUsage({ db }: ActivityDeps, input: { run_id: string }): Promise<RunUsage> {
  return runUsage(db, input.run_id);
}

/** Ends the run after its credits settled; the status moves only from running, so canceled is never overwritten. */
async function endRun(
  { db }: ActivityDeps,
  input: {
    run_id: string;
    status: 'succeeded' | 'timed_out' | 'canceled' | 'failed';
    credits_used: number;
    failure?: JobFailure | null;
    /** `error`: the same value under its name before this release, from a step scheduled by it. */
    error?: JobFailure | null;
  },
): Promise<RunStatus> {
  return finishRun(db, { run_id: input.run_id, status: input.status, credits_used: input.credits_used, failure: input.failure ?? input.error ?? null });
}

export function runActivities(deps: ActivityDeps) {
  return {
    startRun: withDeps(deps, startRun),
    runReplications: withDeps(deps, runReplications),
    readRunUsage: withDeps(deps, readRunUsage),
    finishRun: withDeps(deps, endRun),
  };
}
