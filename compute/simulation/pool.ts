// Runs the replications of a world on the process's compute pool (compute/pool.ts), at most `threads` at a time.
// The caller sees each completed replication through `onReplication` and may stop between replications (budget,
// wall clock). An AbortSignal stops dispatching at once; a replication already running is not interrupted, and its
// result is discarded when it arrives (spec: Run states, "an already-running in-process calculation is not forcibly
// interrupted"; a late completion never overwrites canceled).
import { createHash } from 'node:crypto';
import type { WorldSpec } from '../../domain/contracts/worldSpec.ts';
import { type ErrorCode, ServiceError } from '../../domain/errors.ts';
import { type ReplicationJob, type ReplicationResult, replicationJobs, type RunProgress } from '../../domain/simulation/index.ts';
import { defaultThreadCount, POOL_THREADS_MAX, runComputeTask } from '../pool.ts';
import type { ReplicationOutcome } from '../worker.ts';

export { defaultThreadCount, POOL_THREADS_MAX };

export type PoolOptions = {
  /** default: every replication of every variant, replication-major (see replicationJobs) */
  jobs?: ReplicationJob[];
  /** default: os.availableParallelism(), at most POOL_THREADS_MAX and never more than the jobs */
  threads?: number;
  signal?: AbortSignal;
  /** called once per kept result, in completion order; return 'stop' to dispatch nothing more */
  onReplication?: (progress: RunProgress) => 'stop' | undefined | Promise<'stop' | undefined>;
};

export type PoolRun = {
  /** kept results, sorted in job order */
  results: ReplicationResult[];
  outcome: 'completed' | 'stopped' | 'aborted';
  events_simulated: number;
  wall_ms: number;
  threads: number;
  /** resolves when every replication that was running at stop/abort has finished; its events were computed but discarded */
  settled: Promise<{ events_discarded: number; replications_discarded: number }>;
};

// Over 70 lines, listed in test/unit/architecture.test.ts: not yet split: replications on the worker-thread pool with their cancel and budget state.
export function runReplicationsOnPool(world: WorldSpec, options: PoolOptions = {}): Promise<PoolRun> {
  const jobs = options.jobs ?? replicationJobs(world);
  const threads = Math.max(1, Math.min(options.threads ?? defaultThreadCount(), POOL_THREADS_MAX, jobs.length || 1));
  const started = performance.now();
  // Pool threads keep the world and its compiled models by this key, so one run compiles each variant once per thread
  // and only its first task on each thread carries the world (structured-cloned per task otherwise).
  const world_key = createHash('sha256').update(JSON.stringify(world)).digest('base64url');
  const order = new Map(jobs.map((job, index) => [`${job.variant_id}\u0000${job.replication_index}`, index]));

  // Over 70 lines, listed in test/unit/architecture.test.ts: not yet split: part of runReplicationsOnPool.
  return new Promise<PoolRun>((resolve, reject) => {
    const results: ReplicationResult[] = [];
    let next = 0;
    let inFlight = 0;
    let events = 0;
    let done = false;
    let outcome: PoolRun['outcome'] = 'completed';
    let discardedEvents = 0;
    let discardedReplications = 0;
    let resolveSettled: (value: { events_discarded: number; replications_discarded: number }) => void = () => {};
    const settled = new Promise<{ events_discarded: number; replications_discarded: number }>((settle) => {
      resolveSettled = settle;
    });
    let idle = threads;
    let callbacksPending = 0;

    const finish = (kind: PoolRun['outcome']) => {
      if (done) return;
      done = true;
      outcome = kind;
      options.signal?.removeEventListener('abort', onAbort);
      results.sort((a, b) => order.get(`${a.variant_id}\u0000${a.replication_index}`)! - order.get(`${b.variant_id}\u0000${b.replication_index}`)!);
      resolve({ results, outcome, events_simulated: events, wall_ms: performance.now() - started, threads, settled });
      maybeSettle();
    };
    const maybeSettle = () => {
      if (!done || inFlight > 0 || callbacksPending > 0) return;
      resolveSettled({ events_discarded: discardedEvents, replications_discarded: discardedReplications });
    };
    const fail = (error: unknown) => {
      if (done) return;
      done = true;
      options.signal?.removeEventListener('abort', onAbort);
      resolveSettled({ events_discarded: discardedEvents, replications_discarded: discardedReplications });
      reject(error);
    };
    const onAbort = () => finish('aborted');

    // The first `threads` tasks carry the world (each idle thread takes one); a thread that still lacks it says so
    // and gets the same job again with the world.
    let sentWithWorld = 0;
    const send = (job: ReplicationJob, withWorld: boolean) => {
      if (withWorld) sentWithWorld++;
      runComputeTask<ReplicationOutcome>({ kind: 'replication', world_key, world: withWorld ? world : null, job }).then(
        (message) => onOutcome(job, message),
        (error: unknown) => {
          inFlight--;
          fail(error);
        },
      );
    };

    const dispatch = () => {
      while (!done && idle > 0 && next < jobs.length) {
        idle--;
        const job = jobs[next++]!;
        inFlight++;
        send(job, sentWithWorld < threads);
      }
      if (!done && inFlight === 0 && callbacksPending === 0 && next >= jobs.length) finish('completed');
    };

    const onOutcome = async (job: ReplicationJob, message: ReplicationOutcome) => {
      if (!message.ok && message.world_missing) {
        // Nothing was computed; still in flight, now with the world (unless the run already ended).
        if (!done) {
          send(job, true);
          return;
        }
        inFlight--;
        maybeSettle();
        return;
      }
      inFlight--;
      if (!message.ok) {
        const { error } = message;
        fail(
          error.name === 'ServiceError' && error.code
            ? new ServiceError(error.code as ErrorCode, error.message, (error.details ?? []) as never)
            : new Error(error.message),
        );
        return;
      }
      if (done) {
        // Stopped or aborted while this replication ran: computed, not kept.
        discardedEvents += message.result.event_counts.events_total;
        discardedReplications++;
        maybeSettle();
        return;
      }
      results.push(message.result);
      events += message.result.event_counts.events_total;
      idle++;
      // The run completes only when every callback has finished too (a caller's callback stores the result).
      callbacksPending++;
      let verdict: 'stop' | undefined;
      try {
        verdict = await options.onReplication?.({ result: message.result, completed: results.length, total: jobs.length, events_simulated: events });
      } catch (error) {
        callbacksPending--;
        fail(error);
        return;
      }
      callbacksPending--;
      if (verdict === 'stop') finish('stopped');
      dispatch();
      maybeSettle();
    };

    if (options.signal?.aborted) {
      finish('aborted');
      return;
    }
    options.signal?.addEventListener('abort', onAbort, { once: true });
    dispatch();
  });
}
