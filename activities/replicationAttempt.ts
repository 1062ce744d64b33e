// The running state of one attempt of the run activity (activities/runs.ts: runReplications): which results it keeps
// (complete groups within the budget), the store behind the computation, and why it stopped. One attempt, one object;
// a retried activity starts a new one from what the earlier attempts stored.
import { creditsForEvents, PairGate, precisionReached, type ReplicationResult } from '../domain/simulation/index.ts';
import type { Db } from '../store/db.ts';
import {
  addDiscardedEvents,
  type loadRunWork,
  recordReplications,
  recordReplicationsWithinBudget,
  type ReplicationToStore,
  runStatus,
  type StopReason,
} from '../store/runs/runs.ts';

export type RunWork = Awaited<ReturnType<typeof loadRunWork>>;

/**
 * Stores start at most this often (the first at once): the groups kept meanwhile go together in the next. Each store is
 * a transaction and a change notice (every long-poll of the run answers and asks again), so a small run stores a few
 * times rather than once per group; a crash loses at most this much computation, which the retry redoes uncharged.
 */
export const STORE_INTERVAL_MIN_MS = 100;
export type AttemptStop = StopReason | 'canceled';

/**
 * An attempt that runs one shard of a run while other shards run elsewhere: each store judges the run's budget across
 * shards (recordReplicationsWithinBudget), and stop_when is judged on every pair the run has stored when the shard
 * started (`stored_results`, loaded only when the world has stop_when) plus the pairs this shard keeps.
 */
export type ShardOptions = { stored_results: readonly ReplicationResult[] };

const eventsOf = (results: readonly ReplicationResult[]) => results.reduce((sum, result) => sum + result.event_counts.events_total, 0);

export class ReplicationAttempt {
  /** Why the attempt stopped dispatching; set once, by the first reason. */
  stop: AttemptStop | null = null;
  /** stop_when was met by the pairs this attempt kept. */
  precise = false;
  /** Events of the kept groups (the run's charge so far): stored by earlier attempts, stored now, or waiting to be. */
  events_kept: number;
  readonly #controller = new AbortController();
  readonly #variant_order: Map<string, number>;
  // Only complete baseline/treatment groups (every variant of a replication index) are stored and charged.
  readonly #gate: PairGate;
  // stop_when: judged on the pairs this attempt kept (a retried attempt judges on fewer, so it runs on, never short).
  readonly #kept: ReplicationResult[] = [];
  #events_computed = 0;
  #events_stored_now = 0;
  // Kept groups are stored behind the computation: the pool goes on while a store commits, and the groups that
  // completed meanwhile are stored together in the next transaction (one commit, one notice to pollers).
  readonly #unstored: ReplicationToStore[] = [];
  #storing: Promise<void> | null = null;
  #store_started_at = Number.NEGATIVE_INFINITY;
  #store_timer: NodeJS.Timeout | null = null;
  /** Set once the pool is done: what is left is stored at once, without waiting for the interval. */
  #draining = false;
  #store_failure: unknown = null;

  readonly #db: Db;
  readonly #run_id: string;
  readonly #work: RunWork;
  readonly #shard: ShardOptions | null;
  readonly deadline_ms: number;

  constructor(db: Db, run_id: string, work: RunWork, deadline_ms: number, shard: ShardOptions | null = null) {
    this.#db = db;
    this.#run_id = run_id;
    this.#work = work;
    this.deadline_ms = deadline_ms;
    this.#shard = shard;
    if (shard && work.world.stop_when) this.#kept.push(...shard.stored_results);
    this.events_kept = work.stored.reduce((sum, s) => sum + s.events_total, 0);
    this.#variant_order = new Map(work.world.variants.map((variant, index) => [variant.id, index]));
    this.#gate = new PairGate(work.world, work.stored);
  }

