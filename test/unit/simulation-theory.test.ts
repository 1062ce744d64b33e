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
  const world = queueWorld({
    servers: 1,
    arrivals_per_minute: lambda,
    mean_service_minutes: 1 / mu,
    horizon_minutes: 100_000,
    warm_up_minutes: 2_000,
    replications: 8,
    seed: 3,
  });
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

/** Stationary distribution of a birth-death chain truncated at `states` (births[n]: n -> n+1, deaths[n]: n -> n-1). */
function birthDeath(states: number, birth: (n: number) => number, death: (n: number) => number): number[] {
  const weights = [1];
  for (let n = 1; n <= states; n++) weights.push((weights[n - 1]! * birth(n - 1)) / death(n));
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  return weights.map((weight) => weight / total);
}

/** A c-server clinic with exponential service and a count of entities at the given exit per arrival. */
function clinic(options: { servers: number; lambda: number; mu: number; horizon: number; seed: number }): WorldSpec {
  const world = queueWorld({
    servers: options.servers,
    arrivals_per_minute: options.lambda,
    mean_service_minutes: 1 / options.mu,
    horizon_minutes: options.horizon,
    warm_up_minutes: 1_000,
    replications: 10,
    seed: options.seed,
  });
  world.steps.push({ id: 'lost', kind: 'exit' });
  world.measured.push({
    id: 'lost_share',
    kind: 'count',
    event: { step: 'lost', at: 'enter' },
    unit: 'count_per_arrival',
    denominator: 'arrival',
    censoring: 'none',
  });
  return world;
}

function mean(world: WorldSpec, measure: string, replications = 10): number {
  return summaryOf(world, replications, measure).mean!;
}

describe('queue capacity, balking and patience against birth-death results', () => {
  it('M/M/2/5 (blocking when 3 wait): blocking probability and mean wait of admitted patients within 5%', () => {
    const [c, lambda, mu, maxWaiting] = [2, 2, 1, 3];
    const world = clinic({ servers: c, lambda, mu, horizon: 100_000, seed: 5 });
    const consult = world.steps[0]!;
    if (consult.kind === 'service') consult.queue_limit = { max_waiting: maxWaiting, to: 'lost' };
    const p = birthDeath(
      c + maxWaiting,
      () => lambda,
      (n) => Math.min(n, c) * mu,
    );
    const blocking = p[c + maxWaiting]!; // 0.0952 (Erlang loss with a waiting room, K = c + max_waiting)
    const queue = p.reduce((sum, pn, n) => sum + Math.max(0, n - c) * pn, 0);
    const wait = queue / (lambda * (1 - blocking));
    expect(relative(mean(world, 'lost_share'), blocking)).toBeLessThan(0.05);
    expect(relative(mean(world, 'wait'), wait)).toBeLessThan(0.05);
  });

  it('balking: M/M/1 where half of those finding 2 or more waiting balk; balk share and mean queue within 5%', () => {
    const [lambda, mu] = [0.9, 1];
    const world = clinic({ servers: 1, lambda, mu, horizon: 100_000, seed: 6 });
    const consult = world.steps[0]!;
    if (consult.kind === 'service') consult.queue_limit = { max_waiting: 2, balk_probability: 0.5, to: 'lost' };
    // n in system; waiting = n - 1; an arrival finding n >= 3 joins with probability 0.5.
    const p = birthDeath(
      400,
      (n) => (n >= 3 ? lambda * 0.5 : lambda),
      () => mu,
    );
    const balk = 0.5 * p.slice(3).reduce((sum, pn) => sum + pn, 0);
    const queue = p.reduce((sum, pn, n) => sum + Math.max(0, n - 1) * pn, 0);
    expect(relative(mean(world, 'lost_share'), balk)).toBeLessThan(0.05);
    expect(relative(mean(world, 'queue'), queue)).toBeLessThan(0.05);
  });

  it('Erlang-A (M/M/2+M, exponential patience mean 2): abandonment share and mean queue (so mean wait) within 5%', () => {
    const [c, lambda, mu, theta] = [2, 2.2, 1, 0.5];
    const world = clinic({ servers: c, lambda, mu, horizon: 100_000, seed: 7 });
    const consult = world.steps[0]!;
    if (consult.kind === 'service') {
      consult.patience = { dist: 'exponential', mean: 1 / theta };
      consult.renege_to = 'lost';
    }
    const p = birthDeath(
      400,
      () => lambda,
      (n) => Math.min(n, c) * mu + Math.max(0, n - c) * theta,
    );
    const queue = p.reduce((sum, pn, n) => sum + Math.max(0, n - c) * pn, 0);
    const abandon = (theta * queue) / lambda; // abandonments per unit time over arrivals per unit time
    expect(relative(mean(world, 'lost_share'), abandon)).toBeLessThan(0.05);
    expect(relative(mean(world, 'queue'), queue)).toBeLessThan(0.05); // mean wait over all arrivals = queue / lambda (Little)
  });
});

