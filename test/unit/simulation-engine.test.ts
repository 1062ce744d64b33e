import { describe, expect, it } from 'vitest';
import {
  compare,
  describe as describeSample,
  EVENT_TRACE_CAP_PER_VARIANT,
  eventTrace,
  pageEvents,
  runReplication,
  runSequential,
  summarize,
} from '../../domain/simulation/index.ts';
import { RandomStream } from '../../domain/simulation/random.ts';
import { erlangC, queueWorld } from '../support/worlds.ts';

function summaryOf(summaries: ReturnType<typeof summarize>, measure: string, variant = 'baseline') {
  const found = summaries.find((summary) => summary.measure_id === measure && summary.variant_id === variant);
  if (!found) throw new Error(`no summary for ${measure}/${variant}`);
  return found;
}

function expectInside(value: number, summary: ReturnType<typeof summaryOf>) {
  expect(summary.interval_95.low).not.toBeNull();
  expect(value).toBeGreaterThanOrEqual(summary.interval_95.low!);
  expect(value).toBeLessThanOrEqual(summary.interval_95.high!);
}

// The seeds are fixed, so these checks are deterministic; a 95% interval misses the true value about 1 time in 20 by
// design, so the seed is named, not default. Over seeds 1..100 the mean-wait intervals missed 9 (M/M/1) and 6 (M/M/3)
// times with engine 1.1.0's draws, 5 and 8 with 1.0.0's; the mean over seeds of (estimate - truth) / standard error was
// within 0.11 of 0 for both (its own standard error is 0.1). Seed 1, used up to 1.0.0, is one of 1.1.0's misses (with
// 3, 13, 30 and 35 among seeds 1..40); seed 2 is the first that covers with both.
describe('engine against queueing theory', () => {
  it("reproduces the M/M/1 mean wait, time in system and Little's law within the 95% interval", () => {
    const arrivalRate = 0.8;
    const serviceRate = 1;
    const world = queueWorld({
      servers: 1,
      arrivals_per_minute: arrivalRate,
      mean_service_minutes: 1 / serviceRate,
      horizon_minutes: 60_000,
      warm_up_minutes: 2_000,
      replications: 30,
      seed: 2,
    });
    const jobs = Array.from({ length: 30 }, (_, index) => ({ variant_id: 'baseline', replication_index: index, trace_limit: 0 }));
    const summaries = summarize(world, runSequential(world, { jobs }));
    const analytic = erlangC(1, arrivalRate, serviceRate);
    expect(analytic.mean_wait).toBeCloseTo(4, 10); // M/M/1: rho / (mu - lambda)
    expectInside(analytic.mean_wait, summaryOf(summaries, 'wait'));
    expectInside(analytic.mean_wait + 1 / serviceRate, summaryOf(summaries, 'time_in_system'));
    expectInside(arrivalRate * analytic.mean_wait, summaryOf(summaries, 'queue')); // Little: Lq = lambda Wq
    expectInside(arrivalRate / serviceRate, summaryOf(summaries, 'utilisation'));
  });

  it("reproduces the Erlang C mean wait of M/M/3 and Little's law within the 95% interval", () => {
    const arrivalRate = 2.4;
    const serviceRate = 1;
    const world = queueWorld({
      servers: 3,
      arrivals_per_minute: arrivalRate,
      mean_service_minutes: 1,
      horizon_minutes: 40_000,
      warm_up_minutes: 1_000,
      replications: 30,
      seed: 2,
    });
    const jobs = Array.from({ length: 30 }, (_, index) => ({ variant_id: 'baseline', replication_index: index, trace_limit: 0 }));
    const summaries = summarize(world, runSequential(world, { jobs }));
    const analytic = erlangC(3, arrivalRate, serviceRate);
    expect(analytic.mean_wait).toBeGreaterThan(1.07);
    expect(analytic.mean_wait).toBeLessThan(1.09);
    expectInside(analytic.mean_wait, summaryOf(summaries, 'wait'));
    expectInside(analytic.mean_queue, summaryOf(summaries, 'queue'));
    expectInside(analytic.mean_wait + 1 / serviceRate, summaryOf(summaries, 'time_in_system'));
  });
});

