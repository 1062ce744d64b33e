// Routing by join-the-shortest-queue and by rules, and attributes that change along the pathway (docs/simulation.md,
// Model features and their checks). Seeds are fixed, so each check is deterministic.
import { describe, expect, it } from 'vitest';
import type { WorldSpec } from '../../domain/contracts/worldSpec.ts';
import { estimateRun, runSequential, summarize, validateWorld } from '../../domain/simulation/index.ts';
import { erlangC } from '../support/worlds.ts';

const source = { kind: 'assumption' as const, rationale: 'test' };

/** Two single-server desks behind a join-the-shortest-queue choice; Poisson arrivals, exponential service mean 1. */
function jsqWorld(lambda: number, replications: number): WorldSpec {
  const desk = (id: string, resource: string) => ({
    id,
    kind: 'service' as const,
    resource,
    duration: { dist: 'exponential' as const, mean: 1 },
    next: 'done',
  });
  return {
    contract: 'WorldSpec',
    version: '1.0.0',
    name: 'Two desks, join the shortest queue',
    synthetic: true,
    time_unit: 'minutes',
    horizon: 100_000,
    warm_up: 2_000,
    replications,
    seed: 51,
    settings: { arrival_rate: { value: lambda, unit: 'per_minute', source } },
    arrivals: [{ id: 'patients', kind: 'poisson', rate: { setting: 'arrival_rate' }, to_step: 'route' }],
    resources: [
      { id: 'desk_a', capacity: 1 },
      { id: 'desk_b', capacity: 1 },
    ],
    steps: [
      { id: 'route', kind: 'branch', by: 'shortest_queue', options: [{ next: 'at_a' }, { next: 'at_b' }] },
      desk('at_a', 'desk_a'),
      desk('at_b', 'desk_b'),
      { id: 'done', kind: 'exit' },
    ],
    measured: [
      {
        id: 'time_in_system',
        kind: 'time_between',
        from: { step: 'route', at: 'enter' },
        to: { step: 'done', at: 'enter' },
        unit: 'minutes',
        denominator: 'entity',
        censoring: 'exclude',
      },
    ],
    variants: [
      { id: 'baseline', label: 'JSQ', role: 'baseline', changes: [] },
      { id: 'treatment', label: 'Same', role: 'treatment', changes: [] },
    ],
  };
}

/** Mean number in system of two exponential servers under join-the-shortest-queue (ties split evenly), from the exact Markov chain on (n1, n2) truncated at `limit` each, solved by Gauss-Seidel. */
function jsqMeanInSystem(lambda: number, mu: number, limit: number): number {
  const size = limit + 1;
  const index = (a: number, b: number) => a * size + b;
  const pi = new Float64Array(size * size).fill(1 / (size * size));
  // Inflow to (a, b): arrivals from (a-1, b) when a-1 < b (or tie, half), from (a, b-1) when b-1 < a (or tie, half); departures from (a+1, b), (a, b+1).
  const arrivalShare = (a: number, b: number, toA: boolean) => (a === b ? 0.5 : (toA ? a < b : b < a) ? 1 : 0);
  for (let sweep = 0; sweep < 5_000; sweep++) {
    let change = 0;
    for (let a = 0; a <= limit; a++) {
      for (let b = 0; b <= limit; b++) {
        let inflow = 0;
        if (a > 0) inflow += pi[index(a - 1, b)]! * lambda * arrivalShare(a - 1, b, true);
        if (b > 0) inflow += pi[index(a, b - 1)]! * lambda * arrivalShare(a, b - 1, false);
        if (a < limit) inflow += pi[index(a + 1, b)]! * mu;
        if (b < limit) inflow += pi[index(a, b + 1)]! * mu;
        const blocked =
          (a === limit && (a < b || a === b) ? arrivalShare(a, b, true) : 0) + (b === limit && (b < a || a === b) ? arrivalShare(a, b, false) : 0);
        const outflow = lambda * (1 - blocked) + (a > 0 ? mu : 0) + (b > 0 ? mu : 0);
        const value = inflow / outflow;
        change = Math.max(change, Math.abs(value - pi[index(a, b)]!));
        pi[index(a, b)] = value;
      }
    }
    const total = pi.reduce((sum, value) => sum + value, 0);
    for (let k = 0; k < pi.length; k++) pi[k]! /= total;
    if (change < 1e-13) break;
  }
  let inSystem = 0;
  for (let a = 0; a <= limit; a++) for (let b = 0; b <= limit; b++) inSystem += (a + b) * pi[index(a, b)]!;
  return inSystem;
}

