// validateWorld: every problem of a WorldSpec, each with a JSON pointer and a message (spec: Public endpoints, validate).
// Schema problems first, then semantic checks; the semantic checks guard every access so a half-broken document
// still gets all the problems that can be found, not just the first.
import { WorldSpec } from '../contracts/worldSpec.ts';
import { PROBLEMS_LISTED_MAX } from '../errors.ts';
import { normalCdf } from './normal.ts';
import { escapePointer, type Problem, schemaProblems } from './schemaProblems.ts';
import { type Dimension, dimensionOf, toWorldUnit } from './units.ts';

export type { Problem } from './schemaProblems.ts';
/** problems: the first PROBLEMS_LISTED_MAX; problems_not_listed: how many more were found. */
export type ValidationResult = { valid: boolean; problems: Problem[]; problems_not_listed: number };

/** Tolerance for probabilities that must sum to 1. */
export const PROBABILITY_SUM_TOLERANCE = 1e-9;

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const isId = (value: unknown): value is string => typeof value === 'string' && value.length > 0;

const DIMENSION_WORDS: Record<Dimension, string> = {
  time: 'a time unit (minutes, hours, days)',
  rate: 'a rate unit (per_minute, per_hour, per_day)',
  probability: 'probability',
  count: 'count',
  dimensionless: 'a dimensionless unit (fraction, ratio, dimensionless)',
  currency: 'a currency code',
};

// Which moments a measure may name at each kind of step (spec: WorldSpec measured results).
const MOMENTS_BY_KIND: Record<string, string[]> = {
  service: ['enter', 'start', 'end', 'renege', 'turned_away'],
  delay: ['enter', 'end'],
  branch: ['enter'],
  assign: ['enter'],
  seize: ['enter', 'start', 'turned_away'],
  release: ['enter'],
  exit: ['enter'],
};

export function validateWorld(input: unknown): ValidationResult {
  const { problems, not_built } = schemaProblems(WorldSpec, input);
  // A document whose shape is wrong in more places than an answer lists is not checked for meaning: the answer could not
  // show those problems anyway, and a body of tens of thousands of unknown fields is not walked again (docs/decisions.md).
  const shapeListed = problems.length + not_built >= PROBLEMS_LISTED_MAX;
  if (isObject(input) && !shapeListed) {
    semanticProblems(input, problems);
    structureProblems(input, problems);
  } else if (problems.length === 0) problems.push({ pointer: '', message: 'a WorldSpec must be a JSON object' });
  const found = dedupe(problems);
  return {
    valid: found.length + not_built === 0,
    problems: found.slice(0, PROBLEMS_LISTED_MAX),
    problems_not_listed: Math.max(0, found.length - PROBLEMS_LISTED_MAX) + not_built,
  };
}

/**
 * Variants that change structure: the ids they replace or remove exist, the ids they add do not, and the world each
 * such variant runs is checked as a whole; its problems that the written world does not have are reported at the
 * variant's structure, naming where in the variant's world they are.
 */
function structureProblems(world: Json, problems: Problem[]): void {
  const steps = asArray(world.steps);
  const ids = new Set(steps.flatMap((step) => (isObject(step) && isId(step.id) ? [step.id] : [])));
  const written = new Set<string>();
  const baseline: Problem[] = [];
  // the world without its variants' structures, made at the first variant that has one (a copy of every field)
  let plain: Json | null = null;
  asArray(world.variants).forEach((variant, index) => {
    if (!isObject(variant) || !isObject(variant.structure)) return;
    const structure = variant.structure;
    const pointer = `/variants/${index}/structure`;
    const replaced = new Map<string, unknown>();
    asArray(structure.replace_steps).forEach((step, stepIndex) => {
      if (!isObject(step) || !isId(step.id)) return;
      if (!ids.has(step.id))
        problems.push({ pointer: `${pointer}/replace_steps/${stepIndex}/id`, message: `replaces step '${step.id}', which does not exist` });
      replaced.set(step.id, step);
    });
    const removed = new Set<string>();
    asArray(structure.remove_steps).forEach((id, idIndex) => {
      if (!isId(id)) return;
      if (!ids.has(id)) problems.push({ pointer: `${pointer}/remove_steps/${idIndex}`, message: `removes step '${id}', which does not exist` });
      if (replaced.has(id)) problems.push({ pointer: `${pointer}/remove_steps/${idIndex}`, message: `step '${id}' is both replaced and removed` });
      removed.add(id);
    });
    asArray(structure.add_steps).forEach((step, stepIndex) => {
      if (isObject(step) && isId(step.id) && ids.has(step.id))
        problems.push({ pointer: `${pointer}/add_steps/${stepIndex}/id`, message: `adds step '${step.id}', which already exists: replace it instead` });
    });
    if (plain === null) {
      plain = { ...world, variants: asArray(world.variants).map((item) => (isObject(item) ? { ...item, structure: undefined } : item)) };
      semanticProblems(plain, baseline);
      for (const problem of baseline) written.add(`${problem.pointer}\u0000${problem.message}`);
    }
    const variantSteps = [
      ...steps
        .filter((step) => !(isObject(step) && isId(step.id) && removed.has(step.id)))
        .map((step) => (isObject(step) && isId(step.id) && replaced.has(step.id) ? replaced.get(step.id) : step)),
      ...asArray(structure.add_steps),
    ];
    const own: Problem[] = [];
    semanticProblems({ ...plain, steps: variantSteps }, own);
    for (const problem of own) {
      if (written.has(`${problem.pointer}\u0000${problem.message}`)) continue;
      problems.push({
        pointer,
        message: `under variant '${String(variant.id)}' (its steps in order: the written steps as changed, then the added ones), ${problem.pointer}: ${problem.message}`,
      });
    }
  });
}

