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
  /** the organization the run is for: its tasks count toward its share of the pool (compute/scheduler.ts) */
  org_id?: string | null;
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

export function runReplicationsOnPool(world: WorldSpec, options: PoolOptions = {}): Promise<PoolRun> {
  const jobs = options.jobs ?? replicationJobs(world);
  const threads = Math.max(1, Math.min(options.threads ?? defaultThreadCount(), POOL_THREADS_MAX, jobs.length || 1));
  return new PoolDispatch(world, jobs, threads, options).run();
}

type Discarded = { events_discarded: number; replications_discarded: number };

/**
 * One run on the pool: which jobs are sent, running and kept, and how it ends. A run ends once (completed, stopped,
 * aborted or failed); what was in flight then is discarded as it arrives, and `settled` resolves when nothing is left.
 */
class PoolDispatch {
  private readonly world: WorldSpec;
  private readonly jobs: ReplicationJob[];
  private readonly threads: number;
  private readonly options: PoolOptions;
  private readonly started = performance.now();
  // Pool threads keep the world and its compiled models by this key, so one run compiles each variant once per thread
  // and only its first task on each thread carries the world (structured-cloned per task otherwise).
  private readonly world_key: string;
  private readonly order: Map<string, number>;
  private readonly results: ReplicationResult[] = [];
  private next = 0;
  private inFlight = 0;
  private events = 0;
  private done = false;
  private discardedEvents = 0;
  private discardedReplications = 0;
  private idle: number;
  private callbacksPending = 0;
  private sentWithWorld = 0;
  private resolveRun: (run: PoolRun) => void = () => {};
  private rejectRun: (error: unknown) => void = () => {};
  private resolveSettled: (value: Discarded) => void = () => {};
  private readonly settled = new Promise<Discarded>((settle) => {
    this.resolveSettled = settle;
  });
  private readonly onAbort = () => this.finish('aborted');

  constructor(world: WorldSpec, jobs: ReplicationJob[], threads: number, options: PoolOptions) {
    this.world = world;
    this.jobs = jobs;
    this.threads = threads;
    this.options = options;
    this.idle = threads;
    this.world_key = createHash('sha256').update(JSON.stringify(world)).digest('base64url');
    this.order = new Map(jobs.map((job, index) => [`${job.variant_id}\u0000${job.replication_index}`, index]));
  }

  run(): Promise<PoolRun> {
    return new Promise<PoolRun>((resolve, reject) => {
      this.resolveRun = resolve;
      this.rejectRun = reject;
      if (this.options.signal?.aborted) {
        this.finish('aborted');
        return;
      }
      this.options.signal?.addEventListener('abort', this.onAbort, { once: true });
      this.dispatch();
    });
  }

  private finish(outcome: PoolRun['outcome']): void {
    if (this.done) return;
    this.done = true;
    this.options.signal?.removeEventListener('abort', this.onAbort);
    const { order } = this;
    this.results.sort((a, b) => order.get(`${a.variant_id}\u0000${a.replication_index}`)! - order.get(`${b.variant_id}\u0000${b.replication_index}`)!);
    this.resolveRun({
      results: this.results,
      outcome,
      events_simulated: this.events,
      wall_ms: performance.now() - this.started,
      threads: this.threads,
      settled: this.settled,
    });
    this.maybeSettle();
  }

  private maybeSettle(): void {
    if (!this.done || this.inFlight > 0 || this.callbacksPending > 0) return;
    this.resolveSettled({ events_discarded: this.discardedEvents, replications_discarded: this.discardedReplications });
  }

  private fail(error: unknown): void {
    if (this.done) return;
    this.done = true;
    this.options.signal?.removeEventListener('abort', this.onAbort);
    this.resolveSettled({ events_discarded: this.discardedEvents, replications_discarded: this.discardedReplications });
    this.rejectRun(error);
  }

  // The first `threads` tasks carry the world (each idle thread takes one); a thread that still lacks it says so
  // and gets the same job again with the world.
  private send(job: ReplicationJob, withWorld: boolean): void {
    if (withWorld) this.sentWithWorld++;
    const task = { kind: 'replication' as const, world_key: this.world_key, world: withWorld ? this.world : null, job };
    runComputeTask<ReplicationOutcome>(task, { org_id: this.options.org_id }).then(
      (message) => this.onOutcome(job, message),
      (error: unknown) => {
        this.inFlight--;
        this.fail(error);
      },
    );
  }

  private dispatch(): void {
    while (!this.done && this.idle > 0 && this.next < this.jobs.length) {
      this.idle--;
      const job = this.jobs[this.next++]!;
      this.inFlight++;
      this.send(job, this.sentWithWorld < this.threads);
    }
    if (!this.done && this.inFlight === 0 && this.callbacksPending === 0 && this.next >= this.jobs.length) this.finish('completed');
  }

  private async onOutcome(job: ReplicationJob, message: ReplicationOutcome): Promise<void> {
    if (!message.ok && message.world_missing) {
      // Nothing was computed; still in flight, now with the world (unless the run already ended).
      if (!this.done) {
        this.send(job, true);
        return;
      }
      this.inFlight--;
      this.maybeSettle();
      return;
    }
    this.inFlight--;
    if (!message.ok) {
      const { error } = message;
      this.fail(
        error.name === 'ServiceError' && error.code
          ? new ServiceError(error.code as ErrorCode, error.message, (error.details ?? []) as never)
          : new Error(error.message),
      );
      return;
    }
    if (this.done) {
      // Stopped or aborted while this replication ran: computed, not kept.
      this.discardedEvents += message.result.event_counts.events_total;
      this.discardedReplications++;
      this.maybeSettle();
      return;
    }
    await this.keep(message.result);
  }

  private async keep(result: ReplicationResult): Promise<void> {
    this.results.push(result);
    this.events += result.event_counts.events_total;
    this.idle++;
    // The run completes only when every callback has finished too (a caller's callback stores the result).
    this.callbacksPending++;
    let verdict: 'stop' | undefined;
    try {
      verdict = await this.options.onReplication?.({ result, completed: this.results.length, total: this.jobs.length, events_simulated: this.events });
    } catch (error) {
      this.callbacksPending--;
      this.fail(error);
      return;
    }
    this.callbacksPending--;
    if (verdict === 'stop') this.finish('stopped');
    this.dispatch();
    this.maybeSettle();
  }
}
