// Batch service (docs/simulation.md, Model features and their checks). Seeds are fixed, so each check is deterministic.
import { describe, expect, it } from 'vitest';
import type { WorldSpec } from '../../domain/contracts/worldSpec.ts';
import { estimateRun, runSequential, summarize, validateWorld } from '../../domain/simulation/index.ts';
import { stationary } from '../support/markov.ts';
import { queueWorld } from '../support/worlds.ts';

function batchWorld(options: { lambda: number; max_size: number; min_size?: number; seed: number }): WorldSpec {
  const world = queueWorld({
    servers: 1,
    arrivals_per_minute: options.lambda,
    mean_service_minutes: 1,
    horizon_minutes: 100_000,
    warm_up_minutes: 2_000,
    replications: 10,
    seed: options.seed,
  });
  const consult = world.steps[0]!;
  if (consult.kind === 'service') consult.batch = { max_size: options.max_size, ...(options.min_size === undefined ? {} : { min_size: options.min_size }) };
  return world;
}

function baselineMean(world: WorldSpec, measure: string, replications: number): number {
  const jobs = Array.from({ length: replications }, (_, index) => ({ variant_id: 'baseline', replication_index: index, trace_limit: 0 }));
  return summarize(world, runSequential(world, { jobs })).find((summary) => summary.measure_id === measure && summary.variant_id === 'baseline')!.mean!;
}

describe('batch service', () => {
  it('M/M^[3]/1 (up to 3 served together, lambda 2, mu 1): mean wait from the exact (queue, busy) Markov chain within 5%', () => {
    // Bulk service (Bailey 1954): states (q waiting, server busy or idle). An arrival to an idle server starts a batch
    // of one; a batch ends at rate mu and the server takes min(q, 3) at once. Truncated at 300 waiting; Wq = Lq / lambda.
    const [lambda, mu, size, limit] = [2, 1, 3, 300];
    const world = batchWorld({ lambda, max_size: size, seed: 71 });
    expect(validateWorld(world).problems).toEqual([]);
    // State 0: idle; state q + 1: busy with q waiting (an idle server never has anyone waiting).
    const pi = stationary(limit + 2, (from, to) => {
      if (from === 0) return to === 1 ? lambda : 0;
      const q = from - 1;
      if (q < limit && to === from + 1) return lambda;
      if (q === 0 && to === 0) return mu;
      if (q > 0 && to === q - Math.min(q, size) + 1) return mu;
      return 0;
    });
    let waiting = 0;
    pi.forEach((p, index) => {
      if (index > 0) waiting += (index - 1) * p;
    });
    const wait = waiting / lambda;
    expect(Math.abs(baselineMean(world, 'wait', 10) - wait) / wait).toBeLessThan(0.05);
    // Little's law on the queue: the time-average queue equals lambda x mean wait.
    expect(Math.abs(baselineMean(world, 'queue', 10) - waiting) / waiting).toBeLessThan(0.05);
  });

  it('a minimum batch of 3 with arrivals each minute and a 2.5-minute session: every wait is 2, 1 or 0 minutes, mean exactly 1', () => {
    const world = batchWorld({ lambda: 1, max_size: 3, min_size: 3, seed: 72 });
    world.arrivals = [{ id: 'patients', kind: 'scheduled', times: [0.5], period: 1, to_step: 'consult' }];
    const consult = world.steps[0]!;
    if (consult.kind === 'service') consult.duration = { dist: 'fixed', value: 2.5 };
    world.warm_up = 0;
    world.horizon = 999;
    const result = runSequential({ ...world, replications: 1 })[0]!;
    expect(result.measures[0]!.value).toBeCloseTo(1, 12);
    // 333 batches of three started (the last finishing after the horizon); one service end event per batch.
    expect(result.event_counts.service_starts).toBe(999);
    expect(result.event_counts.events_total).toBe(999 + 332);
    const estimate = estimateRun({ ...world, replications: 1 }).events_per_replication_estimate.baseline!;
    expect(Math.abs(estimate - (999 + 332)) / (999 + 332)).toBeLessThan(0.15);
  });

  it('refuses a batch resource shared with another step and a minimum above the maximum, at their pointers', () => {
    const world = batchWorld({ lambda: 1, max_size: 2, min_size: 3, seed: 73 });
    world.steps.splice(1, 0, { id: 'review', kind: 'service', resource: 'clinician', duration: { dist: 'fixed', value: 1 }, next: 'done' });
    world.arrivals.push({ id: 'reviews', kind: 'poisson', rate: 0.1, to_step: 'review' });
    const pointers = validateWorld(world).problems.map((problem) => problem.pointer);
    expect(pointers).toContain('/steps/0/batch/min_size');
    expect(pointers).toContain('/steps/0/batch');
  });
});
