// World-run activities: move the run row through its states and run the replications on the worker
// pool. Each is safe to retry: the row changes are conditional on the prior state and a replication is stored once by
// its (run, variant, replication) key, so a retried run activity continues where the last attempt's stored work ends.
import type { JobFailure } from '../domain/contracts/jobFailure.ts';
import { Context } from '@temporalio/activity';
import { CancelledFailure } from '@temporalio/common';
import { precisionReached, replicationJobs } from '../domain/simulation/index.ts';
import { planShards, type RunShard } from '../domain/simulation/shards.ts';
import {
  finishRun,
  loadReplications,
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
import { ReplicationAttempt, type RunWork, type ShardOptions } from './replicationAttempt.ts';
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
 * result is discarded and its events are recorded as work done. The whole run in one activity: the path of runs
 * started before shards (workflows/worldRun.ts).
 */
async function runReplications(deps: ActivityDeps, input: { run_id: string }): Promise<RunReplicationsResult> {
  const work = await loadRunWork(deps.db, input.run_id);
  const result = await runPending(deps, input.run_id, work, pendingJobs(work), null);
  if (result.outcome === 'budget' || result.outcome === 'wall_clock') await recordStopReason(deps.db, input.run_id, result.outcome);
  return { outcome: result.outcome, usage: await runUsage(deps.db, input.run_id) };
}

export type RunShardResult = {
  /** completed: every replication of the shard is stored; budget, wall_clock: stopped early; canceled: the row was canceled */
  outcome: RunReplicationsResult['outcome'];
  /** the world's stop_when was met by the run's stored pairs: no further shard is needed */
  precise: boolean;
};

/**
 * Runs one shard of a run (replication indexes from ≤ i < to, every variant) on this worker's pool, as runReplications
 * runs a whole run, except that the budget is judged across the run's shards by each store, and the stop reason is
 * left to the workflow (it records the run's end once every shard has ended). A retry runs what is not stored yet.
 */
async function runShard(deps: ActivityDeps, input: { run_id: string; from: number; to: number }): Promise<RunShardResult> {
  const work = await loadRunWork(deps.db, input.run_id);
  const jobs = pendingJobs(work).filter((job) => job.replication_index >= input.from && job.replication_index < input.to);
  const stored_results = work.world.stop_when
    ? await loadReplications(
        deps.db,
        input.run_id,
        work.world.variants.map((variant) => variant.id),
      )
    : [];
  const result = await runPending(deps, input.run_id, work, jobs, { stored_results });
  // Judged again on every pair stored by now, not only those stored when this shard started: shards that ran beside
  // it have stored theirs, so the first shard to end after the rule holds says so and no further shard is dispatched.
  let precise = result.precise;
  if (!precise && work.world.stop_when && result.outcome === 'completed') {
    const variant_ids = work.world.variants.map((variant) => variant.id);
    precise = precisionReached(work.world, await loadReplications(deps.db, input.run_id, variant_ids));
  }
  return { outcome: result.outcome, precise };
}

/** Plans a run's shards from its world and estimate and the worker's shard settings (domain/simulation/shards.ts). */
async function planRunShards({ db, config }: ActivityDeps, input: { run_id: string }): Promise<{ shards: RunShard[]; in_flight: number }> {
  const work = await loadRunWork(db, input.run_id);
  const shards = planShards({
    replications: work.world.replications,
    events_estimate: work.events_estimate,
    shard_seconds: config.run_shards.seconds,
    replications_per_shard: config.run_shards.replications,
  });
  return { shards, in_flight: config.run_shards.in_flight };
}

/** Runs `jobs` of the run on the pool; `shard` set: as one of several shards of the run (ReplicationAttempt). */
async function runPending(
  deps: ActivityDeps,
  run_id: string,
  work: RunWork,
  jobs: ReturnType<typeof pendingJobs>,
  shard: ShardOptions | null,
): Promise<{ outcome: RunReplicationsResult['outcome']; precise: boolean }> {
  const { db, logger } = deps;
  const context = Context.current();
  if (work.status !== 'running') return { outcome: 'canceled', precise: false };
  const deadline_ms = Date.parse(work.started_at) + work.wall_clock_limit_seconds * 1000;
  if (jobs.length === 0) return { outcome: 'completed', precise: false };
  if (Date.now() >= deadline_ms) return { outcome: 'wall_clock', precise: false };

  const attempt = new ReplicationAttempt(db, run_id, work, deadline_ms, shard);
  const unwatch = watchAttempt(deps, context, run_id, attempt);
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
    const replications = jobs[0] && shard ? { from: jobs[0].replication_index, to: jobs.at(-1)!.replication_index + 1 } : {};
    logger.info(
      { run_id, outcome, ...replications, jobs: jobs.length, events_kept: attempt.events_kept, threads: pool.threads, wall_ms: Math.round(pool.wall_ms) },
      shard ? 'run shard ended' : 'run replications ended',
    );
    if (outcome === 'canceled' && context.cancellationSignal.aborted) throw new CancelledFailure('the run was canceled');
    return { outcome, precise: attempt.precise };
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
  input: Omit<Parameters<typeof finishRun>[1], 'failure'> & {
    failure?: JobFailure | null;
    /** `error`: the same value under its name before this release, from a step scheduled by it. */
    error?: JobFailure | null;
  },
): Promise<RunStatus> {
  const { error, failure, ...rest } = input;
  return finishRun(db, { ...rest, failure: failure ?? error ?? null });
}

export function runActivities(deps: ActivityDeps) {
  return {
    startRun: withDeps(deps, startRun),
    runReplications: withDeps(deps, runReplications),
    planRunShards: withDeps(deps, planRunShards),
    runShard: withDeps(deps, runShard),
    readRunUsage: withDeps(deps, readRunUsage),
    finishRun: withDeps(deps, endRun),
  };
}