describe('join-the-shortest-queue (two exponential servers)', () => {
  it('mean time in system matches the exact (n1, n2) Markov chain within 5%, between pooled M/M/2 and a random split, and splits evenly', () => {
    const [lambda, mu] = [1.6, 1];
    const world = jsqWorld(lambda, 10);
    expect(validateWorld(world).problems).toEqual([]);
    const results = runSequential(world, {
      jobs: Array.from({ length: 10 }, (_, index) => ({ variant_id: 'baseline', replication_index: index, trace_limit: 0 })),
    });
    const simulated = summarize(world, results).find((summary) => summary.measure_id === 'time_in_system' && summary.variant_id === 'baseline')!.mean!;
    const exact = jsqMeanInSystem(lambda, mu, 40) / lambda; // Little's law
    expect(Math.abs(simulated - exact) / exact).toBeLessThan(0.05);
    const pooled = erlangC(2, lambda, mu).mean_wait + 1 / mu; // 2.78: one shared queue is the best two servers can do
    const randomSplit = 1 / (mu - lambda / 2); // 5: two independent M/M/1 queues at 0.8
    expect(pooled).toBeLessThan(exact);
    expect(exact).toBeLessThan(randomSplit);
    expect(simulated).toBeGreaterThan(pooled);
    expect(simulated).toBeLessThan(randomSplit);
    const [a, b] = results.reduce(([sumA, sumB], result) => [sumA + result.step_entries.at_a!, sumB + result.step_entries.at_b!], [0, 0]);
    expect(Math.abs(a - b) / (a + b)).toBeLessThan(0.01);
  });

  it('refuses an option that is not a service step, at its pointer', () => {
    const world = jsqWorld(1, 1);
    const route = world.steps[0]!;
    if (route.kind === 'branch' && route.by === 'shortest_queue') route.options.push({ next: 'done' });
    expect(validateWorld(world).problems.map((problem) => problem.pointer)).toContain('/steps/0/options/2/next');
  });

  it('estimates the events within 15%', () => {
    const world = { ...jsqWorld(1.6, 2), horizon: 20_000 };
    const actual = runSequential(world).reduce((sum, result) => sum + result.event_counts.events_total, 0);
    expect(Math.abs(estimateRun(world).events_estimate - actual) / actual).toBeLessThan(0.15);
  });
});

