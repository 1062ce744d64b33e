// World-run activities: move the run row through its states and run the replications on the worker
// pool. Each is safe to retry: the row changes are conditional on the prior state and a replication is stored once by
// its (run, variant, replication) key, so a retried run activity continues where the last attempt's stored work ends.
import { Context } from '@temporalio/activity';
import { CancelledFailure } from '@temporalio/common';
import { creditsForEvents, PairGate, precisionReached, type ReplicationResult, replicationJobs } from '../domain/simulation/index.ts';
import {
  addDiscardedEvents,
  finishRun,
  loadRunWork,
  markRunning,
  type RunStart,
  type RunStatus,
  type RunUsage,
  recordReplications,
  type ReplicationToStore,
  recordStopReason,
  runStatus,
  runUsage,
  type StopReason,
} from '../store/runs/runs.ts';
import type { ActivityDeps } from './deps.ts';
import { runReplicationsOnPool } from '../compute/simulation/pool.ts';

/** How often the run activity heartbeats (and looks at the run row for a cancel made while Temporal was unreachable). */
export const RUN_HEARTBEAT_INTERVAL_MS = 1000;

export type RunReplicationsResult = {
  /** completed: every replication ran; budget or wall_clock: stopped early (timed_out); canceled: the row was canceled */
  outcome: 'completed' | 'budget' | 'wall_clock' | 'canceled';
  usage: RunUsage;
};