describe('arrival processes against closed forms', () => {
  it('M^X/M/1 with batches of 3: mean time in system rho (E[X^2] + E[X]) / (2 E[X] (1 - rho)) / (lambda E[X]) within 5%', () => {
    const [lambda, mu, size] = [0.2, 1, 3];
    const world = queueWorld({
      servers: 1,
      arrivals_per_minute: lambda,
      mean_service_minutes: 1 / mu,
      horizon_minutes: 100_000,
      warm_up_minutes: 1_000,
      replications: 10,
      seed: 8,
    });
    world.arrivals = [{ id: 'patients', kind: 'poisson', rate: { setting: 'arrival_rate' }, batch_sizes: { values: [size] }, to_step: 'consult' }];
    const rho = (lambda * size) / mu;
    const inSystem = (rho * (size * size + size)) / (2 * size * (1 - rho)); // L = 3
    expect(relative(mean(world, 'time_in_system'), inSystem / (lambda * size))).toBeLessThan(0.05); // 5 minutes
    expect(relative(mean(world, 'utilisation'), rho)).toBeLessThan(0.02);
  });

  it('mixed batch sizes {1, 2, 3} with weights 1:1:2: M^X/M/1 mean time in system within 5%', () => {
    const [lambda, mu] = [0.25, 1];
    const world = queueWorld({
      servers: 1,
      arrivals_per_minute: lambda,
      mean_service_minutes: 1 / mu,
      horizon_minutes: 100_000,
      warm_up_minutes: 1_000,
      replications: 10,
      seed: 9,
    });
    world.arrivals = [
      { id: 'patients', kind: 'poisson', rate: { setting: 'arrival_rate' }, batch_sizes: { values: [1, 2, 3], weights: [1, 1, 2] }, to_step: 'consult' },
    ];
    const ex = (1 + 2 + 3 * 2) / 4;
    const ex2 = (1 + 4 + 9 * 2) / 4;
    const rho = (lambda * ex) / mu;
    const inSystem = (rho * (ex2 + ex)) / (2 * ex * (1 - rho));
    expect(relative(mean(world, 'time_in_system'), inSystem / (lambda * ex))).toBeLessThan(0.05);
  });

  it('D/M/1 (renewal arrivals every 1.25 minutes): mean wait sigma / (mu (1 - sigma)), sigma = e^{-mu (1 - sigma) 1.25}, within 5%', () => {
    const [gap, mu] = [1.25, 1];
    const world = queueWorld({
      servers: 1,
      arrivals_per_minute: 1 / gap,
      mean_service_minutes: 1 / mu,
      horizon_minutes: 100_000,
      warm_up_minutes: 1_000,
      replications: 10,
      seed: 10,
    });
    world.arrivals = [{ id: 'patients', kind: 'renewal', interarrival: { dist: 'fixed', value: gap }, to_step: 'consult' }];
    let sigma = 0.5;
    for (let k = 0; k < 200; k++) sigma = Math.exp(-mu * (1 - sigma) * gap);
    expect(relative(mean(world, 'wait'), sigma / (mu * (1 - sigma)))).toBeLessThan(0.05);
  });

  it('E2/M/1 (gamma interarrival, shape 2): the GI/M/1 mean wait within 5%', () => {
    const [mean_gap, mu] = [1.25, 1];
    const world = queueWorld({
      servers: 1,
      arrivals_per_minute: 1 / mean_gap,
      mean_service_minutes: 1 / mu,
      horizon_minutes: 100_000,
      warm_up_minutes: 1_000,
      replications: 10,
      seed: 11,
    });
    world.arrivals = [{ id: 'patients', kind: 'renewal', interarrival: { dist: 'gamma', shape: 2, scale: mean_gap / 2 }, to_step: 'consult' }];
    // sigma = A*(mu (1 - sigma)), A*(s) = (1 + s scale)^-2 for the gamma(2, scale) interarrival.
    let sigma = 0.5;
    for (let k = 0; k < 500; k++) sigma = (1 + mu * (1 - sigma) * (mean_gap / 2)) ** -2;
    expect(relative(mean(world, 'wait'), sigma / (mu * (1 - sigma)))).toBeLessThan(0.05);
  });
});