/** Deterministic arrival streams with fixed attributes, routed by rules; young patients get a band assigned on the way. */
function rulesWorld(): WorldSpec {
  const stream = (id: string, count: number, attributes: { name: string; value: string | number }[]) => ({
    id,
    kind: 'scheduled' as const,
    times: Array.from({ length: count }, (_, k) => k + 0.5),
    to_step: 'triage',
    attributes: attributes.map((attribute) => ({ name: attribute.name, values: [{ value: attribute.value, probability: 1 }] })),
  });
  const pause = (id: string, next: string) => ({ id, kind: 'delay' as const, duration: { dist: 'fixed' as const, value: 1 }, next });
  return {
    contract: 'WorldSpec',
    version: '1.0.0',
    name: 'Rule routing',
    synthetic: true,
    time_unit: 'minutes',
    horizon: 1_000,
    warm_up: 0,
    replications: 1,
    seed: 52,
    settings: {},
    arrivals: [
      stream('older_north', 10, [
        { name: 'age', value: 70 },
        { name: 'site', value: 'north' },
      ]),
      stream('older_south', 7, [
        { name: 'age', value: 70 },
        { name: 'site', value: 'south' },
      ]),
      stream('young', 5, [
        { name: 'age', value: 20 },
        { name: 'site', value: 'north' },
      ]),
      stream('unknown_age', 3, [{ name: 'site', value: 'north' }]),
    ],
    resources: [],
    steps: [
      {
        id: 'triage',
        kind: 'branch',
        by: 'rules',
        options: [
          {
            when: [
              { attribute: 'age', op: 'ge', value: 65 },
              { attribute: 'site', op: 'eq', value: 'north' },
            ],
            next: 'older_north_clinic',
          },
          { when: [{ attribute: 'age', op: 'in', value: [16, 20, 24] }], next: 'set_band' },
        ],
        otherwise: 'general_clinic',
      },
      pause('older_north_clinic', 'done'),
      { id: 'set_band', kind: 'assign', attribute: 'band', values: [{ value: 'low', probability: 1 }], next: 'young_clinic' },
      pause('young_clinic', 'band_check'),
      {
        id: 'band_check',
        kind: 'branch',
        by: 'rules',
        options: [{ when: [{ attribute: 'band', op: 'eq', value: 'low' }], next: 'low_band' }],
        otherwise: 'done',
      },
      pause('low_band', 'done'),
      pause('general_clinic', 'done'),
      { id: 'done', kind: 'exit' },
    ],
    measured: [{ id: 'completed', kind: 'count', event: { step: 'done', at: 'enter' }, unit: 'count', denominator: 'replication', censoring: 'none' }],
    variants: [
      { id: 'baseline', label: 'Rules', role: 'baseline', changes: [] },
      { id: 'treatment', label: 'Same', role: 'treatment', changes: [] },
    ],
  };
}

describe('rule-based routing and attributes that change along the pathway', () => {
  it('sends each entity to the first option whose conditions all hold (an unassigned attribute fails), and an assigned attribute routes later', () => {
    const world = rulesWorld();
    expect(validateWorld(world).problems).toEqual([]);
    const entries = runSequential(world)[0]!.step_entries;
    expect(entries.older_north_clinic).toBe(10); // age >= 65 and site north
    expect(entries.young_clinic).toBe(5); // age in [16, 20, 24]
    expect(entries.general_clinic).toBe(7 + 3); // older in the south, and no age
    expect(entries.low_band).toBe(5); // band set to 'low' on the way
    // The estimate follows the same rules on the declared attributes: events exactly (25 arrivals + 25 + 5 delay ends).
    expect(estimateRun(world).events_per_replication_estimate.baseline).toBe(25 + 25 + 5);
  });

  it('draws a changed attribute with its probabilities: a quarter become urgent', () => {
    const world = rulesWorld();
    world.arrivals = [
      {
        id: 'young',
        kind: 'poisson',
        rate: 10,
        to_step: 'triage',
        attributes: [
          { name: 'age', values: [{ value: 20, probability: 1 }] },
          { name: 'site', values: [{ value: 'north', probability: 1 }] },
        ],
      },
    ];
    world.horizon = 2_000;
    const setBand = world.steps.find((step) => step.id === 'set_band')!;
    if (setBand.kind === 'assign')
      setBand.values = [
        { value: 'low', probability: 0.25 },
        { value: 'high', probability: 0.75 },
      ];
    expect(validateWorld(world).problems).toEqual([]);
    const entries = runSequential(world)[0]!.step_entries;
    const share = entries.low_band! / entries.young_clinic!; // about 20,000 entities: standard error 0.003
    expect(Math.abs(share - 0.25)).toBeLessThan(0.01);
  });

  it('refuses conditions on unknown attributes, lists for single-value operators and strings for numeric ones, at their pointers', () => {
    const world = rulesWorld();
    const triage = world.steps[0]!;
    if (triage.kind === 'branch' && triage.by === 'rules') {
      triage.options[0]!.when.push(
        { attribute: 'colour', op: 'eq', value: 'red' },
        { attribute: 'age', op: 'gt', value: 'old' },
        { attribute: 'site', op: 'eq', value: ['north'] },
      );
    }
    const pointers = validateWorld(world).problems.map((problem) => problem.pointer);
    expect(pointers).toContain('/steps/0/options/0/when/2/attribute');
    expect(pointers).toContain('/steps/0/options/0/when/3/value');
    expect(pointers).toContain('/steps/0/options/0/when/4/value');
  });
});
