// A seize that turns patients away (`queue_limit` on a seize step) against queueing theory: Erlang loss (M/M/c/c),
// M/M/c/K through seize and release, and a bed held over treatment and cleaning with elective patients cancelled while
// unplanned patients queue (an exact Markov chain). Seeds are fixed, so each check is deterministic; each compares the
// theory with the mean over replications and its 95% interval (docs/simulation.md, Model features and their checks).
import { describe, expect, it } from 'vitest';
import type { Measure, Step, WorldSpec } from '../../domain/contracts/worldSpec.ts';
import { runReplicationOnGenericLoop } from '../../domain/simulation/engine.ts';
import { specialisedLoopSource } from '../../domain/simulation/loopCode.ts';
import {
  compileModel,
  estimateRun,
  type ReplicationResult,
  runReplication,
  runSequential,
  tQuantile975,
  validateWorld,
} from '../../domain/simulation/index.ts';
import { queueWorld } from '../support/worlds.ts';

const count = (id: string, step: string, at: 'enter' | 'start' | 'turned_away'): Measure => ({
  id,
  kind: 'count',
  event: { step, at },
  unit: 'count',
  denominator: 'replication',
  censoring: 'none',
});

/** Patients seize a bed, stay for `hold` (one or more delays), release it; those turned away leave by `turned_away`. */
function bedWorld(options: { beds: number; lambda: number; maxWaiting: number; hold: Step[]; seed: number; replications: number }): WorldSpec {
  const first = options.hold[0]!.id;
  return {
    contract: 'WorldSpec',
    version: '1.0.0',
    name: 'Beds that turn patients away',
    synthetic: true,
    time_unit: 'hours',
    horizon: 20_000,
    warm_up: 200,
    replications: options.replications,
    seed: options.seed,
    settings: {},
    arrivals: [{ id: 'patients', kind: 'poisson', rate: options.lambda, to_step: 'take_bed' }],
    resources: [{ id: 'bed', capacity: options.beds }],
    steps: [
      { id: 'take_bed', kind: 'seize', resource: 'bed', queue_limit: { max_waiting: options.maxWaiting, to: 'turned_away' }, next: first },
      ...options.hold,
      { id: 'free_bed', kind: 'release', resource: 'bed', next: 'home' },
      { id: 'home', kind: 'exit' },
      { id: 'turned_away', kind: 'exit' },
    ],
    measured: [
      count('arrived', 'take_bed', 'enter'),
      count('refused', 'take_bed', 'turned_away'),
      { id: 'queue', kind: 'queue_length', resource: 'bed', unit: 'entities', denominator: 'time', censoring: 'none' },
      { id: 'bed_use', kind: 'utilisation', resource: 'bed', unit: 'fraction', denominator: 'capacity_time', censoring: 'none' },
    ],
    variants: [
      { id: 'baseline', label: 'Current', role: 'baseline', changes: [] },
      { id: 'same', label: 'Same', role: 'treatment', changes: [] },
    ],
  };
}

const exponentialStay = (mean: number): Step[] => [{ id: 'stay', kind: 'delay', duration: { dist: 'exponential', mean }, next: 'free_bed' }];

function run(world: WorldSpec, variant = 'baseline'): ReplicationResult[] {
  const jobs = Array.from({ length: world.replications }, (_, index) => ({ variant_id: variant, replication_index: index, trace_limit: 0 }));
  return runSequential(world, { jobs });
}

function value(result: ReplicationResult, measure: string): number {
  return result.measures.find((observation) => observation.measure_id === measure)!.value!;
}

/** Mean over replications, its standard error and the half-width of its 95% t interval. */
function interval(values: number[]): { mean: number; standardError: number; halfWidth: number } {
  const n = values.length;
  const mean = values.reduce((sum, x) => sum + x, 0) / n;
  const sd = Math.sqrt(values.reduce((sum, x) => sum + (x - mean) ** 2, 0) / (n - 1));
  const standardError = sd / Math.sqrt(n);
  return { mean, standardError, halfWidth: tQuantile975(n - 1) * standardError };
}

