// The modeller's WorldSpec additions (docs/simulation.md "Model features and their checks"): a normal
// distribution kept within bounds (truncated or clamped) against its closed-form mean and variance; a measure over a
// stream (several end points) on an M/M/1 with two exits against 1 / (mu - lambda); a one-day arrival pattern read from
// 06:00 against the expected arrivals in each hour.
import { describe, expect, it } from 'vitest';
import type { WorldSpec } from '../../domain/contracts/worldSpec.ts';
import { runSequential, summarize, validateWorld } from '../../domain/simulation/index.ts';
import { compileModel, rateTableRate } from '../../domain/simulation/model.ts';
import { boundedNormal, boundedNormalDraw, boundedNormalMoments, normalCdf, normalQuantile } from '../../domain/simulation/normal.ts';
import { RandomStream } from '../../domain/simulation/random.ts';
import { queueWorld } from '../support/worlds.ts';

const phi = (z: number) => Math.exp(-0.5 * z * z) / Math.sqrt(2 * Math.PI);

/** Sample mean and variance of n draws of a bounded normal through the engine's own draw. */
function sampleMoments(mean: number, sd: number, min: number, max: number, clamp: boolean, n: number): { mean: number; variance: number } {
  const parameters = boundedNormal(mean, sd, min, max, clamp);
  const stream = new RandomStream(7, 0, 'normal-test');
  let sum = 0;
  let squares = 0;
  let outside = 0;
  for (let k = 0; k < n; k++) {
    const x = boundedNormalDraw(parameters, stream.uniform());
    if (!(x >= min && x <= max)) outside++;
    sum += x;
    squares += x * x;
  }
  expect(outside).toBe(0);
  return { mean: sum / n, variance: squares / n - (sum / n) ** 2 };
}

