import { describe, expect, it } from 'vitest';
import type { WorldSpec } from '../../domain/contracts/worldSpec.ts';
import { creditsForEvents, estimateRun, REPLICATIONS_MAX, validateWorld } from '../../domain/simulation/index.ts';
import { queueWorld } from '../support/worlds.ts';

const base = () => queueWorld({ servers: 2, arrivals_per_minute: 1, mean_service_minutes: 1, replications: 5 });

/** The M/M/2 world with a probability branch after the consult: follow-up or done. */
function branchingWorld(followUp: number, done: number): WorldSpec {
  const world = base();
  world.settings.p_follow_up = { value: followUp, unit: 'probability', source: { kind: 'assumption', rationale: 'test' } };
  world.steps = [
    { id: 'consult', kind: 'service', resource: 'clinician', duration: { dist: 'exponential', mean: { setting: 'mean_service' } }, next: 'route' },
    {
      id: 'route',
      kind: 'branch',
      by: 'probability',
      options: [
        { probability: { setting: 'p_follow_up' }, next: 'follow_up' },
        { probability: done, next: 'done' },
      ],
    },
    { id: 'follow_up', kind: 'delay', duration: { dist: 'fixed', value: 5 }, next: 'done' },
    { id: 'done', kind: 'exit' },
  ];
  return world;
}

function pointers(input: unknown): string[] {
  return validateWorld(input).problems.map((problem) => problem.pointer);
}

describe('validateWorld', () => {
  it('accepts the test queue world', () => {
    expect(validateWorld(base())).toEqual({ valid: true, problems: [], problems_not_listed: 0 });
  });

  it('reports a unit mismatch at the parameter that uses the setting', () => {
    const world = base();
    world.settings.arrival_rate!.unit = 'minutes';
    const result = validateWorld(world);
    expect(result.valid).toBe(false);
    const problem = result.problems.find((candidate) => candidate.pointer === '/arrivals/0/rate/setting');
    expect(problem?.message).toMatch(/unit mismatch.*rate unit/);
  });

  it('converts compatible units instead of flagging them (service time given in hours in a minutes world)', () => {
    const world = base();
    world.settings.mean_service = { value: 1 / 60, unit: 'hours', source: { kind: 'user_declared' } };
    expect(validateWorld(world).valid).toBe(true);
  });

  it('reports an unreachable step', () => {
    const world = base();
    world.steps.push({ id: 'orphan', kind: 'exit' });
    expect(validateWorld(world).problems).toContainEqual({ pointer: '/steps/2', message: "step 'orphan' is unreachable: no arrival or step leads to it" });
  });

  it('reports branch probabilities that do not sum to 1, in the baseline and under a variant', () => {
    expect(validateWorld(branchingWorld(0.3, 0.7)).valid).toBe(true);
    const problems = validateWorld(branchingWorld(0.3, 0.6)).problems;
    expect(problems.find((problem) => problem.pointer === '/steps/1/options')?.message).toMatch(/sum to 0\.9, not 1/);
    const world = branchingWorld(0.3, 0.7);
    world.variants[1]!.changes = [{ setting: 'p_follow_up', value: 0.5 }];
    expect(pointers(world)).toContain('/variants/1/changes');
  });

  it('reports references to a missing setting, resource and step with their pointers', () => {
    const world = base();
    const consult = world.steps[0]!;
    if (consult.kind !== 'service') throw new Error('fixture changed');
    consult.duration = { dist: 'exponential', mean: { setting: 'no_such_setting' } };
    consult.resource = 'no_such_resource';
    consult.next = 'no_such_step';
    world.variants[1]!.changes = [{ setting: 'missing_too', value: 1 }];
    const found = pointers(world);
    expect(found).toContain('/steps/0/duration/mean/setting');
    expect(found).toContain('/steps/0/resource');
    expect(found).toContain('/steps/0/next');
    expect(found).toContain('/variants/1/changes/0/setting');
  });

  it('reports a horizon that is not after the warm-up', () => {
    const world = base();
    world.warm_up = world.horizon;
    expect(validateWorld(world).problems).toContainEqual({
      pointer: '/horizon',
      message: `horizon (${world.horizon}) must be after the warm-up (${world.horizon})`,
    });
  });

  it('reports schema problems once, at the field that is wrong', () => {
    const world = base() as unknown as { steps: { duration: { dist: string } }[]; replications: unknown };
    world.steps[0]!.duration.dist = 'weibull';
    world.replications = 'many';
    const problems = validateWorld(world).problems;
    expect(problems.filter((problem) => problem.pointer.startsWith('/steps/0/duration'))).toEqual([
      {
        pointer: '/steps/0/duration/dist',
        message: 'must be one of: "fixed", "exponential", "uniform", "triangular", "lognormal", "gamma", "normal", "empirical"',
      },
    ]);
    expect(problems.map((problem) => problem.pointer)).toContain('/replications');
  });

  it('returns all problems of a world at once', () => {
    const world = branchingWorld(0.3, 0.6);
    world.warm_up = world.horizon + 1;
    world.settings.arrival_rate!.unit = 'probability';
    world.steps.push({ id: 'orphan', kind: 'exit' });
    const found = pointers(world);
    for (const pointer of ['/horizon', '/arrivals/0/rate/setting', '/steps/1/options', '/steps/4']) expect(found).toContain(pointer);
  });

  it('reports a field named like an object method as unknown, not as a field of the schema', () => {
    const result = validateWorld({ ...base(), constructor: 1, toString: 'x' });
    expect(result.valid).toBe(false);
    expect(result.problems.map((p) => p.pointer).sort()).toEqual(['/constructor', '/toString']);
  });

  it('does not check the meaning of a document whose shape is wrong in more places than an answer lists', () => {
    const unknown = Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`field_${i}`, i]));
    // the horizon before the warm-up would be a problem of meaning: it is not looked for under 150 shape problems
    const result = validateWorld({ ...base(), horizon: 10, warm_up: 20, ...unknown });
    expect(result.problems).toHaveLength(100);
    expect(result.problems_not_listed).toBe(50);
    expect(result.problems.some((p) => p.pointer === '/horizon')).toBe(false);
    // under the list's size, it is
    const few = validateWorld({ ...base(), horizon: 10, warm_up: 20, field_1: 1 });
    expect(few.problems.map((p) => p.pointer)).toContain('/horizon');
  });

  it('reports measure moments a step does not have and a priced measure that is not a count', () => {
    const world = base();
    world.measured.push({
      id: 'bad',
      kind: 'time_between',
      from: { step: 'done', at: 'start' },
      to: { step: 'consult', at: 'renege' },
      unit: 'minutes',
      denominator: 'entity',
      censoring: 'exclude',
    });
    world.cost_scenarios = { currency: 'GBP', rates: [{ id: 'wait_cost', measure: 'wait', low: 1, base: 2, high: 3, source: { kind: 'user_declared' } }] };
    const found = pointers(world);
    expect(found).toContain('/measured/5/from/at');
    expect(found).toContain('/measured/5/to/at');
    expect(found).toContain('/cost_scenarios/rates/0/measure');
  });
});