/**
 * The theory is within 4 standard errors of the simulated mean (the 99.9% t band for 20 replications: one fixed seed
 * per check, so the band is wide enough not to fail by chance) and within `precision` of it (relative), and the 95%
 * interval is narrow enough (its half-width relative to the theory below `precision`) to make that a test.
 */
function expectAgrees(values: number[], theory: number, precision: number): void {
  const { mean, standardError, halfWidth } = interval(values);
  expect(Math.abs(mean - theory)).toBeLessThanOrEqual(4 * standardError);
  expect(Math.abs(mean - theory) / theory).toBeLessThan(precision);
  expect(halfWidth / theory).toBeLessThan(precision);
}

function erlangB(servers: number, load: number): number {
  let b = 1;
  for (let k = 1; k <= servers; k++) b = (load * b) / (k + load * b);
  return b;
}

/** Stationary distribution of the number in an M/M/c/K system. */
function mmck(servers: number, capacity: number, lambda: number, mu: number): number[] {
  const weights = [1];
  for (let n = 1; n <= capacity; n++) weights.push((weights[n - 1]! * lambda) / (Math.min(n, servers) * mu));
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  return weights.map((weight) => weight / total);
}

describe('a seize with a queue limit against queueing theory', () => {
  it('Erlang loss (M/M/4/4, queue limit 0): the share turned away is Erlang B, for an exponential and a lognormal stay alike', () => {
    const [beds, lambda, meanStay] = [4, 1.5, 2];
    const world = bedWorld({ beds, lambda, maxWaiting: 0, hold: exponentialStay(meanStay), seed: 71, replications: 20 });
    // Erlang B is insensitive to the stay's distribution: the treatment holds the bed for a lognormal stay of the same mean.
    world.variants[1] = {
      id: 'lognormal_stay',
      label: 'Lognormal stay',
      role: 'treatment',
      changes: [],
      structure: { replace_steps: [{ id: 'stay', kind: 'delay', duration: { dist: 'lognormal', mean: meanStay, sd: 1 }, next: 'free_bed' }] },
    };
    expect(validateWorld(world).problems).toEqual([]);
    const blocking = erlangB(beds, lambda * meanStay); // 0.2061
    for (const variant of ['baseline', 'lognormal_stay']) {
      const results = run(world, variant);
      expectAgrees(
        results.map((result) => value(result, 'refused') / value(result, 'arrived')),
        blocking,
        0.03,
      );
      // Nobody waits in a loss system.
      expect(results.every((result) => value(result, 'queue') === 0)).toBe(true);
      expectAgrees(
        results.map((result) => value(result, 'bed_use')),
        (lambda * meanStay * (1 - blocking)) / beds,
        0.02,
      );
    }
  });

  it('M/M/2/5 through seize and release (queue limit 3): blocking probability and mean queue from the birth-death chain', () => {
    const [beds, capacity, lambda, mu] = [2, 5, 2.5, 1];
    const world = bedWorld({ beds, lambda, maxWaiting: capacity - beds, hold: exponentialStay(1 / mu), seed: 72, replications: 20 });
    expect(validateWorld(world).problems).toEqual([]);
    const p = mmck(beds, capacity, lambda, mu);
    const blocking = p[capacity]!; // 0.2506
    const queue = p.reduce((sum, pn, n) => sum + Math.max(0, n - beds) * pn, 0); // 1.3107
    const results = run(world);
    expectAgrees(
      results.map((result) => value(result, 'refused') / value(result, 'arrived')),
      blocking,
      0.03,
    );
    expectAgrees(
      results.map((result) => value(result, 'queue')),
      queue,
      0.03,
    );
  });

  it('is turned away only when the limit is reached and the unit is taken: max_waiting 2 with one bed never lets three wait', () => {
    const world = bedWorld({ beds: 1, lambda: 3, maxWaiting: 2, hold: exponentialStay(1), seed: 73, replications: 1 });
    world.horizon = 500;
    world.warm_up = 0;
    const result = runReplication(world, { variant_id: 'baseline', replication_index: 0, trace_limit: 10_000 });
    let waiting = 0;
    for (const event of result.trace!) {
      if (event.kind === 'queue') waiting = event.value!;
      if (event.kind === 'start' && event.step === 'take_bed') waiting = Math.max(0, waiting - 1);
      expect(waiting).toBeLessThanOrEqual(2);
    }
    expect(value(result, 'refused')).toBeGreaterThan(0);
  });
});