describe('normal distribution with truncation or a floor', () => {
  it('has an accurate CDF and quantile (known values, and each the inverse of the other)', () => {
    expect(normalCdf(0)).toBeCloseTo(0.5, 7);
    expect(normalCdf(1.959963984540054)).toBeCloseTo(0.975, 7);
    expect(normalQuantile(0.975)).toBeCloseTo(1.959963984540054, 7);
    expect(normalQuantile(0.001)).toBeCloseTo(-3.090232306167813, 6);
    for (const p of [1e-6, 0.01, 0.3, 0.5, 0.77, 0.999]) expect(normalCdf(normalQuantile(p))).toBeCloseTo(p, 6);
  });

  it('truncated to [5, 20] (mean 10, sd 4): mean and variance against the truncated-normal formulas, within 1%', () => {
    const [mu, sigma, a, b] = [10, 4, 5, 20];
    const alpha = (a - mu) / sigma;
    const beta = (b - mu) / sigma;
    const mass = normalCdf(beta) - normalCdf(alpha);
    const mean = mu + (sigma * (phi(alpha) - phi(beta))) / mass;
    const variance = sigma ** 2 * (1 + (alpha * phi(alpha) - beta * phi(beta)) / mass - ((phi(alpha) - phi(beta)) / mass) ** 2);
    expect(boundedNormalMoments(mu, sigma, a, b, false).mean).toBeCloseTo(mean, 10);
    const sampled = sampleMoments(mu, sigma, a, b, false, 200_000);
    expect(Math.abs(sampled.mean - mean) / mean).toBeLessThan(0.01);
    expect(Math.abs(sampled.variance - variance) / variance).toBeLessThan(0.01);
  });

  it('truncated far in the upper tail ([3, inf) of a standard normal): mean phi(3) / (1 - Phi(3)) = 3.283, within 1%', () => {
    const mean = phi(3) / (1 - normalCdf(3));
    expect(mean).toBeCloseTo(3.2831, 3);
    expect(Math.abs(sampleMoments(0, 1, 3, Number.POSITIVE_INFINITY, false, 100_000).mean - mean) / mean).toBeLessThan(0.01);
  });

  it('floored at 2 (clamp; mean 3, sd 2): E[max(2, X)] = 2 Phi(a) + mu (1 - Phi(a)) + sigma phi(a), within 1%; variance too', () => {
    const [mu, sigma, floor] = [3, 2, 2];
    const alpha = (floor - mu) / sigma;
    const mean = floor * normalCdf(alpha) + mu * (1 - normalCdf(alpha)) + sigma * phi(alpha);
    // E[max(2, X)^2] = 2^2 Phi(a) + E[X^2; X > 2], and E[X^2; X > 2] = (mu^2 + sigma^2)(1 - Phi(a)) + sigma phi(a)(mu + 2).
    const second = floor ** 2 * normalCdf(alpha) + (mu ** 2 + sigma ** 2) * (1 - normalCdf(alpha)) + sigma * phi(alpha) * (mu + floor);
    const variance = second - mean ** 2;
    expect(boundedNormalMoments(mu, sigma, floor, Number.POSITIVE_INFINITY, true).mean).toBeCloseTo(mean, 10);
    expect(boundedNormalMoments(mu, sigma, floor, Number.POSITIVE_INFINITY, true).variance).toBeCloseTo(variance, 8);
    const sampled = sampleMoments(mu, sigma, floor, Number.POSITIVE_INFINITY, true, 200_000);
    expect(Math.abs(sampled.mean - mean) / mean).toBeLessThan(0.01);
    expect(Math.abs(sampled.variance - variance) / variance).toBeLessThan(0.01);
  });

  it('as a service time: M/G/1 with a floored normal gives the Pollaczek-Khinchine wait, within 5%', () => {
    const world = queueWorld({
      servers: 1,
      arrivals_per_minute: 0.08,
      mean_service_minutes: 10,
      horizon_minutes: 200_000,
      warm_up_minutes: 2_000,
      replications: 8,
    });
    const consult = world.steps[0]!;
    if (consult.kind !== 'service') throw new Error('consult is a service');
    consult.duration = { dist: 'normal', mean: 10, sd: 4, min: 5, bounds: 'clamp' };
    expect(validateWorld(world).problems).toEqual([]);
    const { mean, variance } = boundedNormalMoments(10, 4, 5, Number.POSITIVE_INFINITY, true);
    const rho = 0.08 * mean;
    const wait = (0.08 * (variance + mean ** 2)) / (2 * (1 - rho));
    const results = runSequential(world, {
      jobs: Array.from({ length: 8 }, (_, index) => ({ variant_id: 'baseline', replication_index: index, trace_limit: 0 })),
    });
    const simulated = summarize(world, results).find((summary) => summary.measure_id === 'wait')!.mean!;
    expect(Math.abs(simulated - wait) / wait).toBeLessThan(0.05);
  });

  it('refuses bounds that leave no room and a truncation with almost no probability, at their pointers', () => {
    const world = queueWorld({ servers: 1, arrivals_per_minute: 0.5, mean_service_minutes: 1 });
    const consult = world.steps[0]!;
    if (consult.kind !== 'service') throw new Error('consult is a service');
    consult.duration = { dist: 'normal', mean: 10, sd: 1, min: 8, max: 8 };
    expect(validateWorld(world).problems).toContainEqual({
      pointer: '/steps/0/duration/max',
      message: 'max (8) must be above min (8); for a fixed duration use {"dist": "fixed"}',
    });
    consult.duration = { dist: 'normal', mean: -100, sd: 1 };
    expect(validateWorld(world).problems.map((problem) => problem.pointer)).toEqual(['/steps/0/duration/mean']);
    consult.duration = { dist: 'normal', mean: 10, sd: -1 };
    expect(validateWorld(world).problems).toContainEqual({ pointer: '/steps/0/duration/sd', message: 'must be at least 0' });
  });
});

