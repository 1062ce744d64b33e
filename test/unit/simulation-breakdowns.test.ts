// Resource breakdowns against queueing theory (docs/simulation.md, Model features and their checks).
// Seeds are fixed, so each check is deterministic; tolerances are stated in each test name and in docs/simulation.md.
import { describe, expect, it } from 'vitest';
import type { WorldSpec } from '../../domain/contracts/worldSpec.ts';
import { estimateRun, runSequential, summarize, validateWorld } from '../../domain/simulation/index.ts';
import { stationary } from '../support/markov.ts';
import { queueWorld } from '../support/worlds.ts';

function summaryOf(world: WorldSpec, replications: number, measure: string) {
  const jobs = Array.from({ length: replications }, (_, index) => ({ variant_id: 'baseline', replication_index: index, trace_limit: 0 }));
  const found = summarize(world, runSequential(world, { jobs })).find((summary) => summary.measure_id === measure && summary.variant_id === 'baseline');
  if (!found) throw new Error(`no summary for ${measure}`);
  return found;
}

function relative(actual: number, expected: number): number {
  return Math.abs(actual - expected) / expected;
}

/** An M/M/1 clinic whose one server fails after exponential time (mean `failure_mean`) and is repaired after exponential time (mean `repair_mean`). */
function breakdownWorld(options: { lambda: number; failure_mean: number; repair_mean: number; clock: 'busy' | 'calendar'; seed: number }): WorldSpec {
  const world = queueWorld({
    servers: 1,
    arrivals_per_minute: options.lambda,
    mean_service_minutes: 1,
    horizon_minutes: 100_000,
    warm_up_minutes: 2_000,
    replications: 10,
    seed: options.seed,
  });
  world.resources[0]!.breakdowns = {
    time_to_failure: { dist: 'exponential', mean: options.failure_mean },
    repair: { dist: 'exponential', mean: options.repair_mean },
    clock: options.clock,
  };
  return world;
}

describe('breakdowns: M/M/1 with an unreliable server, pre-emptive resume', () => {
  it('busy clock (fails only while serving): mean wait and time in system match the M/G/1 Pollaczek-Khinchine formula on the completion time within 5%', () => {
    // Failures at rate a during service, repairs R, resume: the completion time C = S + (repairs during S), so
    // E[C] = E[S](1 + a E[R]) and E[C^2] = E[S^2](1 + a E[R])^2 + a E[S] E[R^2] (Gaver 1962; Kleinrock, Queueing
    // Systems vol. 1). FIFO with the interrupted entity first in line is M/G/1 with service C:
    // Wq = lambda E[C^2] / (2 (1 - lambda E[C])) (Pollaczek-Khinchine).
    const [lambda, failureRate, repairMean] = [0.5, 0.1, 2];
    const world = breakdownWorld({ lambda, failure_mean: 1 / failureRate, repair_mean: repairMean, clock: 'busy', seed: 21 });
    expect(validateWorld(world).problems).toEqual([]);
    const [service, serviceSquare, repairSquare] = [1, 2, 2 * repairMean * repairMean];
    const completion = service * (1 + failureRate * repairMean); // 1.2
    const completionSquare = serviceSquare * (1 + failureRate * repairMean) ** 2 + failureRate * service * repairSquare; // 3.68
    const wait = (lambda * completionSquare) / (2 * (1 - lambda * completion)); // 2.3 minutes
    expect(relative(summaryOf(world, 10, 'wait').mean!, wait)).toBeLessThan(0.05);
    expect(relative(summaryOf(world, 10, 'time_in_system').mean!, wait + completion)).toBeLessThan(0.05); // 3.5 minutes
    // Busy 0.5 of the time, under repair lambda E[S] a E[R] = 0.1: utilisation of available time 0.5 / 0.9.
    expect(relative(summaryOf(world, 10, 'utilisation').mean!, (lambda * service) / (1 - lambda * service * failureRate * repairMean))).toBeLessThan(0.02);
  });

  it('calendar clock (fails busy or idle): mean number in system matches the Markov chain (n, up/down) within 5%', () => {
    // States (n, up) and (n, down): arrivals lambda always, service mu while up, failures a, repairs b. Truncated at
    // 400 entities (the tail beyond is below 1e-30); time in system by Little's law.
    const [lambda, mu, failureRate, repairRate] = [0.5, 1, 0.05, 0.5];
    const world = breakdownWorld({ lambda, failure_mean: 1 / failureRate, repair_mean: 1 / repairRate, clock: 'calendar', seed: 22 });
    const limit = 400;
    const state = (n: number, down: number) => n * 2 + down;
    const pi = stationary(2 * (limit + 1), (from, to) => {
      const [n, down] = [from >> 1, from & 1];
      if (to === state(n + 1, down) && n < limit) return lambda;
      if (down === 0 && n > 0 && to === state(n - 1, 0)) return mu;
      if (down === 0 && to === state(n, 1)) return failureRate;
      if (down === 1 && to === state(n, 0)) return repairRate;
      return 0;
    });
    let inSystem = 0;
    let downShare = 0;
    pi.forEach((p, index) => {
      inSystem += (index >> 1) * p;
      downShare += (index & 1) * p;
    });
    expect(relative(downShare, 0.05 / 0.55)).toBeLessThan(1e-9); // availability b / (a + b)
    expect(relative(summaryOf(world, 10, 'time_in_system').mean!, inSystem / lambda)).toBeLessThan(0.05);
    expect(relative(summaryOf(world, 10, 'utilisation').mean!, lambda / mu / (1 - downShare))).toBeLessThan(0.02);
  });

  it('estimates the events of both clocks (failures, repairs, interrupted services) within 15%', () => {
    for (const clock of ['busy', 'calendar'] as const) {
      const world = { ...breakdownWorld({ lambda: 0.7, failure_mean: 5, repair_mean: 1, clock, seed: 23 }), horizon: 20_000, replications: 2 };
      const estimate = estimateRun(world);
      expect(estimate.runnable).toBe(true);
      const results = runSequential(world);
      const actual = results.reduce((sum, result) => sum + result.event_counts.events_total, 0);
      expect(results.every((result) => result.event_counts.breakdowns > 0 && result.event_counts.repairs > 0)).toBe(true);
      expect(Math.abs(estimate.events_estimate - actual) / actual).toBeLessThan(0.15);
    }
  });

  it('refuses breakdowns on a resource with shifts and a time to failure of zero, at their pointers', () => {
    const world = breakdownWorld({ lambda: 0.5, failure_mean: 10, repair_mean: 2, clock: 'busy', seed: 1 });
    world.resources[0]!.shifts = [{ days: [0, 1, 2, 3, 4, 5, 6], start_hour: 0, end_hour: 24, capacity: 1 }];
    world.resources[0]!.breakdowns!.time_to_failure = { dist: 'fixed', value: 0 };
    const pointers = validateWorld(world).problems.map((problem) => problem.pointer);
    expect(pointers).toContain('/resources/0/breakdowns');
    expect(pointers).toContain('/resources/0/breakdowns/time_to_failure/value');
  });
});