/**
 * The critical-care bed model: unplanned patients queue for a bed; elective patients are cancelled when no bed is free
 * (queue limit 0, to a `cancelled` exit); each patient holds the bed through treatment and then a clean.
 */
function criticalCareWorld(options: { beds: number; unplanned: number; elective: number; treatment: number; clean: number; seed: number }): WorldSpec {
  return {
    contract: 'WorldSpec',
    version: '1.0.0',
    name: 'Critical care beds with elective cancellations',
    synthetic: true,
    time_unit: 'hours',
    horizon: 30_000,
    warm_up: 500,
    replications: 20,
    seed: options.seed,
    settings: {},
    arrivals: [
      { id: 'unplanned', kind: 'poisson', rate: options.unplanned, to_step: 'unplanned_bed' },
      { id: 'elective', kind: 'poisson', rate: options.elective, to_step: 'elective_bed' },
    ],
    resources: [{ id: 'bed', capacity: options.beds }],
    steps: [
      { id: 'unplanned_bed', kind: 'seize', resource: 'bed', next: 'treatment' },
      { id: 'elective_bed', kind: 'seize', resource: 'bed', queue_limit: { max_waiting: 0, to: 'cancelled' }, next: 'treatment' },
      { id: 'treatment', kind: 'delay', duration: { dist: 'exponential', mean: options.treatment }, next: 'clean' },
      { id: 'clean', kind: 'delay', duration: { dist: 'exponential', mean: options.clean }, next: 'free_bed' },
      { id: 'free_bed', kind: 'release', resource: 'bed', next: 'discharged' },
      { id: 'discharged', kind: 'exit' },
      { id: 'cancelled', kind: 'exit' },
    ],
    measured: [
      count('electives', 'elective_bed', 'enter'),
      count('electives_admitted', 'elective_bed', 'start'),
      count('electives_cancelled', 'elective_bed', 'turned_away'),
      count('cancelled_exits', 'cancelled', 'enter'),
      {
        id: 'unplanned_wait',
        kind: 'time_between',
        from: { step: 'unplanned_bed', at: 'enter' },
        to: { step: 'unplanned_bed', at: 'start' },
        unit: 'hours',
        denominator: 'entity',
        censoring: 'exclude',
      },
      {
        id: 'elective_wait',
        kind: 'time_between',
        from: { step: 'elective_bed', at: 'enter' },
        to: { step: 'elective_bed', at: 'start' },
        unit: 'hours',
        denominator: 'entity',
        censoring: 'exclude',
      },
    ],
    variants: [
      { id: 'baseline', label: 'Current', role: 'baseline', changes: [] },
      { id: 'same', label: 'Same', role: 'treatment', changes: [] },
    ],
  };
}

/**
 * Exact stationary distribution of the bed chain: state (i in treatment, j cleaning, q unplanned waiting), q > 0 only
 * when every bed is taken; truncated at `queueMax` waiting. Solved by Gauss-Seidel on the balance equations.
 */
