// New model features against closed-form queueing results (docs/simulation.md, Model features and their checks).
// Seeds are fixed, so each check is deterministic; tolerances are stated beside each and in docs/simulation.md.
import { describe, expect, it } from 'vitest';
import type { WorldSpec } from '../../domain/contracts/worldSpec.ts';
import { runSequential, summarize } from '../../domain/simulation/index.ts';
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

describe('entity-level percentiles and the share over a threshold (M/M/1, lambda 0.8, mu 1)', () => {
  // M/M/1 FIFO: P(Wq > t) = rho e^{-(mu - lambda) t}, so the q-quantile of the wait is ln(rho / (1 - q)) / (mu - lambda)
  // for q > 1 - rho; the time in system is exponential with rate mu - lambda.
  const lambda = 0.8;
  const mu = 1;
  const rho = lambda / mu;
  const waitQuantile = (q: number) => Math.log(rho / (1 - q)) / (mu - lambda);
  const world = queueWorld({ servers: 1, arrivals_per_minute: lambda, mean_service_minutes: 1 / mu, horizon_minutes: 100_000, warm_up_minutes: 2_000, replications: 8, seed: 3 });
  const wait = world.measured.find((measure) => measure.id === 'wait')!;
  if (wait.kind === 'time_between') {
    wait.percentiles = [0.5, 0.9, 0.95];
    wait.threshold = 10;
  }
  const system = world.measured.find((measure) => measure.id === 'time_in_system')!;
  if (system.kind === 'time_between') system.percentiles = [0.9];

  it('reports the exponential-tail percentiles of the wait within 5% and the share over 10 minutes within 5%', () => {
    const summary = summaryOf(world, 8, 'wait');
    const percentiles = new Map(summary.entity_percentiles!.map((entry) => [entry.quantile, entry.value!]));
    expect(relative(percentiles.get(0.9)!, waitQuantile(0.9))).toBeLessThan(0.05); // 10.40 minutes
    expect(relative(percentiles.get(0.95)!, waitQuantile(0.95))).toBeLessThan(0.05); // 13.86 minutes
    expect(relative(percentiles.get(0.5)!, waitQuantile(0.5))).toBeLessThan(0.05); // 2.35 minutes
    // The replication-mean statistics are labelled as such and are a different thing: their p90 is near the mean wait (4).
    expect(summary.p90!).toBeLessThan(6);
    const share = rho * Math.exp(-(mu - lambda) * 10); // 0.108
    expect(relative(summary.over_threshold!.share!, share)).toBeLessThan(0.05);
    expect(summary.over_threshold!.share_interval_95.low!).toBeLessThan(share);
    expect(summary.over_threshold!.share_interval_95.high!).toBeGreaterThan(share);
  });

  it('reports the 90th percentile of the time in system, ln(10) / (mu - lambda), within 5%', () => {
    const summary = summaryOf(world, 8, 'time_in_system');
    expect(relative(summary.entity_percentiles![0]!.value!, Math.log(10) / (mu - lambda))).toBeLessThan(0.05);
  });
});