// Over 70 lines, listed in test/unit/architecture.test.ts: not yet split: the run activities share one factory closure (start, replicate, settle).
export function runActivities(deps: ActivityDeps) {
  const { db, logger } = deps;
  return {
    /** queued -> running; reports whether this run is to be worked on (a run canceled while queued is not). */
    async startRun(input: { run_id: string }): Promise<RunStart> {
      return markRunning(db, input.run_id);
    },

    /**
     * Runs the replications not stored yet on the worker pool, storing the complete groups behind the computation (the
     * groups that complete while one store commits go together in the next). Stops dispatching when the
     * next replication would take the run's credits past its reservation (budget), at the wall-clock limit, or on a
     * cancel (Temporal's, seen through heartbeats, or the row's). A replication already running is not interrupted; its
     * result is discarded and its events are recorded as work done.
     */
    // Over 70 lines, listed in test/unit/architecture.test.ts: not yet split: replications with heartbeats, budget and wall-clock stops share one running state.
    async runReplications(input: { run_id: string }): Promise<RunReplicationsResult> {
      const context = Context.current();
      const work = await loadRunWork(db, input.run_id);
      if (work.status !== 'running') return { outcome: 'canceled', usage: await runUsage(db, input.run_id) };
      const { world } = work;
      const variantOrder = new Map(world.variants.map((variant, index) => [variant.id, index]));
      const storedKeys = new Set(work.stored.map((s) => `${s.variant_id}\u0000${s.replication_index}`));
      const jobs = replicationJobs(world).filter((job) => !storedKeys.has(`${job.variant_id}\u0000${job.replication_index}`));
      let eventsKept = work.stored.reduce((sum, s) => sum + s.events_total, 0);
      let eventsComputed = 0;
      let eventsStoredNow = 0;
      let stop: StopReason | 'canceled' | null = null;
      const deadline_ms = Date.parse(work.started_at) + work.wall_clock_limit_seconds * 1000;
      const controller = new AbortController();
      const abort = (why: StopReason | 'canceled') => {
        stop ??= why;
        controller.abort();
      };

      if (jobs.length === 0) return { outcome: 'completed', usage: await runUsage(db, input.run_id) };
      if (Date.now() >= deadline_ms) {
        await recordStopReason(db, input.run_id, 'wall_clock');
        return { outcome: 'wall_clock', usage: await runUsage(db, input.run_id) };
      }

      const onCancel = () => abort('canceled');
      context.cancellationSignal.addEventListener('abort', onCancel, { once: true });
      const wallClock = setTimeout(() => abort('wall_clock'), Math.max(0, deadline_ms - Date.now()));
      let checking = false;
      const ticker = setInterval(() => {
        context.heartbeat({ events_kept: eventsKept });
        if (checking) return;
        checking = true;
        runStatus(db, input.run_id)
          .then((status) => {
            if (status !== 'running') abort('canceled');
          })
          .catch((error) => logger.warn({ err: error, run_id: input.run_id }, 'run status check failed'))
          .finally(() => {
            checking = false;
          });
      }, RUN_HEARTBEAT_INTERVAL_MS);

      // Only complete baseline/treatment groups (every variant of a replication index) are stored and charged.
      const gate = new PairGate(world, work.stored);
      // stop_when: judged on the pairs this attempt kept (a retried attempt judges on fewer, so it runs on, never short).
      const kept: ReplicationResult[] = [];
      let precise = false;
      // Kept groups are stored behind the computation: the pool goes on while a store commits, and the groups that
      // completed meanwhile are stored together in the next transaction (one commit, one notice to pollers).
      const unstored: ReplicationToStore[] = [];
      let storing: Promise<void> | null = null;
      let storeFailure: unknown = null;
      /** Stores every group kept so far in one transaction. */
      const storeBatch = async (): Promise<void> => {
        const batch = unstored.splice(0, unstored.length);
        const batchEvents = batch.reduce((sum, member) => sum + member.result.event_counts.events_total, 0);
        try {
          if ((await recordReplications(db, input.run_id, batch)) === 'not_running') {
            // Canceled meanwhile: what was not stored is not kept (it counts as computed, below).
            eventsKept -= batchEvents + unstored.reduce((sum, member) => sum + member.result.event_counts.events_total, 0);
            unstored.length = 0;
            abort('canceled');
            return;
          }
          eventsStoredNow += batchEvents;
        } catch (error) {
          storeFailure = error;
          unstored.length = 0;
          controller.abort();
        }
      };
      /** One store at a time; the groups kept while it commits go in the next. */
      const flush = () => {
        if (storing || unstored.length === 0 || storeFailure !== null) return;
        storing = storeBatch().finally(() => {
          storing = null;
          flush();
        });
      };
      /** Resolves when every kept group is stored (or the run was found canceled, or a store failed). */
      const stored = async () => {
        while (storing) await storing;
      };
      const keep = (result: ReplicationResult): 'stop' | undefined => {
        eventsComputed += result.event_counts.events_total;
        if (stop) return 'stop';
        const group = gate.add(result);
        if (group.length === 0) return undefined;
        const groupEvents = group.reduce((sum, member) => sum + member.event_counts.events_total, 0);
        // Decided here, synchronously, so results arriving together are counted one at a time.
        if (creditsForEvents(eventsKept + groupEvents) > work.credits_reserved) {
          stop = 'budget';
          return 'stop';
        }
        eventsKept += groupEvents;
        for (const member of group) {
          unstored.push({ variant_order: variantOrder.get(member.variant_id) ?? 0, result: member });
          if (world.stop_when) kept.push(member);
        }
        flush();
        if (world.stop_when && precisionReached(world, kept)) {
          precise = true;
          return 'stop';
        }
        if (Date.now() >= deadline_ms) {
          stop ??= 'wall_clock';
          return 'stop';
        }
        return undefined;
      };

      try {
        const pool = await runReplicationsOnPool(world, { jobs, signal: controller.signal, onReplication: ({ result }) => keep(result) });
        const settled = await pool.settled;
        await stored();
        if (storeFailure !== null) throw storeFailure;
        // Everything this attempt computed but did not store: the replication that would pass the budget, results that
        // arrived after a stop or cancel, and replications still running then. It is work done for the user only when the
        // budget, the wall clock or the user's cancel stopped it; an attempt Temporal abandoned (heartbeat timeout, worker
        // shutdown: the row is still running) is the service's loss, and the retry recomputes those replications uncharged.
        const userStopped = precise || stop === 'budget' || stop === 'wall_clock' || (stop === 'canceled' && (await runStatus(db, input.run_id)) !== 'running');
        if (userStopped) await addDiscardedEvents(db, input.run_id, eventsComputed - eventsStoredNow + settled.events_discarded);
        // `stop` is set from callbacks; read it through a cast so the compiler does not narrow it to its initial null.
        const outcome: RunReplicationsResult['outcome'] = (stop as StopReason | 'canceled' | null) ?? 'completed';
        if (outcome === 'budget' || outcome === 'wall_clock') await recordStopReason(db, input.run_id, outcome);
        const usage = await runUsage(db, input.run_id);
        logger.info({ run_id: input.run_id, outcome, ...usage, threads: pool.threads, wall_ms: Math.round(pool.wall_ms) }, 'run replications ended');
        if (outcome === 'canceled' && context.cancellationSignal.aborted) throw new CancelledFailure('the run was canceled');
        return { outcome, usage };
      } finally {
        clearInterval(ticker);
        clearTimeout(wallClock);
        context.cancellationSignal.removeEventListener('abort', onCancel);
      }
    },

    /** What a run has used so far (read after a cancel, when the run activity's own result is not available). */
    async readRunUsage(input: { run_id: string }): Promise<RunUsage> {
      return runUsage(db, input.run_id);
    },

    /** Ends the run after its credits settled; the status moves only from running, so canceled is never overwritten. */
    async finishRun(input: {
      run_id: string;
      status: 'succeeded' | 'timed_out' | 'canceled' | 'failed';
      credits_used: number;
      error?: { code: string; message: string } | null;
    }): Promise<RunStatus> {
      return finishRun(db, input);
    },
  };
}