function bedChain(o: { beds: number; unplanned: number; elective: number; treatment: number; clean: number }, queueMax: number) {
  const states: [number, number, number][] = [];
  const index = new Map<string, number>();
  const key = (i: number, j: number, q: number) => `${i},${j},${q}`;
  for (let i = 0; i <= o.beds; i++)
    for (let j = 0; i + j <= o.beds; j++)
      for (let q = 0; q <= (i + j === o.beds ? queueMax : 0); q++) {
        index.set(key(i, j, q), states.length);
        states.push([i, j, q]);
      }
  const incoming: [number, number][][] = states.map(() => []);
  const out = new Float64Array(states.length);
  const add = (from: number, to: [number, number, number], rate: number) => {
    const target = index.get(key(...to));
    if (rate <= 0 || target === undefined) return;
    incoming[target]!.push([from, rate]);
    out[from]! += rate;
  };
  states.forEach(([i, j, q], s) => {
    const full = i + j === o.beds;
    add(s, full ? [i, j, q + 1] : [i + 1, j, 0], o.unplanned);
    if (!full) add(s, [i + 1, j, 0], o.elective);
    add(s, [i - 1, j + 1, q], i / o.treatment);
    add(s, q > 0 ? [i + 1, j - 1, q - 1] : [i, j - 1, 0], j / o.clean);
  });
  let p = new Float64Array(states.length).fill(1 / states.length);
  for (let sweep = 0; sweep < 5_000; sweep++) {
    for (let s = 0; s < states.length; s++) p[s] = incoming[s]!.reduce((sum, [from, rate]) => sum + p[from]! * rate, 0) / out[s]!;
    const total = p.reduce((sum, x) => sum + x, 0);
    p = p.map((x) => x / total);
  }
  const full = states.reduce((sum, [i, j], s) => sum + (i + j === o.beds ? p[s]! : 0), 0);
  const queue = states.reduce((sum, [, , q], s) => sum + q * p[s]!, 0);
  return { full, queue };
}

describe('a bed held over treatment and a clean, electives cancelled while unplanned patients queue', () => {
  const options = { beds: 3, unplanned: 0.8, elective: 0.4, treatment: 1.5, clean: 0.5 };
  const world = criticalCareWorld({ ...options, seed: 74 });
  const results = run(world);

  it('validates, and the electives turned away are exactly those counted at the cancelled exit, never waiting for a bed', () => {
    expect(validateWorld(world).problems).toEqual([]);
    for (const result of results) {
      expect(value(result, 'electives_cancelled')).toBe(value(result, 'cancelled_exits'));
      expect(value(result, 'electives_admitted') + value(result, 'electives_cancelled')).toBe(value(result, 'electives'));
      expect(value(result, 'elective_wait')).toBe(0);
    }
  });

  it('cancels electives with the chance that every bed is taken, and unplanned patients wait as the Markov chain says', () => {
    const theory = bedChain(options, 200);
    expectAgrees(
      results.map((result) => value(result, 'electives_cancelled') / value(result, 'electives')),
      theory.full,
      0.03,
    ); // 0.3246
    // Only unplanned patients wait: their mean wait is the mean queue over their arrival rate (Little's law).
    expectAgrees(
      results.map((result) => value(result, 'unplanned_wait')),
      theory.queue / options.unplanned,
      0.05,
    );
  });

  it('is estimated within 15% of the events simulated (the pilot corrects the loss)', () => {
    const short = { ...world, horizon: 5_000, replications: 2 };
    const actual = runSequential(short).reduce((sum, result) => sum + result.event_counts.events_total, 0);
    expect(Math.abs(estimateRun(short).events_estimate - actual) / actual).toBeLessThan(0.15);
  });
});