/** M/M/1 (lambda 0.5, mu 1); after service 30% leave by one exit and 70% by another. */
function twoExitWorld(): WorldSpec {
  const world = queueWorld({
    servers: 1,
    arrivals_per_minute: 0.5,
    mean_service_minutes: 1,
    horizon_minutes: 100_000,
    warm_up_minutes: 1_000,
    replications: 8,
  });
  world.steps = [
    { id: 'consult', kind: 'service', resource: 'clinician', duration: { dist: 'exponential', mean: { setting: 'mean_service' } }, next: 'outcome' },
    {
      id: 'outcome',
      kind: 'branch',
      by: 'probability',
      options: [
        { probability: 0.3, next: 'admitted' },
        { probability: 0.7, next: 'home' },
      ],
    },
    { id: 'admitted', kind: 'exit' },
    { id: 'home', kind: 'exit' },
  ];
  const exits = [
    { step: 'admitted', at: 'enter' as const },
    { step: 'home', at: 'enter' as const },
  ];
  world.measured = [
    {
      id: 'time_in_system',
      kind: 'time_between',
      from: { step: 'consult', at: 'enter' },
      to: exits,
      unit: 'minutes',
      denominator: 'entity',
      censoring: 'exclude',
    },
    {
      id: 'home_time',
      kind: 'time_between',
      from: { step: 'consult', at: 'enter' },
      to: { step: 'home', at: 'enter' },
      unit: 'minutes',
      denominator: 'entity',
      censoring: 'exclude',
    },
    { id: 'throughput', kind: 'count', event: exits, unit: 'count', denominator: 'replication', censoring: 'none' },
    { id: 'home_count', kind: 'count', event: { step: 'home', at: 'enter' }, unit: 'count', denominator: 'replication', censoring: 'none' },
    { id: 'admitted_count', kind: 'count', event: { step: 'admitted', at: 'enter' }, unit: 'count', denominator: 'replication', censoring: 'none' },
  ];
  return world;
}

describe('measures over several end points (a stream)', () => {
  it('M/M/1 with two exits measured as one stream: time in system 1 / (mu - lambda) = 2 within 5%, throughput = the exits counted', () => {
    const world = twoExitWorld();
    expect(validateWorld(world).problems).toEqual([]);
    const results = runSequential(world, {
      jobs: Array.from({ length: 8 }, (_, index) => ({ variant_id: 'baseline', replication_index: index, trace_limit: 0 })),
    });
    const mean = (id: string) => summarize(world, results).find((summary) => summary.measure_id === id)!.mean!;
    expect(Math.abs(mean('time_in_system') - 2) / 2).toBeLessThan(0.05);
    // Each replication: the stream's count is exactly the two exits' counts added; about lambda x window of them.
    for (const result of results) expect(result.measures[2]!.observations).toBe(result.measures[3]!.observations + result.measures[4]!.observations);
    expect(Math.abs(mean('throughput') - 0.5 * 99_000) / (0.5 * 99_000)).toBeLessThan(0.02);
    // Every entity that reaches an exit ends one interval: the stream's time observations are the two exits' entities.
    expect(results[0]!.measures[0]!.observations).toBeGreaterThan(results[0]!.measures[1]!.observations);
    expect(Math.abs(mean('home_time') - 2) / 2).toBeLessThan(0.05);
  });

  it('names a moment listed twice, and a missing step of a list, at its own pointer', () => {
    const world = twoExitWorld();
    world.measured[0] = {
      ...world.measured[0]!,
      to: [
        { step: 'home', at: 'enter' },
        { step: 'home', at: 'enter' },
        { step: 'nowhere', at: 'enter' },
      ],
    } as WorldSpec['measured'][number];
    const problems = validateWorld(world).problems;
    expect(problems).toContainEqual({ pointer: '/measured/0/to/1', message: "lists step 'home' at 'enter' twice; list each moment once" });
    expect(problems).toContainEqual({ pointer: '/measured/0/to/2/step', message: "refers to step 'nowhere', which does not exist" });
  });
});