  /** Aborted when the attempt stops dispatching: the pool starts no further replication. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  abort(why: AttemptStop): void {
    this.stop ??= why;
    this.#controller.abort();
  }

  /** Takes one computed replication: keeps its group when complete and within budget; 'stop' ends dispatching. */
  keep(result: ReplicationResult): 'stop' | undefined {
    this.#events_computed += result.event_counts.events_total;
    if (this.stop) return 'stop';
    const group = this.#gate.add(result);
    if (group.length === 0) return undefined;
    const groupEvents = eventsOf(group);
    // Decided here, synchronously, so results arriving together are counted one at a time.
    if (creditsForEvents(this.events_kept + groupEvents) > this.#work.credits_reserved) {
      this.stop = 'budget';
      return 'stop';
    }
    this.events_kept += groupEvents;
    const { world } = this.#work;
    for (const member of group) {
      this.#unstored.push({ variant_order: this.#variant_order.get(member.variant_id) ?? 0, result: member });
      if (world.stop_when) this.#kept.push(member);
    }
    this.#flush();
    if (world.stop_when && precisionReached(world, this.#kept)) {
      this.precise = true;
      return 'stop';
    }
    if (Date.now() >= this.deadline_ms) {
      this.stop ??= 'wall_clock';
      return 'stop';
    }
    return undefined;
  }

  /** Stores nothing more (the attempt failed): the groups not stored yet are recomputed by the retry, uncharged. */
  dispose(): void {
    if (this.#store_timer) clearTimeout(this.#store_timer);
    this.#store_timer = null;
    this.#unstored.length = 0;
  }

  /** Resolves when every kept group is stored (or the run was found canceled); throws what a failed store threw. */
  async stored(): Promise<void> {
    this.#draining = true;
    this.#flush();
    while (this.#storing) await this.#storing;
    if (this.#store_failure !== null) throw this.#store_failure;
  }

  /**
   * Records as work done what this attempt computed but did not store: the replication that would pass the budget,
   * results that arrived after a stop or cancel, and `events_discarded` (replications still running then). It is work
   * done for the user only when the budget, the wall clock or the user's cancel stopped it; an attempt Temporal
   * abandoned (heartbeat timeout, worker shutdown: the row is still running) is the service's loss, and the retry
   * recomputes those replications uncharged.
   */
  async recordDiscarded(events_discarded: number): Promise<void> {
    const stop = this.stop;
    const userStopped =
      this.precise || stop === 'budget' || stop === 'wall_clock' || (stop === 'canceled' && (await runStatus(this.#db, this.#run_id)) !== 'running');
    if (userStopped) await addDiscardedEvents(this.#db, this.#run_id, this.#events_computed - this.#events_stored_now + events_discarded);
  }

  /** One store at a time, at most one start per STORE_INTERVAL_MIN_MS; the groups kept meanwhile go in the next. */
  #flush(): void {
    if (this.#storing || this.#unstored.length === 0 || this.#store_failure !== null) return;
    const wait_ms = this.#store_started_at + STORE_INTERVAL_MIN_MS - performance.now();
    if (wait_ms > 0 && !this.#draining) {
      this.#store_timer ??= setTimeout(() => {
        this.#store_timer = null;
        this.#flush();
      }, wait_ms);
      return;
    }
    if (this.#store_timer) clearTimeout(this.#store_timer);
    this.#store_timer = null;
    this.#store_started_at = performance.now();
    this.#storing = this.#storeBatch().finally(() => {
      this.#storing = null;
      this.#flush();
    });
  }

  /** Stores every group kept so far in one transaction. */
  async #storeBatch(): Promise<void> {
    const unstored = this.#unstored;
    const batch = unstored.splice(0, unstored.length);
    const batchEvents = eventsOf(batch.map((member) => member.result));
    try {
      if (this.#shard) {
        const { status, events_stored } = await recordReplicationsWithinBudget(this.#db, this.#run_id, batch, this.#work.credits_reserved);
        this.#events_stored_now += events_stored;
        if (status === 'stored') return;
        // Canceled meanwhile, or other shards' stores took the budget: what was not stored is not kept (it counts as
        // computed, in recordDiscarded).
        this.events_kept -= batchEvents - events_stored + eventsOf(unstored.map((member) => member.result));
        unstored.length = 0;
        this.abort(status === 'budget' ? 'budget' : 'canceled');
        return;
      }
      if ((await recordReplications(this.#db, this.#run_id, batch)) === 'not_running') {
        // Canceled meanwhile: what was not stored is not kept (it counts as computed, in recordDiscarded).
        this.events_kept -= batchEvents + eventsOf(unstored.map((member) => member.result));
        unstored.length = 0;
        this.abort('canceled');
        return;
      }
      this.#events_stored_now += batchEvents;
    } catch (error) {
      this.#store_failure = error;
      unstored.length = 0;
      this.#controller.abort();
    }
  }
}