function dedupe(problems: Problem[]): Problem[] {
  const seen = new Set<string>();
  return problems.filter((problem) => {
    const key = `${problem.pointer}\u0000${problem.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

type Context = {
  world: Json;
  settings: Json;
  problems: Problem[];
  variants: Json[];
  timeUnit: string;
};

/** What a WorldSpec declares, indexed once before any rule runs; every rule family below reads it. */
type Known = Context & {
  steps: unknown[];
  /** the first step with each id */
  stepIndex: Map<string, number>;
  resources: unknown[];
  resourceIds: Set<string>;
  /** attributes assigned by arrivals and assign steps, with the kinds (typeof) of their values */
  attributes: Map<string, Set<string>>;
  measureKinds: Map<string, string>;
};

function known(world: Json, problems: Problem[]): Known {
  const steps = asArray(world.steps);
  const stepIndex = new Map<string, number>();
  steps.forEach((step, index) => {
    if (isObject(step) && isId(step.id) && !stepIndex.has(step.id)) stepIndex.set(step.id, index);
  });
  const resources = asArray(world.resources);
  const resourceIds = new Set(resources.flatMap((resource) => (isObject(resource) && isId(resource.id) ? [resource.id] : [])));
  const attributes = new Map<string, Set<string>>();
  const assigned = (name: string, values: Json[]) => {
    const kinds = attributes.get(name) ?? new Set<string>();
    attributes.set(name, kinds);
    for (const value of values) kinds.add(typeof value.value);
  };
  for (const arrival of asArray(world.arrivals).filter(isObject)) {
    for (const assignment of asArray(arrival.attributes))
      if (isObject(assignment) && isId(assignment.name)) assigned(assignment.name, asArray(assignment.values).filter(isObject));
  }
  // Attributes set along the pathway by assign steps count as assigned too.
  for (const step of steps)
    if (isObject(step) && step.kind === 'assign' && isId(step.attribute)) assigned(step.attribute, asArray(step.values).filter(isObject));
  const measureKinds = new Map<string, string>();
  for (const measure of asArray(world.measured))
    if (isObject(measure) && isId(measure.id) && typeof measure.kind === 'string') measureKinds.set(measure.id, measure.kind);
  return {
    world,
    settings: isObject(world.settings) ? world.settings : {},
    problems,
    variants: asArray(world.variants).filter(isObject),
    timeUnit: typeof world.time_unit === 'string' ? world.time_unit : 'minutes',
    steps,
    stepIndex,
    resources,
    resourceIds,
    attributes,
    measureKinds,
  };
}

/** The semantic checks of a WorldSpec, one rule family each, in the order their problems are reported. */
function semanticProblems(world: Json, problems: Problem[]): void {
  const context = known(world, problems);
  // Horizon after warm-up (spec: validate, "horizon not after warm-up").
  if (typeof world.horizon === 'number' && typeof world.warm_up === 'number' && !(world.horizon > world.warm_up)) {
    problems.push({ pointer: '/horizon', message: `horizon (${world.horizon}) must be after the warm-up (${world.warm_up})` });
  }
  settingUnitProblems(context);
  checkDuplicateIds(context.steps, '/steps', 'step', problems);
  checkDuplicateIds(context.resources, '/resources', 'resource', problems);
  checkDuplicateIds(asArray(world.arrivals), '/arrivals', 'arrival', problems);
  checkDuplicateIds(asArray(world.measured), '/measured', 'measure', problems);
  checkDuplicateIds(context.variants, '/variants', 'variant', problems);
  asArray(world.arrivals).forEach((arrival, index) => {
    if (isObject(arrival)) arrivalProblems(context, arrival, `/arrivals/${index}`);
  });
  context.steps.forEach((step, index) => {
    if (isObject(step) && step.kind === 'assign' && isId(step.attribute)) assignStepProblems(context, step, `/steps/${index}`);
  });
  context.steps.forEach((step, index) => {
    if (isObject(step)) stepProblems(context, step, index);
  });
  reachability(world, context.steps, context.stepIndex, problems);
  seizeRelease(world, context.steps, context.stepIndex, problems);
  asArray(world.measured).forEach((measure, index) => {
    if (isObject(measure)) measureProblems(context, measure, `/measured/${index}`);
  });
  variantProblems(context);
  context.resources.forEach((resource, index) => {
    if (isObject(resource)) resourceProblems(context, resource, `/resources/${index}`);
  });
  if (
    isObject(world.stop_when) &&
    isId(world.stop_when.measure) &&
    !asArray(world.measured).some((measure) => isObject(measure) && measure.id === (world.stop_when as Json).measure)
  ) {
    problems.push({ pointer: '/stop_when/measure', message: `refers to measure '${world.stop_when.measure}', which does not exist` });
  }
  if (isObject(world.cost_scenarios)) costProblems(context, world.cost_scenarios);
}

function settingUnitProblems({ settings, problems }: Known): void {
  for (const [name, setting] of Object.entries(settings)) {
    if (!isObject(setting) || typeof setting.unit !== 'string') continue;
    if (dimensionOf(setting.unit) === null) {
      problems.push({
        pointer: `/settings/${escapePointer(name)}/unit`,
        message: `unknown unit '${setting.unit}': use minutes, hours, days, per_minute, per_hour, per_day, probability, count, fraction or a currency code`,
      });
    }
  }
}

function stepRef(context: Known, value: unknown, pointer: string): void {
  if (isId(value) && !context.stepIndex.has(value)) context.problems.push({ pointer, message: `refers to step '${value}', which does not exist` });
}

function resourceRef(context: Known, value: unknown, pointer: string): void {
  if (isId(value) && !context.resourceIds.has(value)) context.problems.push({ pointer, message: `refers to resource '${value}', which does not exist` });
}

function arrivalProblems(context: Known, arrival: Json, base: string): void {
  const { problems } = context;
  stepRef(context, arrival.to_step, `${base}/to_step`);
  if (arrival.kind === 'poisson') parameter(context, arrival.rate, `${base}/rate`, 'rate', { min: 0 });
  if (arrival.kind === 'renewal') {
    distribution(context, arrival.interarrival, `${base}/interarrival`);
    if (isObject(arrival.interarrival) && arrival.interarrival.dist === 'fixed' && arrival.interarrival.value === 0)
      problems.push({ pointer: `${base}/interarrival/value`, message: 'must be greater than 0: arrivals would never stop' });
  }
  if (
    isObject(arrival.batch_sizes) &&
    Array.isArray(arrival.batch_sizes.weights) &&
    Array.isArray(arrival.batch_sizes.values) &&
    arrival.batch_sizes.weights.length !== arrival.batch_sizes.values.length
  ) {
    problems.push({ pointer: `${base}/batch_sizes/weights`, message: 'needs one weight per value' });
  }
  if (arrival.kind === 'rate_table') rateTableProblems(context, arrival, base);
  if (arrival.kind === 'scheduled' && typeof arrival.period === 'number') {
    asArray(arrival.times).forEach((time, timeIndex) => {
      if (typeof time === 'number' && time >= (arrival.period as number))
        problems.push({ pointer: `${base}/times/${timeIndex}`, message: `time ${time} is not inside the period (${arrival.period})` });
    });
  }
  asArray(arrival.attributes).forEach((assignment, assignmentIndex) => {
    if (!isObject(assignment) || !isId(assignment.name)) return;
    const pointer = `${base}/attributes/${assignmentIndex}`;
    const values = asArray(assignment.values).filter(isObject);
    probabilitySum(
      context,
      values.map((value) => value.probability),
      values.map((_, i) => `${pointer}/values/${i}/probability`),
      pointer,
      `probabilities of attribute '${assignment.name}'`,
    );
  });
}

function rateTableProblems(context: Known, arrival: Json, base: string): void {
  const { problems } = context;
  if (arrival.scale !== undefined) parameter(context, arrival.scale, `${base}/scale`, 'dimensionless', { min: 0 });
  if (arrival.growth_per_year !== undefined) parameter(context, arrival.growth_per_year, `${base}/growth_per_year`, 'dimensionless', { min: -0.99 });
  const holidayDays = new Set<unknown>();
  asArray(arrival.holidays).forEach((holiday, holidayIndex) => {
    if (!isObject(holiday)) return;
    if (holidayDays.has(holiday.day)) problems.push({ pointer: `${base}/holidays/${holidayIndex}/day`, message: `day ${String(holiday.day)} is listed twice` });
    holidayDays.add(holiday.day);
  });
  const rows = Array.isArray(arrival.rates_per_hour) ? arrival.rates_per_hour.length : 7;
  if (rows !== 1 && rows !== 7)
    problems.push({ pointer: `${base}/rates_per_hour`, message: `has ${rows} rows: give 7 (Monday..Sunday) or 1 (a one-day pattern every day repeats)` });
  if (rows === 1 && asArray(arrival.holidays).length > 0)
    problems.push({
      pointer: `${base}/holidays`,
      message: 'a holiday takes another weekday row, but a one-day pattern has only one row: give 7 rows, or remove the holidays',
    });
  const total = asArray(arrival.rates_per_hour)
    .flatMap(asArray)
    .reduce((sum: number, rate) => sum + (typeof rate === 'number' ? rate : 0), 0);
  if (Array.isArray(arrival.rates_per_hour) && total <= 0)
    problems.push({ pointer: `${base}/rates_per_hour`, message: 'every rate is zero: this source never produces an arrival' });
}

function assignStepProblems(context: Known, step: Json, base: string): void {
  const values = asArray(step.values).filter(isObject);
  stepRef(context, step.next, `${base}/next`);
  probabilitySum(
    context,
    values.map((value) => value.probability),
    values.map((_, i) => `${base}/values/${i}/probability`),
    `${base}/values`,
    `probabilities of the values step '${String(step.id)}' assigns`,
  );
}

function stepProblems(context: Known, step: Json, index: number): void {
  const base = `/steps/${index}`;
  if (step.kind === 'seize' || step.kind === 'release') seizeStepProblems(context, step, base);
  if (step.kind === 'service' || step.kind === 'delay') {
    stepRef(context, step.next, `${base}/next`);
    distribution(context, step.duration, `${base}/duration`);
  }
  if (step.kind === 'service') {
    resourceRef(context, step.resource, `${base}/resource`);
    waitingProblems(context, step, base);
    if (isObject(step.batch)) batchProblems(context, step, index, step.batch);
    priorityProblems(context, step, base);
  }
  if (step.kind === 'branch') branchProblems(context, step, base);
}

function seizeStepProblems(context: Known, step: Json, base: string): void {
  const { problems } = context;
  stepRef(context, step.next, `${base}/next`);
  resourceRef(context, step.resource, `${base}/resource`);
  if (step.kind !== 'seize') return;
  const resource = context.resources.find((candidate) => isObject(candidate) && candidate.id === step.resource);
  if (isObject(resource) && resource.breakdowns !== undefined)
    problems.push({
      pointer: `${base}/resource`,
      message: `resource '${String(step.resource)}' breaks down; seizing a resource that breaks down is not supported yet`,
    });
  if (context.steps.some((other) => isObject(other) && other.kind === 'service' && other.resource === step.resource && other.preempt !== undefined)) {
    problems.push({ pointer: `${base}/resource`, message: `resource '${String(step.resource)}' has pre-emptive steps; seizing it is not supported` });
  }
  if (isObject(step.queue_limit)) queueLimitProblems(context, step.queue_limit, base);
}

/** Reneging, patience and the queue limit of a service step: how an entity stops waiting. */
function waitingProblems(context: Known, step: Json, base: string): void {
  const { problems } = context;
  if (step.renege_after !== undefined) parameter(context, step.renege_after, `${base}/renege_after`, 'time', { min: 0 });
  if (step.patience !== undefined) {
    distribution(context, step.patience, `${base}/patience`);
    if (step.renege_after !== undefined)
      problems.push({ pointer: `${base}/patience`, message: 'give either renege_after (one maximum wait) or patience (a distribution), not both' });
  }
  if (step.renege_to !== undefined) {
    stepRef(context, step.renege_to, `${base}/renege_to`);
    if (step.renege_after === undefined && step.patience === undefined)
      problems.push({ pointer: `${base}/renege_to`, message: 'renege_to needs renege_after (the maximum wait) or patience' });
  }
  if (isObject(step.queue_limit)) queueLimitProblems(context, step.queue_limit, base);
}

/** The queue limit of a service or seize step: a whole number waiting, a probability, an existing step to go to. */
function queueLimitProblems(context: Known, limit: Json, base: string): void {
  parameter(context, limit.max_waiting, `${base}/queue_limit/max_waiting`, 'count', { min: 0, integer: true });
  if (limit.balk_probability !== undefined)
    parameter(context, limit.balk_probability, `${base}/queue_limit/balk_probability`, 'probability', { min: 0, max: 1 });
  if (limit.to !== undefined) stepRef(context, limit.to, `${base}/queue_limit/to`);
}

function batchProblems(context: Known, step: Json, index: number, batch: Json): void {
  const { problems } = context;
  const base = `/steps/${index}`;
  if (typeof batch.min_size === 'number' && typeof batch.max_size === 'number' && batch.min_size > batch.max_size)
    problems.push({ pointer: `${base}/batch/min_size`, message: 'min_size must not exceed max_size' });
  const shared = context.steps.some(
    (other, otherIndex) => otherIndex !== index && isObject(other) && (other.kind === 'service' || other.kind === 'seize') && other.resource === step.resource,
  );
  if (shared)
    problems.push({
      pointer: `${base}/batch`,
      message: `resource '${String(step.resource)}' is used by other steps too; a batch-service resource serves only its batch step`,
    });
  if (step.preempt !== undefined) problems.push({ pointer: `${base}/batch`, message: 'batch service cannot pre-empt' });
  const resource = context.resources.find((candidate) => isObject(candidate) && candidate.id === step.resource);
  if (isObject(resource) && resource.breakdowns !== undefined)
    problems.push({
      pointer: `${base}/batch`,
      message: `resource '${String(step.resource)}' breaks down; batch service on a resource that breaks down is not supported yet`,
    });
}

function priorityProblems(context: Known, step: Json, base: string): void {
  const { problems } = context;
  if (step.preempt !== undefined && step.queue !== 'priority')
    problems.push({ pointer: `${base}/preempt`, message: 'pre-emption needs queue: "priority" and a priority_attribute' });
  if (step.queue === 'priority' && !isId(step.priority_attribute))
    problems.push({ pointer: `${base}/priority_attribute`, message: 'a priority queue needs priority_attribute (lower values are served first)' });
  if (!isId(step.priority_attribute)) return;
  const kinds = context.attributes.get(step.priority_attribute);
  if (!kinds) problems.push({ pointer: `${base}/priority_attribute`, message: `attribute '${step.priority_attribute}' is not assigned by any arrival` });
  else if (kinds.has('string'))
    problems.push({
      pointer: `${base}/priority_attribute`,
      message: `attribute '${step.priority_attribute}' must have numeric values to order a priority queue`,
    });
  if (step.queue !== 'priority') problems.push({ pointer: `${base}/queue`, message: "priority_attribute is set but queue is not 'priority'" });
}

function branchProblems(context: Known, step: Json, base: string): void {
  const { problems, steps, stepIndex } = context;
  const options = asArray(step.options).filter(isObject);
  for (const [optionIndex, option] of options.entries()) stepRef(context, option.next, `${base}/options/${optionIndex}/next`);
  if (step.by === 'probability') {
    probabilitySum(
      context,
      options.map((option) => option.probability),
      options.map((_, i) => `${base}/options/${i}/probability`),
      `${base}/options`,
      `branch probabilities of step '${String(step.id)}'`,
    );
  }
  if (step.by === 'shortest_queue') {
    options.forEach((option, optionIndex) => {
      const target = isId(option.next) ? steps[stepIndex.get(option.next) ?? -1] : undefined;
      if (isObject(target) && target.kind !== 'service')
        problems.push({
          pointer: `${base}/options/${optionIndex}/next`,
          message: `step '${String(option.next)}' is a ${String(target.kind)} step; join-the-shortest-queue chooses among service steps`,
        });
    });
  }
  if (step.by === 'rules') {
    stepRef(context, step.otherwise, `${base}/otherwise`);
    options.forEach((option, optionIndex) => {
      asArray(option.when).forEach((condition, conditionIndex) => {
        if (isObject(condition)) conditionProblems(context, condition, `${base}/options/${optionIndex}/when/${conditionIndex}`);
      });
    });
  }
  if (step.by === 'attribute') {
    stepRef(context, step.otherwise, `${base}/otherwise`);
    if (isId(step.attribute) && !context.attributes.has(step.attribute))
      problems.push({ pointer: `${base}/attribute`, message: `attribute '${step.attribute}' is not assigned by any arrival or assign step` });
  }
}

function conditionProblems(context: Known, condition: Json, pointer: string): void {
  const { problems } = context;
  if (isId(condition.attribute) && !context.attributes.has(condition.attribute))
    problems.push({ pointer: `${pointer}/attribute`, message: `attribute '${condition.attribute}' is not assigned by any arrival or assign step` });
  const list = Array.isArray(condition.value);
  if (condition.op === 'in' && !list) problems.push({ pointer: `${pointer}/value`, message: "'in' needs a list of values" });
  if (condition.op !== 'in' && list) problems.push({ pointer: `${pointer}/value`, message: `'${String(condition.op)}' needs one value, not a list` });
  if (['lt', 'le', 'gt', 'ge'].includes(String(condition.op)) && typeof condition.value !== 'number')
    problems.push({ pointer: `${pointer}/value`, message: `'${String(condition.op)}' compares numbers: give a number` });
}

function measureProblems(context: Known, measure: Json, base: string): void {
  const { problems } = context;
  if (measure.kind === 'time_between') {
    momentsProblems(context, measure.from, `${base}/from`);
    momentsProblems(context, measure.to, `${base}/to`);
  }
  if (measure.kind === 'count') {
    momentsProblems(context, measure.event, `${base}/event`);
    const expected: Record<string, string> = { replication: 'count', arrival: 'count_per_arrival', day: 'count_per_day' };
    if (typeof measure.denominator === 'string' && typeof measure.unit === 'string' && expected[measure.denominator] !== measure.unit) {
      problems.push({
        pointer: `${base}/unit`,
        message: `unit '${measure.unit}' does not match denominator '${measure.denominator}' (expected '${expected[measure.denominator]}')`,
      });
    }
  }
  if (measure.kind === 'utilisation' || measure.kind === 'queue_length') resourceRef(context, measure.resource, `${base}/resource`);
  if (isObject(measure.window) && typeof measure.window.start === 'number' && typeof measure.window.end === 'number') {
    const horizon = typeof context.world.horizon === 'number' ? context.world.horizon : Number.POSITIVE_INFINITY;
    if (!(measure.window.end > measure.window.start)) problems.push({ pointer: `${base}/window`, message: 'window end must be after its start' });
    if (measure.window.end > horizon) problems.push({ pointer: `${base}/window/end`, message: `window ends after the horizon (${horizon})` });
  }
}

// A list of moments (a stream): each is checked at its own pointer, and one listed twice is named.
function momentsProblems(context: Known, refs: unknown, pointer: string): void {
  if (!Array.isArray(refs)) {
    momentProblems(context, refs, pointer);
    return;
  }
  const seen = new Set<string>();
  refs.forEach((ref, k) => {
    momentProblems(context, ref, `${pointer}/${k}`);
    if (!isObject(ref)) return;
    const key = `${String(ref.step)}:${String(ref.at)}`;
    if (seen.has(key))
      context.problems.push({ pointer: `${pointer}/${k}`, message: `lists step '${String(ref.step)}' at '${String(ref.at)}' twice; list each moment once` });
    seen.add(key);
  });
}

function momentProblems(context: Known, ref: unknown, pointer: string): void {
  const { problems } = context;
  if (!isObject(ref) || !isId(ref.step)) return;
  const at = context.stepIndex.get(ref.step);
  if (at === undefined) {
    problems.push({ pointer: `${pointer}/step`, message: `refers to step '${ref.step}', which does not exist` });
    return;
  }
  const target = context.steps[at] as Json;
  const allowed = MOMENTS_BY_KIND[String(target.kind)] ?? [];
  if (typeof ref.at === 'string' && !allowed.includes(ref.at))
    problems.push({ pointer: `${pointer}/at`, message: `a ${String(target.kind)} step has no '${ref.at}' moment (allowed: ${allowed.join(', ')})` });
  if (ref.at === 'renege' && target.renege_after === undefined && target.patience === undefined)
    problems.push({ pointer: `${pointer}/at`, message: `step '${ref.step}' has no renege_after, so nobody reneges there` });
  if (ref.at === 'turned_away' && target.queue_limit === undefined)
    problems.push({ pointer: `${pointer}/at`, message: `step '${ref.step}' has no queue_limit, so nobody is turned away there` });
}

// Variants: one baseline, at least one treatment, changes name existing settings in range.
function variantProblems({ world, variants, settings, problems }: Known): void {
  const baselines = variants.filter((variant) => variant.role === 'baseline');
  if (Array.isArray(world.variants) && baselines.length !== 1)
    problems.push({ pointer: '/variants', message: `exactly one variant must have role 'baseline' (found ${baselines.length})` });
  if (Array.isArray(world.variants) && !variants.some((variant) => variant.role === 'treatment'))
    problems.push({ pointer: '/variants', message: "at least one variant must have role 'treatment'" });
  asArray(world.variants).forEach((variant, index) => {
    if (!isObject(variant)) return;
    const seen = new Set<string>();
    asArray(variant.changes).forEach((change, changeIndex) => {
      if (!isObject(change) || !isId(change.setting)) return;
      const pointer = `/variants/${index}/changes/${changeIndex}`;
      if (seen.has(change.setting)) problems.push({ pointer: `${pointer}/setting`, message: `setting '${change.setting}' is changed twice in this variant` });
      seen.add(change.setting);
      const setting = settings[change.setting];
      if (!isObject(setting)) problems.push({ pointer: `${pointer}/setting`, message: `refers to setting '${change.setting}', which does not exist` });
      else if (typeof change.value === 'number' && typeof setting.unit === 'string') {
        const dimension = dimensionOf(setting.unit);
        if (dimension === 'probability' && (change.value < 0 || change.value > 1))
          problems.push({ pointer: `${pointer}/value`, message: 'a probability must be between 0 and 1' });
        if (dimension !== null && dimension !== 'currency' && change.value < 0) problems.push({ pointer: `${pointer}/value`, message: 'must not be negative' });
      }
    });
  });
}

function resourceProblems(context: Known, resource: Json, base: string): void {
  const { problems } = context;
  parameter(context, resource.capacity, `${base}/capacity`, 'count', { min: 0, integer: true });
  asArray(resource.shifts).forEach((shift, shiftIndex) => {
    if (!isObject(shift)) return;
    const pointer = `${base}/shifts/${shiftIndex}`;
    parameter(context, shift.capacity, `${pointer}/capacity`, 'count', { min: 0, integer: true });
    if (typeof shift.start_hour === 'number' && typeof shift.end_hour === 'number' && !(shift.end_hour > shift.start_hour))
      problems.push({ pointer: `${pointer}/end_hour`, message: 'end_hour must be after start_hour' });
    for (const key of ['start_hour', 'end_hour'] as const) {
      const hour = shift[key];
      if (typeof hour === 'number' && Math.abs(hour * 60 - Math.round(hour * 60)) > 1e-6)
        problems.push({
          pointer: `${pointer}/${key}`,
          message: `${hour} is not a whole minute: shift boundaries are in whole minutes (e.g. 8.5 = 08:30, 17.25 = 17:15)`,
        });
    }
  });
  if (isObject(resource.breakdowns)) {
    const pointer = `${base}/breakdowns`;
    distribution(context, resource.breakdowns.time_to_failure, `${pointer}/time_to_failure`);
    distribution(context, resource.breakdowns.repair, `${pointer}/repair`);
    const failure = resource.breakdowns.time_to_failure;
    if (isObject(failure) && failure.dist === 'fixed' && failure.value === 0)
      problems.push({ pointer: `${pointer}/time_to_failure/value`, message: 'must be greater than 0: the servers would never work' });
    if (resource.shifts !== undefined)
      problems.push({ pointer, message: 'breakdowns are not supported on a resource with shifts yet: give a constant capacity' });
  }
}

function costProblems({ variants, measureKinds, problems }: Known, cost: Json): void {
  asArray(cost.rates).forEach((rate, index) => {
    if (!isObject(rate)) return;
    const pointer = `/cost_scenarios/rates/${index}`;
    if (isId(rate.measure)) {
      const kind = measureKinds.get(rate.measure);
      if (kind === undefined) problems.push({ pointer: `${pointer}/measure`, message: `refers to measure '${rate.measure}', which does not exist` });
      else {
        const per = typeof rate.per === 'string' ? rate.per : 'event';
        const needs = PRICED_MEASURE_KIND[per];
        if (needs !== undefined && kind !== needs)
          problems.push({
            pointer: `${pointer}/measure`,
            message: `measure '${rate.measure}' is a ${kind} measure; a rate per ${per} prices a ${needs} measure`,
          });
      }
    }
    lowBaseHigh(rate, pointer, problems);
  });
  const variantIds = new Set(variants.map((variant) => variant.id));
  asArray(cost.additional_costs).forEach((extra, index) => {
    if (!isObject(extra)) return;
    const pointer = `/cost_scenarios/additional_costs/${index}`;
    asArray(extra.variants).forEach((id, variantIndex) => {
      if (isId(id) && !variantIds.has(id))
        problems.push({ pointer: `${pointer}/variants/${variantIndex}`, message: `refers to variant '${id}', which does not exist` });
    });
    lowBaseHigh(extra, pointer, problems);
  });
}

/** The measure kind each kind of cost rate prices (spec: WorldSpec and run, cost_scenarios). */
const PRICED_MEASURE_KIND: Record<string, string> = { event: 'count', capacity_hour: 'utilisation', busy_hour: 'utilisation', entity_hour: 'time_between' };

function lowBaseHigh(item: Json, pointer: string, problems: Problem[]): void {
  const { low, base, high } = item;
  if (typeof low === 'number' && typeof base === 'number' && low > base) problems.push({ pointer: `${pointer}/low`, message: 'low must not exceed base' });
  if (typeof base === 'number' && typeof high === 'number' && base > high)
    problems.push({ pointer: `${pointer}/high`, message: 'high must not be below base' });
}

function checkDuplicateIds(items: unknown[], base: string, noun: string, problems: Problem[]): void {
  const seen = new Set<string>();
  items.forEach((item, index) => {
    if (!isObject(item) || !isId(item.id)) return;
    if (seen.has(item.id)) problems.push({ pointer: `${base}/${index}/id`, message: `duplicate ${noun} id '${item.id}'` });
    seen.add(item.id);
  });
}

type Range = { min?: number; max?: number; integer?: boolean; positive?: boolean };

/**
 * Checks one parameter: the setting exists and its unit fits the expected dimension, and the value (baseline and
 * under every variant that changes it) is in range. Returns the baseline value in world units, or null.
 */
function parameter(context: Context, value: unknown, pointer: string, dimension: Dimension, range: Range): number | null {
  const { problems, settings } = context;
  if (typeof value === 'number') {
    checkRange(value, pointer, range, problems, '');
    return value;
  }
  if (!isObject(value) || !isId(value.setting)) return null;
  const setting = settings[value.setting];
  if (!isObject(setting)) {
    problems.push({ pointer: `${pointer}/setting`, message: `refers to setting '${value.setting}', which does not exist` });
    return null;
  }
  if (typeof setting.unit !== 'string' || typeof setting.value !== 'number') return null;
  const actual = dimensionOf(setting.unit);
  if (actual !== null && actual !== dimension) {
    problems.push({
      pointer: `${pointer}/setting`,
      message: `unit mismatch: setting '${value.setting}' is in '${setting.unit}' but this field needs ${DIMENSION_WORDS[dimension]}`,
    });
    return null;
  }
  if (actual === null) return null;
  const world = toWorldUnit(setting.value, setting.unit, context.timeUnit as 'minutes');
  checkRange(world, pointer, range, problems, ` (setting '${value.setting}')`);
  context.variants.forEach((variant, variantIndex) => {
    asArray(variant.changes).forEach((change, changeIndex) => {
      if (isObject(change) && change.setting === value.setting && typeof change.value === 'number') {
        checkRange(
          toWorldUnit(change.value, setting.unit as string, context.timeUnit as 'minutes'),
          `/variants/${variantIndex}/changes/${changeIndex}/value`,
          range,
          problems,
          ` (used at ${pointer})`,
        );
      }
    });
  });
  return world;
}

function checkRange(value: number, pointer: string, range: Range, problems: Problem[], suffix: string): void {
  if (range.min !== undefined && value < range.min) problems.push({ pointer, message: `must be at least ${range.min}${suffix}` });
  if (range.positive && value <= 0) problems.push({ pointer, message: `must be greater than 0${suffix}` });
  if (range.max !== undefined && value > range.max) problems.push({ pointer, message: `must be at most ${range.max}${suffix}` });
  if (range.integer && !Number.isInteger(value)) problems.push({ pointer, message: `must be a whole number${suffix}` });
}

function distribution(context: Context, value: unknown, pointer: string): void {
  if (!isObject(value)) return;
  const time = (key: string, range: Range = { min: 0 }) => parameter(context, value[key], `${pointer}/${key}`, 'time', range);
  switch (value.dist) {
    case 'fixed':
      time('value');
      break;
    case 'exponential':
      time('mean', { positive: true });
      break;
    case 'uniform': {
      const min = time('min');
      const max = time('max');
      if (min !== null && max !== null && min > max) context.problems.push({ pointer: `${pointer}/max`, message: 'max must not be below min' });
      break;
    }
    case 'triangular': {
      const min = time('min');
      const mode = time('mode');
      const max = time('max');
      if (min !== null && mode !== null && max !== null && !(min <= mode && mode <= max && min < max))
        context.problems.push({ pointer: `${pointer}/mode`, message: 'needs min <= mode <= max and min < max' });
      break;
    }
    case 'lognormal':
      time('mean', { positive: true });
      time('sd');
      break;
    case 'normal': {
      const mean = time('mean', { min: Number.NEGATIVE_INFINITY });
      const sd = time('sd');
      const min = value.min === undefined ? 0 : time('min');
      const max = value.max === undefined ? Number.POSITIVE_INFINITY : time('max', { positive: true });
      if (min !== null && max !== null && !(min < max))
        context.problems.push({ pointer: `${pointer}/max`, message: `max (${max}) must be above min (${min}); for a fixed duration use {"dist": "fixed"}` });
      else if (
        value.bounds !== 'clamp' &&
        mean !== null &&
        sd !== null &&
        sd > 0 &&
        min !== null &&
        max !== null &&
        normalCdf((max - mean) / sd) - normalCdf((min - mean) / sd) < 1e-9
      ) {
        context.problems.push({
          pointer: `${pointer}/mean`,
          message: `a normal with mean ${mean} and sd ${sd} has almost no probability between min ${min} and max ${max}: truncation would draw nothing sensible; move the mean or the bounds, or use "bounds": "clamp"`,
        });
      }
      break;
    }
    case 'gamma':
      parameter(context, value.shape, `${pointer}/shape`, 'dimensionless', { positive: true });
      time('scale', { positive: true });
      break;
    case 'empirical':
      if (Array.isArray(value.weights) && Array.isArray(value.values) && value.weights.length !== value.values.length) {
        context.problems.push({ pointer: `${pointer}/weights`, message: `needs one weight per value (${value.values.length})` });
      }
      if (Array.isArray(value.weights) && value.weights.every((weight) => weight === 0))
        context.problems.push({ pointer: `${pointer}/weights`, message: 'at least one weight must be positive' });
      break;
  }
}

/** Probabilities must sum to 1 in the baseline and under every variant (spec: validate, "branch probabilities not summing to 1"). */
function probabilitySum(context: Context, values: unknown[], pointers: string[], pointer: string, what: string): void {
  const baseline: (number | null)[] = values.map((value, index) => parameter(context, value, pointers[index]!, 'probability', { min: 0, max: 1 }));
  if (baseline.some((value) => value === null)) return;
  const sum = (numbers: number[]) => numbers.reduce((total, value) => total + value, 0);
  const total = sum(baseline as number[]);
  if (Math.abs(total - 1) > PROBABILITY_SUM_TOLERANCE) context.problems.push({ pointer, message: `${what} sum to ${round(total)}, not 1` });
  context.variants.forEach((variant, variantIndex) => {
    const changes = asArray(variant.changes).filter(isObject);
    const changed = values.map((value, index) => {
      if (isObject(value) && isId(value.setting)) {
        const change = changes.find((candidate) => candidate.setting === value.setting);
        if (change && typeof change.value === 'number') return change.value;
      }
      return baseline[index]!;
    });
    const variantTotal = sum(changed);
    if (Math.abs(variantTotal - total) > 0 && Math.abs(variantTotal - 1) > PROBABILITY_SUM_TOLERANCE) {
      context.problems.push({
        pointer: `/variants/${variantIndex}/changes`,
        message: `under variant '${String(variant.id)}' the ${what} sum to ${round(variantTotal)}, not 1`,
      });
    }
  });
}

function round(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}

function successors(step: Json): { next: unknown; pointer: string }[] {
  const out: { next: unknown; pointer: string }[] = [];
  if (step.kind === 'service' || step.kind === 'delay' || step.kind === 'assign' || step.kind === 'seize' || step.kind === 'release')
    out.push({ next: step.next, pointer: 'next' });
  if (step.kind === 'service' && step.renege_to !== undefined) out.push({ next: step.renege_to, pointer: 'renege_to' });
  if ((step.kind === 'service' || step.kind === 'seize') && isObject(step.queue_limit) && step.queue_limit.to !== undefined)
    out.push({ next: step.queue_limit.to, pointer: 'queue_limit/to' });
  if (step.kind === 'branch') {
    asArray(step.options).forEach((option, index) => {
      if (isObject(option)) out.push({ next: option.next, pointer: `options/${index}/next` });
    });
    if (step.by === 'attribute' || step.by === 'rules') out.push({ next: step.otherwise, pointer: 'otherwise' });
  }
  return out;
}

/** A step an entity can leave the system from: an exit, or a service or seize whose reneging or turned-away entities leave. */
function leavesFrom(step: Json): boolean {
  if (step.kind === 'exit') return true;
  const balks = isObject(step.queue_limit) && step.queue_limit.to === undefined;
  if (step.kind === 'seize') return balks;
  if (step.kind !== 'service') return false;
  const reneges = (step.renege_after !== undefined || step.patience !== undefined) && step.renege_to === undefined;
  return reneges || balks;
}

/**
 * Seize and release pair up on every path: from a seize of R, no path reaches a way out of the system before a release
 * of R (the unit would be held forever); from an arrival, no path reaches a release of R before a seize of R. An
 * entity a seize of R turns away (its queue_limit) goes on without R: the walk for R follows only that way from it.
 */
function seizeRelease(world: Json, steps: unknown[], stepIndex: Map<string, number>, problems: Problem[]): void {
  const walk = (starts: number[], stopAt: (step: Json) => boolean, found: (step: Json) => boolean): boolean => {
    const seen = new Set<number>(starts);
    const queue = [...starts];
    while (queue.length > 0) {
      const step = steps[queue.shift()!];
      if (!isObject(step)) continue;
      const stops = stopAt(step);
      if (!stops && found(step)) return true;
      const ways = stops ? successors(step).filter(({ pointer }) => pointer === 'queue_limit/to' && step.kind === 'seize') : successors(step);
      for (const { next } of ways) {
        const index = isId(next) ? stepIndex.get(next) : undefined;
        if (index !== undefined && !seen.has(index)) {
          seen.add(index);
          queue.push(index);
        }
      }
    }
    return false;
  };
  const arrivalStarts = asArray(world.arrivals).flatMap((arrival) =>
    isObject(arrival) && isId(arrival.to_step) && stepIndex.has(arrival.to_step) ? [stepIndex.get(arrival.to_step)!] : [],
  );
  steps.forEach((step, index) => {
    if (!isObject(step) || !isId(step.resource)) return;
    const holds = (other: Json, kind: string) => other.kind === kind && other.resource === step.resource;
    if (step.kind === 'seize' && isId(step.next) && stepIndex.has(step.next)) {
      if (walk([stepIndex.get(step.next)!], (other) => holds(other, 'release'), leavesFrom))
        problems.push({
          pointer: `/steps/${index}`,
          message: `an entity that seizes '${step.resource}' here can leave the system before a release of '${step.resource}'`,
        });
    }
    if (step.kind === 'release' && index === steps.findIndex((other) => isObject(other) && holds(other, 'release'))) {
      if (
        walk(
          arrivalStarts,
          (other) => holds(other, 'seize'),
          (other) => holds(other, 'release'),
        )
      )
        problems.push({ pointer: `/steps/${index}`, message: `an entity can reach a release of '${step.resource}' without having seized it` });
    }
  });
}

function reachability(world: Json, steps: unknown[], stepIndex: Map<string, number>, problems: Problem[]): void {
  const reached = new Set<number>();
  const queue: number[] = [];
  for (const arrival of asArray(world.arrivals)) {
    if (isObject(arrival) && isId(arrival.to_step)) {
      const index = stepIndex.get(arrival.to_step);
      if (index !== undefined && !reached.has(index)) {
        reached.add(index);
        queue.push(index);
      }
    }
  }
  while (queue.length > 0) {
    const step = steps[queue.shift()!];
    if (!isObject(step)) continue;
    for (const { next } of successors(step)) {
      const index = isId(next) ? stepIndex.get(next) : undefined;
      if (index !== undefined && !reached.has(index)) {
        reached.add(index);
        queue.push(index);
      }
    }
  }
  steps.forEach((step, index) => {
    if (isObject(step) && isId(step.id) && stepIndex.get(step.id) === index && !reached.has(index)) {
      problems.push({ pointer: `/steps/${index}`, message: `step '${step.id}' is unreachable: no arrival or step leads to it` });
    }
  });
  // Every reachable step must be able to reach an exit; otherwise entities would circulate forever.
  const exits = new Set<number>();
  steps.forEach((step, index) => {
    if (isObject(step) && step.kind === 'exit') exits.add(index);
  });
  if (steps.length > 0 && exits.size === 0) problems.push({ pointer: '/steps', message: "the pathway has no 'exit' step" });
  const canExit = new Set<number>(exits);
  let changed = true;
  while (changed) {
    changed = false;
    steps.forEach((step, index) => {
      if (canExit.has(index) || !isObject(step)) return;
      if (successors(step).some(({ next }) => isId(next) && canExit.has(stepIndex.get(next) ?? -1))) {
        canExit.add(index);
        changed = true;
      }
    });
  }
  if (exits.size > 0) {
    for (const index of reached) {
      const step = steps[index];
      if (!canExit.has(index) && isObject(step)) problems.push({ pointer: `/steps/${index}`, message: `step '${String(step.id)}' never leads to an exit` });
    }
  }
}
