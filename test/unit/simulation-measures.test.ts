// Time-weighted queue length and utilisation per resource against Little's law and the offered load
// (docs/simulation.md, Model features and their checks). Seeds are fixed, so each check is deterministic.
import { describe, expect, it } from 'vitest';
import { runSequential, summarize } from '../../domain/simulation/index.ts';
import { erlangC, queueWorld } from '../support/worlds.ts';

describe('time-weighted measures per resource (M/M/2, lambda 1.5, mu 1)', () => {
  it("queue length equals lambda x mean wait (Little's law) and utilisation equals lambda / (c mu), both within 2%", () => {
    const [servers, lambda, mu] = [2, 1.5, 1];
    const world = queueWorld({
      servers,
      arrivals_per_minute: lambda,
      mean_service_minutes: 1 / mu,
      horizon_minutes: 100_000,
      warm_up_minutes: 2_000,
      replications: 10,
      seed: 81,
    });
    const jobs = Array.from({ length: 10 }, (_, index) => ({ variant_id: 'baseline', replication_index: index, trace_limit: 0 }));
    const results = runSequential(world, { jobs });
    const mean = (id: string) => summarize(world, results).find((summary) => summary.measure_id === id && summary.variant_id === 'baseline')!.mean!;
    // Little's law holds on the sample path: the time-average queue against the arrival rate seen x the mean wait.
    const arrivalsPerMinute = results.reduce((sum, result) => sum + result.arrivals_after_warm_up, 0) / results.length / (100_000 - 2_000);
    expect(Math.abs(mean('queue') - arrivalsPerMinute * mean('wait')) / mean('queue')).toBeLessThan(0.02);
    expect(Math.abs(mean('utilisation') - lambda / (servers * mu)) / (lambda / (servers * mu))).toBeLessThan(0.02);
    // And both against Erlang C: Lq = 1.93 at rho 0.75.
    expect(Math.abs(mean('queue') - erlangC(servers, lambda, mu).mean_queue) / erlangC(servers, lambda, mu).mean_queue).toBeLessThan(0.05);
  });
});