describe('the turned_away moment', () => {
  it('counts a service step’s turned-away patients the same on the generated loop and the generic loop', () => {
    const world = queueWorld({ servers: 2, arrivals_per_minute: 2.5, mean_service_minutes: 1, horizon_minutes: 5_000, replications: 1, seed: 75 });
    world.steps.push({ id: 'lost', kind: 'exit' });
    const consult = world.steps[0]!;
    if (consult.kind === 'service') consult.queue_limit = { max_waiting: 2, to: 'lost' };
    world.measured.push(count('turned_away', 'consult', 'turned_away'), count('lost', 'lost', 'enter'));
    expect(validateWorld(world).problems).toEqual([]);
    expect(specialisedLoopSource(compileModel(world, 'baseline'))).not.toBeNull();
    const options = { variant_id: 'baseline', replication_index: 0, trace_limit: 0 };
    const fast = runReplication(world, options);
    expect(runReplicationOnGenericLoop(world, options)).toEqual(fast);
    expect(value(fast, 'turned_away')).toBeGreaterThan(0);
    expect(value(fast, 'turned_away')).toBe(value(fast, 'lost'));
  });

  it('a seize with a queue limit runs on the generic loop', () => {
    const world = bedWorld({ beds: 2, lambda: 1, maxWaiting: 0, hold: exponentialStay(1), seed: 76, replications: 1 });
    expect(specialisedLoopSource(compileModel(world, 'baseline'))).toBeNull();
  });
});

describe('validating a seize with a queue limit', () => {
  const base = () => bedWorld({ beds: 2, lambda: 1, maxWaiting: 1, hold: exponentialStay(1), seed: 77, replications: 2 });
  const problemsOf = (world: WorldSpec) => validateWorld(world).problems;
  const seize = (world: WorldSpec) => world.steps[0] as Extract<Step, { kind: 'seize' }>;

  it('refuses a negative or fractional limit, a probability outside [0, 1] and a step that does not exist, at their pointers', () => {
    const world = base();
    seize(world).queue_limit = { max_waiting: -1, balk_probability: 1.5, to: 'nowhere' };
    const pointers = problemsOf(world).map((problem) => problem.pointer);
    expect(pointers).toEqual(expect.arrayContaining(['/steps/0/queue_limit/max_waiting', '/steps/0/queue_limit/balk_probability', '/steps/0/queue_limit/to']));
    seize(world).queue_limit = { max_waiting: 1.5 };
    expect(problemsOf(world).map((problem) => problem.pointer)).toContain('/steps/0/queue_limit/max_waiting');
  });

  it('refuses a turned_away moment at a seize without a queue limit, and an unknown field on the limit', () => {
    const world = base();
    delete seize(world).queue_limit;
    const problems = problemsOf(world);
    expect(problems.some((problem) => problem.pointer === '/measured/1/event/at' && problem.message.includes('no queue_limit'))).toBe(true);
    const odd = base();
    (seize(odd).queue_limit as Record<string, unknown>).when_full = 'turned_away';
    expect(problemsOf(odd).some((problem) => problem.pointer.startsWith('/steps/0/queue_limit'))).toBe(true);
  });

  it('refuses a turned-away patient who leaves holding another unit, or releases the unit they were refused', () => {
    // A trolley is taken first; the bed's queue limit has no step to go to, so a refused patient would leave holding it.
    const holding = base();
    holding.resources.push({ id: 'trolley', capacity: 5 });
    holding.arrivals[0]!.to_step = 'take_trolley';
    holding.steps = [
      { id: 'take_trolley', kind: 'seize', resource: 'trolley', next: 'take_bed' },
      { id: 'take_bed', kind: 'seize', resource: 'bed', queue_limit: { max_waiting: 0 }, next: 'stay' },
      ...exponentialStay(1),
      { id: 'free_bed', kind: 'release', resource: 'bed', next: 'free_trolley' },
      { id: 'free_trolley', kind: 'release', resource: 'trolley', next: 'home' },
      { id: 'home', kind: 'exit' },
    ];
    holding.measured = holding.measured.filter((measure) => measure.id !== 'refused');
    expect(problemsOf(holding).some((problem) => problem.pointer === '/steps/0' && problem.message.includes('before a release'))).toBe(true);

    const releasing = base();
    seize(releasing).queue_limit = { max_waiting: 0, to: 'free_bed' };
    expect(problemsOf(releasing).some((problem) => problem.message.includes("reach a release of 'bed' without having seized it"))).toBe(true);
  });
});