describe('estimateRun', () => {
  it('estimates events and credits from the documented cost model', () => {
    const world = base();
    const estimate = estimateRun(world);
    expect(estimate.runnable).toBe(true);
    // 1 arrival/min over 20,000 min, 2 events per patient (arrival, service end), 2 variants x 5 replications.
    expect(estimate.events_estimate).toBe(20_000 * 2 * 2 * 5);
    expect(estimate.credits_estimate).toBe(creditsForEvents(400_000));
    expect(estimate.credits_estimate).toBe(4);
    expect(creditsForEvents(1)).toBe(1);
  });

  it('refuses replications above REPLICATIONS_MAX and names the limit', () => {
    const world = { ...base(), replications: REPLICATIONS_MAX + 1 };
    const estimate = estimateRun(world);
    expect(estimate.runnable).toBe(false);
    expect(estimate.issues[0]!.pointer).toBe('/replications');
    expect(estimate.issues[0]!.message).toContain('REPLICATIONS_MAX');
  });

  it('is not runnable when the world is invalid, and says why', () => {
    const world = base();
    world.warm_up = world.horizon;
    const estimate = estimateRun(world);
    expect(estimate.runnable).toBe(false);
    expect(estimate.issues.map((issue) => issue.pointer)).toContain('/horizon');
  });
});

describe('estimateRun entity limit', () => {
  it('refuses a world whose queue grows past ENTITIES_IN_SYSTEM_MAX and names the limit', () => {
    // 10 arrivals per minute to one server serving one per minute: about 9 more entities every minute.
    const world = queueWorld({ servers: 1, arrivals_per_minute: 10, mean_service_minutes: 1, horizon_minutes: 200_000, replications: 1 });
    const estimate = estimateRun(world);
    expect(estimate.runnable).toBe(false);
    expect(estimate.issues.some((issue) => issue.message.includes('ENTITIES_IN_SYSTEM_MAX'))).toBe(true);
    expect(estimateRun(queueWorld({ servers: 1, arrivals_per_minute: 0.9, mean_service_minutes: 1, horizon_minutes: 200_000, replications: 1 })).runnable).toBe(
      true,
    );
  });
});
