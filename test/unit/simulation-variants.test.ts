// Variants that change structure: queue discipline, a distribution's family, an added step (docs/simulation.md, Model
// features and their checks). Seeds are fixed, so each check is deterministic.
import { describe, expect, it } from 'vitest';
import type { Step, WorldSpec } from '../../domain/contracts/worldSpec.ts';
import { compare, estimateRun, runSequential, summarize, validateWorld } from '../../domain/simulation/index.ts';
import { queueWorld } from '../support/worlds.ts';

const [lambda1, lambda2, mu] = [0.3, 0.5, 1];
const fifoConsult: Extract<Step, { kind: 'service' }> = {
  id: 'consult',
  kind: 'service',
  resource: 'clinician',
  duration: { dist: 'exponential', mean: 1 / mu },
  next: 'sort',
};

/** M/M/1 with urgent (priority 1) and routine (priority 2) patients, FIFO in the baseline; each treatment changes structure. */
function clinic(): WorldSpec {
  const world = queueWorld({
    servers: 1,
    arrivals_per_minute: lambda1,
    mean_service_minutes: 1 / mu,
    horizon_minutes: 100_000,
    warm_up_minutes: 2_000,
    replications: 10,
    seed: 91,
  });
  world.arrivals = [
    { id: 'urgent', kind: 'poisson', rate: lambda1, to_step: 'mark_urgent', attributes: [{ name: 'priority', values: [{ value: 1, probability: 1 }] }] },
    { id: 'routine', kind: 'poisson', rate: lambda2, to_step: 'mark_routine', attributes: [{ name: 'priority', values: [{ value: 2, probability: 1 }] }] },
  ];
  world.steps = [
    { id: 'mark_urgent', kind: 'branch', by: 'probability', options: [{ probability: 1, next: 'consult' }] },
    { id: 'mark_routine', kind: 'branch', by: 'probability', options: [{ probability: 1, next: 'consult' }] },
    fifoConsult,
    { id: 'sort', kind: 'branch', by: 'attribute', attribute: 'priority', options: [{ equals: 1, next: 'urgent_done' }], otherwise: 'routine_done' },
    { id: 'urgent_done', kind: 'exit' },
    { id: 'routine_done', kind: 'exit' },
  ];
  world.measured = [
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
  ];
  world.variants = [
    { id: 'baseline', label: 'First come, first served', role: 'baseline', changes: [] },
    {
      id: 'priority',
      label: 'Urgent first',
      role: 'treatment',
      changes: [],
      structure: { replace_steps: [{ ...fifoConsult, queue: 'priority', priority_attribute: 'priority' }] },
    },
    {
      id: 'fixed_service',
      label: 'Standardised consult',
      role: 'treatment',
      changes: [],
      structure: { replace_steps: [{ ...fifoConsult, duration: { dist: 'fixed', value: 1 / mu } }] },
    },
    {
      id: 'paperwork',
      label: 'Paperwork after the consult',
      role: 'treatment',
      changes: [],
      structure: {
        replace_steps: [{ ...fifoConsult, next: 'paperwork' }],
        add_steps: [{ id: 'paperwork', kind: 'delay', duration: { dist: 'fixed', value: 2 }, next: 'sort' }],
      },
    },
  ];
  return world;
}

describe('variants that change structure', () => {
  const world = clinic();
  const results = runSequential(world);
  const mean = (variant: string, measure: string) =>
    summarize(world, results).find((summary) => summary.measure_id === measure && summary.variant_id === variant)!.mean!;
  const relative = (actual: number, expected: number) => Math.abs(actual - expected) / expected;
  const rho = (lambda1 + lambda2) / mu;

  it('FIFO -> priority: both classes take the M/M/1 time 1 / (mu - lambda) under FIFO and the non-pre-emptive priority times under priority, within 5%', () => {
    expect(validateWorld(world).problems).toEqual([]);
    const fifo = 1 / (mu - lambda1 - lambda2); // 5 minutes for everyone
    expect(relative(mean('baseline', 'urgent_time'), fifo)).toBeLessThan(0.05);
    expect(relative(mean('baseline', 'routine_time'), fifo)).toBeLessThan(0.05);
    // Cobham: W_k = R / ((1 - s_{k-1})(1 - s_k)), R = sum lambda_i E[S^2] / 2 = 0.8; plus the service.
    const residual = ((lambda1 + lambda2) * 2) / mu ** 2 / 2;
    const urgent = residual / (1 - lambda1 / mu) + 1 / mu; // 2.14
    const routine = residual / ((1 - lambda1 / mu) * (1 - rho)) + 1 / mu; // 6.71
    expect(relative(mean('priority', 'urgent_time'), urgent)).toBeLessThan(0.05);
    expect(relative(mean('priority', 'routine_time'), routine)).toBeLessThan(0.05);
  });

  it('exponential -> fixed service: M/D/1 time in system rho / (2 mu (1 - rho)) + 1 / mu within 5%', () => {
    const md1 = rho / (2 * mu * (1 - rho)) + 1 / mu; // 3 minutes
    expect(relative(mean('fixed_service', 'urgent_time'), md1)).toBeLessThan(0.05);
    expect(relative(mean('fixed_service', 'routine_time'), md1)).toBeLessThan(0.05);
  });

  it('an added 2-minute step after the consult adds 2 minutes to every time in system (paired, common random numbers)', () => {
    const difference = compare(world, results).metrics.find((metric) => metric.treatment_variant_id === 'paperwork' && metric.measure_id === 'urgent_time')!;
    expect(Math.abs(difference.mean_difference! - 2)).toBeLessThan(0.02);
    // The estimate runs each variant's own structure: the added delay's end events are counted.
    const short = { ...world, horizon: 20_000, replications: 2 };
    const actual = runSequential(short).reduce((sum, result) => sum + result.event_counts.events_total, 0);
    expect(relative(estimateRun(short).events_estimate, actual)).toBeLessThan(0.15);
  });

  it("refuses unknown replaced or removed steps, an added id that exists, and a variant's own broken structure, at the variant", () => {
    const broken = clinic();
    broken.variants[1]!.structure = {
      replace_steps: [{ ...fifoConsult, id: 'nothing_here' }],
      remove_steps: ['sort'],
      add_steps: [{ id: 'consult', kind: 'exit' }],
    };
    const problems = validateWorld(broken).problems;
    const pointers = problems.map((problem) => problem.pointer);
    expect(pointers).toContain('/variants/1/structure/replace_steps/0/id');
    expect(pointers).toContain('/variants/1/structure/add_steps/0/id');
    // Removing 'sort' leaves 'consult' pointing nowhere in that variant's world.
    expect(
      problems.some((problem) => problem.pointer === '/variants/1/structure' && problem.message.includes("refers to step 'sort', which does not exist")),
    ).toBe(true);
  });
});
