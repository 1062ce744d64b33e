import { describe, expect, it } from 'vitest';
import { runReplicationsOnPool } from '../../compute/simulation/pool.ts';
import { replicationJobs, runSequential } from '../../domain/simulation/index.ts';
import { queueWorld } from '../support/worlds.ts';

const world = queueWorld({
  servers: 2,
  arrivals_per_minute: 1.6,
  mean_service_minutes: 1,
  treatment_mean_service_minutes: 0.9,
  horizon_minutes: 10_000,
  warm_up_minutes: 500,
  replications: 6,
});

describe('worker-thread pool', () => {
  it('returns the same results as the single-thread path, in job order', async () => {
    const pooled = await runReplicationsOnPool(world, { threads: 2 });
    expect(pooled.outcome).toBe('completed');
    expect(pooled.threads).toBe(2);
    expect(JSON.stringify(pooled.results)).toBe(JSON.stringify(runSequential(world)));
    expect(await pooled.settled).toEqual({ events_discarded: 0, replications_discarded: 0 });
  });

  it('completes only after every callback has finished, even when an early callback is the slowest', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let finished = 0;
    let first = true;
    const pending = runReplicationsOnPool(world, {
      threads: 2,
      onReplication: async (progress) => {
        if (first) {
          first = false;
          await gate; // the first result's callback (a database write, in the run activity) is still running…
        }
        finished += 1;
        // …when the others complete: release it on the next turn of the event loop, after every other replication reported.
        if (progress.completed === progress.total) setImmediate(release);
        return undefined;
      },
    });
    const run = await pending;
    expect(run.outcome).toBe('completed');
    expect(finished).toBe(run.results.length);
  });

  it('stops dispatching when the callback says stop, keeping complete results only', async () => {
    const seen: number[] = [];
    const run = await runReplicationsOnPool(world, {
      threads: 2,
      onReplication: (progress) => {
        seen.push(progress.completed);
        return progress.completed >= 3 ? 'stop' : undefined;
      },
    });
    expect(run.outcome).toBe('stopped');
    // Every kept result went through the callback; one that completed on the other thread while the third's callback
    // ran is kept and reported too (at most threads - 1 beyond the stop).
    expect(run.results.length).toBe(seen.length);
    expect(run.results.length).toBeGreaterThanOrEqual(3);
    expect(run.results.length).toBeLessThanOrEqual(4);
    expect(run.events_simulated).toBe(run.results.reduce((sum, result) => sum + result.event_counts.events_total, 0));
    const settled = await run.settled;
    // Never more than `threads` replications run at once, so at most that many are computed after the stop and
    // discarded: two completions can resolve in one turn, the first callback dispatching onto both freed threads
    // before the second callback's 'stop' is seen.
    expect(settled.replications_discarded).toBeLessThanOrEqual(2);
    expect(run.results.length + settled.replications_discarded).toBeLessThanOrEqual(3 + 1 + 2);
  });

  it('on abort dispatches nothing more and discards a replication that finishes afterwards', async () => {
    const controller = new AbortController();
    const run = await runReplicationsOnPool(world, {
      threads: 2,
      signal: controller.signal,
      onReplication: (progress) => {
        if (progress.completed === 1) controller.abort();
        return undefined;
      },
    });
    expect(run.outcome).toBe('aborted');
    expect(run.results.length).toBe(1);
    const settled = await run.settled;
    // The other thread was running when the abort came: it finished, and its result was not kept.
    expect(settled.replications_discarded).toBe(1);
    expect(run.results.length).toBe(1);
    expect(replicationJobs(world).length).toBe(12);
  });

  it('turns an error thrown in a worker into a rejected run', async () => {
    await expect(runReplicationsOnPool(world, { threads: 1, jobs: [{ variant_id: 'nonexistent', replication_index: 0, trace_limit: 0 }] })).rejects.toThrow(
      /variant 'nonexistent' does not exist/,
    );
  });
});

describe('pool thread world cache', () => {
  it('keeps two runs of different worlds apart when they share the threads', async () => {
    const other = queueWorld({
      servers: 3,
      arrivals_per_minute: 2.4,
      mean_service_minutes: 1,
      horizon_minutes: 5_000,
      warm_up_minutes: 100,
      replications: 5,
      seed: 777,
    });
    const [first, second] = await Promise.all([runReplicationsOnPool(world, { threads: 2 }), runReplicationsOnPool(other, { threads: 2 })]);
    expect(JSON.stringify(first.results)).toBe(JSON.stringify(runSequential(world)));
    expect(JSON.stringify(second.results)).toBe(JSON.stringify(runSequential(other)));
  });

  it('gives the same results when only the first task carries the world and later ones may land on a thread without it', async () => {
    const single = queueWorld({
      servers: 2,
      arrivals_per_minute: 1.2,
      mean_service_minutes: 1,
      horizon_minutes: 2_000,
      warm_up_minutes: 100,
      replications: 8,
      seed: 4242,
    });
    const run = await runReplicationsOnPool(single, { threads: 1 });
    expect(JSON.stringify(run.results)).toBe(JSON.stringify(runSequential(single)));
  });

  it('asks for the world when a task comes without one it does not hold, then runs tasks by key alone', async () => {
    const { default: runTask } = await import('../../compute/worker.ts');
    const job = { variant_id: 'baseline', replication_index: 4, trace_limit: 0 };
    const world_key = 'test-world-cache-key';
    expect(await runTask({ kind: 'replication', world_key, world: null, job })).toEqual({ ok: false, world_missing: true });
    const withWorld = await runTask({ kind: 'replication', world_key, world, job });
    const byKey = await runTask({ kind: 'replication', world_key, world: null, job });
    const expected = JSON.stringify(runSequential(world, { jobs: [job] })[0]);
    expect('result' in withWorld && JSON.stringify(withWorld.result)).toBe(expected);
    expect('result' in byKey && JSON.stringify(byKey.result)).toBe(expected);
  });
});