describe('determinism and random streams', () => {
  const world = queueWorld({ servers: 2, arrivals_per_minute: 1.5, mean_service_minutes: 1, horizon_minutes: 5_000, warm_up_minutes: 100, replications: 4 });

  it('gives identical results for the same seed', () => {
    const first = runSequential(world);
    const second = runSequential(structuredClone(world));
    expect(JSON.stringify(second)).toBe(JSON.stringify(first));
  });

  it('gives different results for a different seed', () => {
    const first = runReplication(world, { variant_id: 'baseline', replication_index: 0 });
    const other = runReplication({ ...world, seed: world.seed + 1 }, { variant_id: 'baseline', replication_index: 0 });
    expect(other.measures[0]!.value).not.toBe(first.measures[0]!.value);
  });

  it('uses an independent stream per replication', () => {
    const values = [0, 1, 2, 3].map((index) => runReplication(world, { variant_id: 'baseline', replication_index: index }).measures[0]!.value);
    expect(new Set(values).size).toBe(4);
    const streams = [0, 1].map((replication) => new RandomStream(7, replication, 'arrival:patients'));
    const draws = streams.map((stream) => Array.from({ length: 5 }, () => stream.nextUint32()));
    expect(draws[0]).not.toEqual(draws[1]);
  });

  it('gives exactly zero paired differences when the treatment changes nothing', () => {
    const results = runSequential(world);
    const comparison = compare(world, results);
    expect(comparison.metrics.length).toBe(world.measured.length);
    for (const metric of comparison.metrics) {
      expect(metric.n_pairs).toBe(4);
      expect(metric.differences.every((pair) => pair.difference === 0)).toBe(true);
      expect(metric.mean_difference).toBe(0);
    }
  });

  it('shares arrivals between baseline and a treatment that changes service (common random numbers)', () => {
    const faster = queueWorld({
      servers: 2,
      arrivals_per_minute: 1.5,
      mean_service_minutes: 1,
      treatment_mean_service_minutes: 0.8,
      horizon_minutes: 5_000,
      replications: 4,
    });
    const results = runSequential(faster);
    const byVariant = (variant: string) => results.filter((result) => result.variant_id === variant);
    expect(byVariant('treatment').map((result) => result.event_counts.arrivals)).toEqual(byVariant('baseline').map((result) => result.event_counts.arrivals));
    const wait = compare(faster, results).metrics.find((metric) => metric.measure_id === 'wait')!;
    expect(wait.mean_difference!).toBeLessThan(0);
    expect(wait.interval_95.high!).toBeLessThan(0);
  });
});

describe('summaries and trace', () => {
  it('computes mean, sd, t interval, median and p90 over replications', () => {
    const stats = describeSample([1, 2, 3, 4, 5]);
    expect(stats.mean).toBe(3);
    expect(stats.sd).toBeCloseTo(Math.sqrt(2.5), 12);
    expect(stats.high! - stats.mean!).toBeCloseTo((2.776 * Math.sqrt(2.5)) / Math.sqrt(5), 9);
    expect(stats.median).toBe(3);
    expect(stats.p90).toBeCloseTo(4.6, 12);
  });

  it('keeps every event of replication 0 up to the cap and pages through each stored event exactly once', () => {
    const world = queueWorld({ servers: 1, arrivals_per_minute: 0.5, mean_service_minutes: 1, horizon_minutes: 50_000, replications: 2 });
    const results = runSequential(world);
    const trace = eventTrace(world, results);
    expect(trace.events.filter((event) => event.variant_id === 'baseline').length).toBe(EVENT_TRACE_CAP_PER_VARIANT);
    expect(trace.truncated_variants).toEqual(['baseline', 'treatment']);
    expect(trace.replication_counts.length).toBe(4);
    const seen: string[] = [];
    let offset: number | null = 0;
    while (offset !== null) {
      const page: ReturnType<typeof pageEvents> = pageEvents(trace.events, 777, offset);
      expect(page.events_included).toBe(trace.events.length);
      seen.push(...page.events.map((event) => `${event.variant_id}:${event.sequence}`));
      offset = page.next_offset;
    }
    expect(seen.length).toBe(trace.events.length);
    expect(new Set(seen).size).toBe(trace.events.length);
  });
});