describe('pre-emptive priority (M/M/1, two classes, exponential service)', () => {
  // Pre-emptive resume: E[T_k] = E[S] / (1 - s_{k-1}) + R_k / ((1 - s_{k-1})(1 - s_k)), R_k = sum_{i<=k} lambda_i E[S^2] / 2,
  // s_k = rho_1 + ... + rho_k. With exponential service, restart gives the same (memoryless) sojourn times.
  const [lambda1, lambda2, mu] = [0.3, 0.5, 1];
  const world = (preempt: 'resume' | 'restart'): WorldSpec => {
    const base = queueWorld({
      servers: 1,
      arrivals_per_minute: lambda1,
      mean_service_minutes: 1 / mu,
      horizon_minutes: 100_000,
      warm_up_minutes: 1_000,
      replications: 10,
      seed: 12,
    });
    base.arrivals = [
      { id: 'urgent', kind: 'poisson', rate: lambda1, to_step: 'mark_urgent', attributes: [{ name: 'priority', values: [{ value: 1, probability: 1 }] }] },
      { id: 'routine', kind: 'poisson', rate: lambda2, to_step: 'mark_routine', attributes: [{ name: 'priority', values: [{ value: 2, probability: 1 }] }] },
    ];
    base.steps = [
      { id: 'mark_urgent', kind: 'branch', by: 'probability', options: [{ probability: 1, next: 'consult' }] },
      { id: 'mark_routine', kind: 'branch', by: 'probability', options: [{ probability: 1, next: 'consult' }] },
      {
        id: 'consult',
        kind: 'service',
        resource: 'clinician',
        duration: { dist: 'exponential', mean: 1 / mu },
        queue: 'priority',
        priority_attribute: 'priority',
        preempt,
        next: 'sort',
      },
      { id: 'sort', kind: 'branch', by: 'attribute', attribute: 'priority', options: [{ equals: 1, next: 'urgent_done' }], otherwise: 'routine_done' },
      { id: 'urgent_done', kind: 'exit' },
      { id: 'routine_done', kind: 'exit' },
    ];
    base.measured = [
      {
        id: 'urgent_time',
        kind: 'time_between',
        from: { step: 'mark_urgent', at: 'enter' },
        to: { step: 'urgent_done', at: 'enter' },
        unit: 'minutes',
        denominator: 'entity',
        censoring: 'exclude',
      },
      {
        id: 'routine_time',
        kind: 'time_between',
        from: { step: 'mark_routine', at: 'enter' },
        to: { step: 'routine_done', at: 'enter' },
        unit: 'minutes',
        denominator: 'entity',
        censoring: 'exclude',
      },
      { id: 'utilisation', kind: 'utilisation', resource: 'clinician', unit: 'fraction', denominator: 'capacity_time', censoring: 'none' },
    ];
    return base;
  };
  const s1 = lambda1 / mu;
  const s2 = s1 + lambda2 / mu;
  const urgent = 1 / mu + lambda1 / mu ** 2 / (1 - s1); // 1.4286 = 1 / (mu - lambda1)
  const routine = 1 / mu / (1 - s1) + (lambda1 + lambda2) / mu ** 2 / ((1 - s1) * (1 - s2)); // 7.143

  it("resume: both classes' mean time in system within 5%", () => {
    expect(urgent).toBeCloseTo(1 / (mu - lambda1), 10);
    const w = world('resume');
    expect(relative(mean(w, 'urgent_time'), urgent)).toBeLessThan(0.05);
    expect(relative(mean(w, 'routine_time'), routine)).toBeLessThan(0.05);
  });

  it('restart (exponential service, so the same sojourn times): both classes within 5%', () => {
    const w = world('restart');
    expect(relative(mean(w, 'urgent_time'), urgent)).toBeLessThan(0.05);
    expect(relative(mean(w, 'routine_time'), routine)).toBeLessThan(0.05);
  });

  it('without pre-emption the urgent class waits behind routine services (non-pre-emptive M/M/1 priority)', () => {
    const w = world('resume');
    const consult = w.steps.find((step) => step.id === 'consult')!;
    if (consult.kind === 'service') delete consult.preempt;
    // Non-pre-emptive: E[T_1] = E[S] + R / (1 - s_1), R = (lambda1 + lambda2) E[S^2] / 2 over both classes.
    const nonPreemptive = 1 / mu + (lambda1 + lambda2) / mu ** 2 / (1 - s1); // 2.143
    expect(relative(mean(w, 'urgent_time'), nonPreemptive)).toBeLessThan(0.05);
  });
});