/** A one-day pattern (one row by hour of the day) whose world opens at 06:00; one replication is one day. */
function oneDayWorld(): { world: WorldSpec; row: number[] } {
  const row = Array.from({ length: 24 }, (_, hour) => 10 + hour); // 10 arrivals an hour at 00:00 ... 33 at 23:00
  const world = queueWorld({ servers: 1, arrivals_per_minute: 1, mean_service_minutes: 1, horizon_minutes: 1440, warm_up_minutes: 0, replications: 400 });
  world.time_unit = 'hours';
  world.horizon = 24;
  world.arrivals = [{ id: 'patients', kind: 'rate_table', rates_per_hour: [row], start: { hour: 6 }, to_step: 'done' }];
  world.resources = [];
  world.steps = [{ id: 'done', kind: 'exit' }];
  world.measured = Array.from({ length: 24 }, (_, hour) => ({
    id: `hour_${hour}`,
    kind: 'count' as const,
    event: { step: 'done', at: 'enter' as const },
    unit: 'count' as const,
    denominator: 'replication' as const,
    censoring: 'none' as const,
    window: { start: hour, end: hour + 1 },
  }));
  world.settings = {};
  return { world, row };
}

describe('a rate table anchored at any time of day', () => {
  it('a one-day pattern opening at 06:00: arrivals in each hour from time 0 match the row read from 06:00 (within 4 standard errors)', () => {
    const { world, row } = oneDayWorld();
    expect(validateWorld(world).problems).toEqual([]);
    const results = runSequential(world, {
      jobs: Array.from({ length: 400 }, (_, index) => ({ variant_id: 'baseline', replication_index: index, trace_limit: 0 })),
    });
    const summaries = summarize(world, results);
    for (let hour = 0; hour < 24; hour++) {
      const expected = row[(hour + 6) % 24]!;
      const mean = summaries.find((summary) => summary.measure_id === `hour_${hour}`)!.mean!;
      expect(Math.abs(mean - expected), `hour ${hour} after opening (${(hour + 6) % 24}:00)`).toBeLessThan(4 * Math.sqrt(expected / 400));
    }
  });

  it('a weekly table starting on Wednesday 06:00: hour 0 reads Wednesday 06:00; holidays count calendar days from the day time 0 falls in', () => {
    const rows = Array.from({ length: 7 }, (_, day) => Array.from({ length: 24 }, (_, hour) => day * 100 + hour));
    const { world } = oneDayWorld();
    world.horizon = 24 * 14;
    world.arrivals = [{ id: 'patients', kind: 'rate_table', rates_per_hour: rows, start: { weekday: 2, hour: 6 }, to_step: 'done' }];
    const plain = compileModel(world, 'baseline').arrivals[0]!;
    expect(rateTableRate(plain, 0, 1)).toBe(206);
    expect(rateTableRate(plain, 18, 1)).toBe(300); // Thursday 00:00
    expect(rateTableRate(plain, 5 * 24 - 6 + 1, 1)).toBe(1); // Monday 01:00
    world.arrivals = [{ ...world.arrivals[0]!, holidays: [{ day: 1 }] } as WorldSpec['arrivals'][number]];
    const withHoliday = compileModel(world, 'baseline').arrivals[0]!;
    expect(rateTableRate(withHoliday, 0, 1)).toBe(206); // day 0: Wednesday from 06:00
    expect(rateTableRate(withHoliday, 18 + 9, 1)).toBe(609); // day 1 (Thursday) as a Sunday: 09:00
    expect(rateTableRate(withHoliday, 42, 1)).toBe(400); // day 2: Friday 00:00
  });

  it('refuses a table of 3 rows and holidays on a one-day pattern, at their pointers', () => {
    const { world, row } = oneDayWorld();
    world.arrivals = [{ id: 'patients', kind: 'rate_table', rates_per_hour: [row, row, row], to_step: 'done' }];
    expect(validateWorld(world).problems).toContainEqual({
      pointer: '/arrivals/0/rates_per_hour',
      message: 'has 3 rows: give 7 (Monday..Sunday) or 1 (a one-day pattern every day repeats)',
    });
    world.arrivals = [{ id: 'patients', kind: 'rate_table', rates_per_hour: [row], holidays: [{ day: 2 }], to_step: 'done' }];
    expect(validateWorld(world).problems.map((problem) => problem.pointer)).toEqual(['/arrivals/0/holidays']);
  });
});
