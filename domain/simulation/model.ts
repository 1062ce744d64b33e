// Compiles a valid WorldSpec and one variant into flat numbers the engine can run fast: parameters resolved
// (settings changed by the variant applied, units converted to the world time unit), ids turned into indices.
import { ServiceError } from '../errors.ts';
import type { Arrival, BatchSizes, Distribution, Parameter, QueueLimit, Shift, Step, StepRefs, WorldSpec } from '../contracts/worldSpec.ts';
import { boundedNormal, boundedNormalMoments } from './normal.ts';
import { toWorldUnit, unitsPerHour } from './units.ts';

export const STEP_SERVICE = 0;
export const STEP_DELAY = 1;
export const STEP_BRANCH_PROBABILITY = 2;
export const STEP_BRANCH_ATTRIBUTE = 3;
export const STEP_EXIT = 4;
export const STEP_BRANCH_SHORTEST_QUEUE = 5;
export const STEP_BRANCH_RULES = 6;
export const STEP_ASSIGN = 7;
export const STEP_SEIZE = 8;
export const STEP_RELEASE = 9;

export const OP_EQ = 0;
export const OP_NE = 1;
export const OP_LT = 2;
export const OP_LE = 3;
export const OP_GT = 4;
export const OP_GE = 5;
export const OP_IN = 6;
const OPS = ['eq', 'ne', 'lt', 'le', 'gt', 'ge', 'in'];

/** One condition of a rule: attribute index, OP_* and the value code (or the codes of an `in` list). */
export type CompiledCondition = { attribute: number; op: number; value: number; values: Float64Array | null };

export const DIST_FIXED = 0;
export const DIST_EXPONENTIAL = 1;
export const DIST_UNIFORM = 2;
export const DIST_TRIANGULAR = 3;
export const DIST_LOGNORMAL = 4;
export const DIST_GAMMA = 5;
export const DIST_EMPIRICAL = 6;
export const DIST_NORMAL = 7;

export const MOMENT_ENTER = 0;
export const MOMENT_START = 1;
export const MOMENT_END = 2;
export const MOMENT_RENEGE = 3;
/** a service or seize step's queue_limit turned the entity away */
export const MOMENT_TURNED_AWAY = 4;
export const MOMENTS = ['enter', 'start', 'end', 'renege', 'turned_away'] as const;
/** hook points per step: a (step, moment) is point step * MOMENT_STRIDE + moment */
export const MOMENT_STRIDE = MOMENTS.length;

export const HOOK_COUNT = 0;
export const HOOK_FROM = 1;
export const HOOK_TO = 2;

export const ARRIVAL_POISSON = 0;
export const ARRIVAL_SCHEDULED = 1;
export const ARRIVAL_RATE_TABLE = 2;
export const ARRIVAL_RENEWAL = 3;

export const HOURS_PER_WEEK = 168;
/** a year for discounting and per-year costs */
export const DAYS_PER_YEAR = 365.25;

export const PREEMPT_NONE = 0;
export const PREEMPT_RESUME = 1;
export const PREEMPT_RESTART = 2;

export type CompiledDistribution = {
  kind: number;
  /** fixed: value; exponential: mean; uniform: min; triangular: min; lognormal: mu (log scale); gamma: shape */
  a: number;
  /** uniform: max; triangular: mode; lognormal: sigma (log scale); gamma: scale */
  b: number;
  /** triangular: max */
  c: number;
  /** empirical: cumulative weights (last = 1) and their values; normal: the bounded normal's parameters (normal.ts) */
  cumulative: Float64Array | null;
  values: Float64Array | null;
  /** expected value in world time units, for the estimate */
  mean: number;
};

export type CompiledStep = {
  id: string;
  kind: number;
  next: number;
  resource: number;
  duration: CompiledDistribution | null;
  priorityAttribute: number;
  renegeAfter: number;
  /** step index after reneging, or -1: the entity leaves the system */
  renegeTo: number;
  /** patience drawn per queued visit (Erlang-A with exponential patience); null: renegeAfter (or none) */
  patience: CompiledDistribution | null;
  /** queue_limit (service or seize): balk when this many or more wait (Infinity: no limit), with this probability, to this step (-1: leave) */
  maxWaiting: number;
  /** batch service: up to batchMax entities per service, starting once batchMin wait (batchMax 0: not batched) */
  batchMax: number;
  batchMin: number;
  balkProbability: number;
  balkTo: number;
  /** PREEMPT_NONE, PREEMPT_RESUME or PREEMPT_RESTART */
  preempt: number;
  branchCumulative: Float64Array | null;
  branchNext: Int32Array | null;
  attribute: number;
  equals: Float64Array | null;
  otherwise: number;
  /** shortest_queue: the resource of each option's service step */
  routeResources: Int32Array | null;
  /** rules: the conditions of each option (all must hold) */
  rules: CompiledCondition[][] | null;
};

export type CompiledArrival = {
  id: string;
  kind: number;
  toStep: number;
  /** poisson: arrivals per world time unit */
  rate: number;
  /** scheduled: sorted times within the period; period (Infinity when not repeating); batch size */
  times: Float64Array | null;
  period: number;
  batchSize: number;
  /** rate table: arrivals per world time unit for each hour of the week from time 0 (Monday 00:00 first unless the table starts elsewhere) */
  ratesByHour: Float64Array | null;
  /** rate table with a trend or holidays (else null): compound growth per world time unit, weekday row of each holiday */
  calendar: { growthPerUnit: number; holidays: Map<number, number>; offsetHours: number } | null;
  /** renewal: the interarrival time */
  interarrival: CompiledDistribution | null;
  /** poisson and renewal with batch_sizes: cumulative weights and sizes (null: one per arrival event); their mean */
  batchCumulative: Float64Array | null;
  batchValues: Float64Array | null;
  batchMean: number;
  attributes: { attribute: number; cumulative: Float64Array; codes: Float64Array; source: string }[];
};

export type CompiledResource = {
  id: string;
  /** mean capacity in each hour of the week (for the estimate), or null when constant */
  capacityByHour: Float64Array | null;
  /** capacity in each slot of the week (slotsPerHour slots an hour: 1, or 60 when a shift starts or ends between whole hours) */
  capacityBySlot: Int32Array | null;
  slotsPerHour: number;
  capacity: number;
  usesPriority: boolean;
  /** some step at this resource pre-empts, or it breaks down: the engine keeps the list of entities in service */
  preemptive: boolean;
  /** the batch service step that alone uses this resource (-1: none) */
  batchStep: number;
  /** breakdowns: null when the resource never fails */
  breakdowns: CompiledBreakdowns | null;
};

export const CLOCK_CALENDAR = 0;
export const CLOCK_BUSY = 1;

export type CompiledBreakdowns = {
  timeToFailure: CompiledDistribution;
  repair: CompiledDistribution;
  /** CLOCK_CALENDAR: elapsed time counts; CLOCK_BUSY: only time serving counts */
  clock: number;
  /** PREEMPT_RESUME or PREEMPT_RESTART for the entity whose server fails */
  interrupted: number;
};

export const MEASURE_TIME_BETWEEN = 0;
export const MEASURE_COUNT = 1;
export const MEASURE_UTILISATION = 2;
export const MEASURE_QUEUE_LENGTH = 3;

export type CompiledMeasure = {
  id: string;
  kind: number;
  windowStart: number;
  windowEnd: number;
  resource: number;
  /** time_between: slot in the per-entity mark table */
  markSlot: number;
  censorAtHorizon: boolean;
  /** factor from world time units to the measure's unit (time_between) */
  timeFactor: number;
  denominator: string;
  /** time_between: entity-level quantiles asked for (empty: no sketch is kept) */
  percentiles: number[];
  /** time_between: count entities whose time exceeds this (measure units); Infinity when not asked for */
  threshold: number;
  /** a cost rate prices this measure: the replication reports the priced quantities (events, resource-hours, entity-hours) */
  priced: boolean;
};

export type CompiledModel = {
  world: WorldSpec;
  variantId: string;
  variantIndex: number;
  seed: number;
  horizon: number;
  warmUp: number;
  unitsPerHour: number;
  steps: CompiledStep[];
  arrivals: CompiledArrival[];
  resources: CompiledResource[];
  attributeNames: string[];
  /** attribute name -> string value -> numeric code (numbers keep their own value) */
  attributeCodes: Map<string, Map<string, number>>;
  measures: CompiledMeasure[];
  markSlots: number;
  /** cost discounting: ln(1 + annual rate) per world time unit (0: none), from the origin (the warm-up) */
  discountPerUnit: number;
  discountOrigin: number;
  /** hooks[step * MOMENT_STRIDE + moment] = measure * 4 + role (HOOK_COUNT, HOOK_FROM, HOOK_TO) for each measure touched at that moment */
  hooks: Int32Array[];
};

function fail(message: string): never {
  throw new ServiceError('VALIDATION_FAILED', message, [{ path: '', message }]);
}

/** Setting values under a variant: the baseline values with the variant's changes applied. */
export function settingValues(world: WorldSpec, variantId: string): Map<string, { value: number; unit: string }> {
  const variant = world.variants.find((candidate) => candidate.id === variantId);
  if (!variant) fail(`variant '${variantId}' does not exist in this world`);
  const values = new Map<string, { value: number; unit: string }>();
  for (const [name, setting] of Object.entries(world.settings)) values.set(name, { value: setting.value, unit: setting.unit });
  for (const change of variant.changes) {
    const setting = values.get(change.setting);
    if (setting) values.set(change.setting, { value: change.value, unit: setting.unit });
  }
  return values;
}

/**
 * The world as a variant runs it: the baseline steps with the variant's structure applied (removed steps dropped,
 * replaced steps swapped in place, added steps appended). A variant without structure runs the world as written.
 */
export function worldForVariant(world: WorldSpec, variantId: string): WorldSpec {
  const structure = world.variants.find((variant) => variant.id === variantId)?.structure;
  if (!structure) return world;
  const replaced = new Map((structure.replace_steps ?? []).map((step) => [step.id, step]));
  const removed = new Set(structure.remove_steps ?? []);
  const steps = world.steps.filter((step) => !removed.has(step.id)).map((step) => replaced.get(step.id) ?? step);
  return { ...world, steps: [...steps, ...(structure.add_steps ?? [])] };
}

/** What compiling every part needs: parameters resolved under the variant, ids turned into indices, attribute codes. */
type Compiler = {
  world: WorldSpec;
  /** a parameter in world time units */
  resolve: (parameter: Parameter) => number;
  /** a dimensionless setting (fraction) as it is: no time conversion */
  resolveRatio: (parameter: Parameter) => number;
  stepOf: (id: string) => number;
  resourceOf: (id: string) => number;
  attributeOf: (name: string) => number;
  codeOf: (name: string, value: string | number) => number;
  attributeNames: string[];
  attributeCodes: Map<string, Map<string, number>>;
};

function compiler(world: WorldSpec, variantId: string): Compiler {
  const values = settingValues(world, variantId);
  const resolve = (parameter: Parameter): number => {
    if (typeof parameter === 'number') return parameter;
    const setting = values.get(parameter.setting);
    if (!setting) fail(`setting '${parameter.setting}' does not exist`);
    return toWorldUnit(setting.value, setting.unit, world.time_unit);
  };
  const resolveRatio = (parameter: Parameter): number =>
    typeof parameter === 'number' ? parameter : (values.get(parameter.setting)?.value ?? fail(`setting '${parameter.setting}' does not exist`));
  const stepIndex = new Map(world.steps.map((step, index) => [step.id, index]));
  const resourceIndex = new Map(world.resources.map((resource, index) => [resource.id, index]));
  const attributeNames: string[] = [];
  const attributeCodes = new Map<string, Map<string, number>>();
  const attributeOf = (name: string): number => {
    let index = attributeNames.indexOf(name);
    if (index < 0) {
      index = attributeNames.push(name) - 1;
      attributeCodes.set(name, new Map());
    }
    return index;
  };
  const codeOf = (name: string, value: string | number): number => {
    if (typeof value === 'number') return value;
    const codes = attributeCodes.get(name)!;
    let code = codes.get(value);
    // Strings get negative codes so they never collide with numeric attribute values used for priority.
    if (code === undefined) {
      code = -1 - codes.size;
      codes.set(value, code);
    }
    return code;
  };
  return {
    world,
    resolve,
    resolveRatio,
    stepOf: (id) => stepIndex.get(id) ?? fail(`step '${id}' does not exist`),
    resourceOf: (id) => resourceIndex.get(id) ?? fail(`resource '${id}' does not exist`),
    attributeOf,
    codeOf,
    attributeNames,
    attributeCodes,
  };
}

/**
 * Compiles a WorldSpec under one variant. The parts compile in a fixed order (arrivals, resources, steps, measures)
 * because attribute codes are handed out in the order they are first met, and the engine's draws depend on them.
 */
export function compileModel(written: WorldSpec, variantId: string): CompiledModel {
  const variantIndex = written.variants.findIndex((variant) => variant.id === variantId);
  if (variantIndex < 0) fail(`variant '${variantId}' does not exist in this world`);
  const world = worldForVariant(written, variantId);
  const parts = compiler(world, variantId);
  const arrivals = world.arrivals.map((arrival) => compileArrival(parts, arrival));
  // Branches by attribute may name values no arrival assigns; they still need codes.
  for (const step of world.steps) if ((step.kind === 'branch' && step.by === 'attribute') || step.kind === 'assign') parts.attributeOf(step.attribute);
  const resources = compileResources(parts);
  const steps = world.steps.map((step) => compileStep(parts, step));
  const { measures, markSlots, hooks } = compileMeasures(parts);
  return {
    world,
    variantId,
    variantIndex,
    seed: world.seed,
    horizon: world.horizon,
    warmUp: world.warm_up,
    unitsPerHour: unitsPerHour(world.time_unit),
    steps,
    arrivals,
    resources,
    attributeNames: parts.attributeNames,
    attributeCodes: parts.attributeCodes,
    measures,
    markSlots,
    discountPerUnit:
      (world.cost_scenarios?.discount_rate_annual ?? 0) > 0
        ? Math.log(1 + world.cost_scenarios!.discount_rate_annual!) / (DAYS_PER_YEAR * 24 * unitsPerHour(world.time_unit))
        : 0,
    discountOrigin: world.warm_up,
    hooks,
  };
}

function compileArrival(parts: Compiler, arrival: Arrival): CompiledArrival {
  const { resolve } = parts;
  const attributes = (arrival.attributes ?? []).map((assignment) => {
    const attribute = parts.attributeOf(assignment.name);
    const cumulative = cumulate(assignment.values.map((value) => resolve(value.probability)));
    const codes = Float64Array.from(assignment.values.map((value) => parts.codeOf(assignment.name, value.value)));
    return { attribute, cumulative, codes, source: `arrival:${arrival.id}:attribute:${assignment.name}` };
  });
  const base = {
    id: arrival.id,
    toStep: parts.stepOf(arrival.to_step),
    rate: 0,
    times: null,
    period: Number.POSITIVE_INFINITY,
    batchSize: 1,
    ratesByHour: null,
    attributes,
    interarrival: null,
    batchCumulative: null,
    batchValues: null,
    batchMean: 1,
    calendar: null,
  };
  if (arrival.kind === 'poisson' || arrival.kind === 'renewal') {
    const batches = arrival.batch_sizes ? compileBatchSizes(arrival.batch_sizes) : {};
    if (arrival.kind === 'poisson') return { ...base, ...batches, kind: ARRIVAL_POISSON, rate: resolve(arrival.rate) };
    return { ...base, ...batches, kind: ARRIVAL_RENEWAL, interarrival: compileDistribution(arrival.interarrival, resolve) };
  }
  if (arrival.kind === 'scheduled') {
    return {
      ...base,
      kind: ARRIVAL_SCHEDULED,
      times: Float64Array.from(arrival.times).sort(),
      period: arrival.period ?? Number.POSITIVE_INFINITY,
      batchSize: arrival.batch_size ?? 1,
    };
  }
  return { ...base, kind: ARRIVAL_RATE_TABLE, ...compileRateTable(parts, arrival) };
}

function compileBatchSizes(sizes: BatchSizes): { batchCumulative: Float64Array; batchValues: Float64Array; batchMean: number } {
  const weights = sizes.weights ?? sizes.values.map(() => 1);
  const total = weights.reduce((sum, weight) => sum + weight, 0) || 1;
  const batchMean = sizes.values.reduce((sum, value, index) => sum + value * (weights[index] ?? 0), 0) / total;
  return { batchCumulative: cumulate(weights), batchValues: Float64Array.from(sizes.values), batchMean };
}

function compileRateTable(parts: Compiler, arrival: Extract<Arrival, { kind: 'rate_table' }>): Pick<CompiledArrival, 'ratesByHour' | 'calendar'> {
  const scale = arrival.scale === undefined ? 1 : parts.resolve(arrival.scale);
  const perUnit = unitsPerHour(parts.world.time_unit);
  // Indexed by the hour since time 0: a table starting elsewhere than Monday 00:00 is rotated, a one-day row repeated.
  const offsetHours = (arrival.start?.weekday ?? 0) * 24 + (arrival.start?.hour ?? 0);
  const rows = arrival.rates_per_hour.length === 1 ? [0, 0, 0, 0, 0, 0, 0] : [0, 1, 2, 3, 4, 5, 6];
  const ratesByHour = new Float64Array(HOURS_PER_WEEK);
  for (let day = 0; day < 7; day++) {
    for (let hour = 0; hour < 24; hour++)
      ratesByHour[(day * 24 + hour - offsetHours + HOURS_PER_WEEK) % HOURS_PER_WEEK] = ((arrival.rates_per_hour[rows[day]!]?.[hour] ?? 0) * scale) / perUnit;
  }
  const growth = arrival.growth_per_year === undefined ? 0 : parts.resolveRatio(arrival.growth_per_year);
  const calendar =
    growth !== 0 || (arrival.holidays?.length ?? 0) > 0
      ? {
          growthPerUnit: Math.log(1 + growth) / (DAYS_PER_YEAR * 24 * perUnit),
          holidays: new Map((arrival.holidays ?? []).map((holiday) => [holiday.day, holiday.rates_as ?? 6])),
          offsetHours,
        }
      : null;
  return { ratesByHour, calendar };
}

function compileResources(parts: Compiler): CompiledResource[] {
  const { world, resolve } = parts;
  const usesPriority = new Set(
    world.steps.filter((step) => step.kind === 'service' && step.queue === 'priority').map((step) => (step.kind === 'service' ? step.resource : '')),
  );
  const preemptive = new Set(
    world.steps.filter((step) => step.kind === 'service' && step.preempt !== undefined).map((step) => (step.kind === 'service' ? step.resource : '')),
  );
  return world.resources.map((resource) => {
    const shifts = compileShifts(resource.shifts, resolve);
    const breakdowns: CompiledBreakdowns | null = resource.breakdowns
      ? {
          timeToFailure: compileDistribution(resource.breakdowns.time_to_failure, resolve),
          repair: compileDistribution(resource.breakdowns.repair, resolve),
          clock: resource.breakdowns.clock === 'busy' ? CLOCK_BUSY : CLOCK_CALENDAR,
          interrupted: resource.breakdowns.interrupted === 'restart' ? PREEMPT_RESTART : PREEMPT_RESUME,
        }
      : null;
    return {
      id: resource.id,
      ...shifts,
      capacity: Math.round(resolve(resource.capacity)),
      usesPriority: usesPriority.has(resource.id),
      preemptive: preemptive.has(resource.id) || breakdowns !== null,
      batchStep: world.steps.findIndex((step) => step.kind === 'service' && step.resource === resource.id && step.batch !== undefined),
      breakdowns,
    };
  });
}

function compileShifts(
  shifts: Shift[] | undefined,
  resolve: (parameter: Parameter) => number,
): Pick<CompiledResource, 'capacityByHour' | 'capacityBySlot' | 'slotsPerHour'> {
  if (!shifts) return { capacityByHour: null, capacityBySlot: null, slotsPerHour: 1 };
  // Shifts on whole hours keep an hourly calendar; one boundary between hours makes it a calendar of minutes.
  const slotsPerHour = shifts.every((shift) => Number.isInteger(shift.start_hour) && Number.isInteger(shift.end_hour)) ? 1 : 60;
  const capacityBySlot = new Int32Array(HOURS_PER_WEEK * slotsPerHour);
  for (const shift of shifts) {
    const capacity = Math.round(resolve(shift.capacity));
    const [start, end] = [Math.round(shift.start_hour * slotsPerHour), Math.round(shift.end_hour * slotsPerHour)];
    for (const day of shift.days) for (let slot = start; slot < end; slot++) capacityBySlot[day * 24 * slotsPerHour + slot]! += capacity;
  }
  const capacityByHour = new Float64Array(HOURS_PER_WEEK);
  for (let slot = 0; slot < capacityBySlot.length; slot++) capacityByHour[Math.floor(slot / slotsPerHour)]! += capacityBySlot[slot]! / slotsPerHour;
  return { capacityByHour, capacityBySlot, slotsPerHour };
}

/** Every step starts as this shape (one hidden class for the engine), then its kind fills in what it uses. */
function blankStep(id: string): CompiledStep {
  return {
    id,
    kind: STEP_EXIT,
    next: -1,
    resource: -1,
    duration: null,
    priorityAttribute: -1,
    renegeAfter: Number.POSITIVE_INFINITY,
    renegeTo: -1,
    patience: null,
    maxWaiting: Number.POSITIVE_INFINITY,
    batchMax: 0,
    batchMin: 1,
    balkProbability: 1,
    balkTo: -1,
    preempt: PREEMPT_NONE,
    branchCumulative: null,
    branchNext: null,
    attribute: -1,
    equals: null,
    otherwise: -1,
    routeResources: null,
    rules: null,
  };
}

function compileStep(parts: Compiler, step: Step): CompiledStep {
  const compiled = blankStep(step.id);
  switch (step.kind) {
    case 'service':
      compileService(parts, step, compiled);
      break;
    case 'delay':
      compiled.kind = STEP_DELAY;
      compiled.next = parts.stepOf(step.next);
      compiled.duration = compileDistribution(step.duration, parts.resolve);
      break;
    case 'branch':
      compileBranch(parts, step, compiled);
      break;
    case 'assign':
      compiled.kind = STEP_ASSIGN;
      compiled.next = parts.stepOf(step.next);
      compiled.attribute = parts.attributeOf(step.attribute);
      compiled.branchCumulative = cumulate(step.values.map((value) => parts.resolve(value.probability)));
      compiled.equals = Float64Array.from(step.values.map((value) => parts.codeOf(step.attribute, value.value)));
      break;
    case 'seize':
    case 'release':
      compiled.kind = step.kind === 'seize' ? STEP_SEIZE : STEP_RELEASE;
      compiled.next = parts.stepOf(step.next);
      compiled.resource = parts.resourceOf(step.resource);
      if (step.kind === 'seize' && step.queue_limit !== undefined) compileQueueLimit(parts, step.queue_limit, compiled);
      break;
    case 'exit':
      compiled.kind = STEP_EXIT;
      break;
  }
  return compiled;
}

function compileService(parts: Compiler, step: Extract<Step, { kind: 'service' }>, compiled: CompiledStep): void {
  const { resolve, stepOf } = parts;
  compiled.kind = STEP_SERVICE;
  compiled.next = stepOf(step.next);
  compiled.resource = parts.resourceOf(step.resource);
  compiled.duration = compileDistribution(step.duration, resolve);
  if (step.queue === 'priority' && step.priority_attribute) compiled.priorityAttribute = parts.attributeOf(step.priority_attribute);
  if (step.renege_after !== undefined) compiled.renegeAfter = resolve(step.renege_after);
  if (step.renege_to !== undefined) compiled.renegeTo = stepOf(step.renege_to);
  if (step.preempt !== undefined) compiled.preempt = step.preempt === 'resume' ? PREEMPT_RESUME : PREEMPT_RESTART;
  if (step.patience !== undefined) compiled.patience = compileDistribution(step.patience, resolve);
  if (step.batch !== undefined) {
    compiled.batchMax = step.batch.max_size;
    compiled.batchMin = step.batch.min_size ?? 1;
  }
  if (step.queue_limit !== undefined) compileQueueLimit(parts, step.queue_limit, compiled);
}

/** queue_limit of a service or seize step: turned away when this many or more wait, with this probability, to this step. */
function compileQueueLimit(parts: Compiler, limit: QueueLimit, compiled: CompiledStep): void {
  compiled.maxWaiting = Math.round(parts.resolve(limit.max_waiting));
  if (limit.balk_probability !== undefined) compiled.balkProbability = parts.resolve(limit.balk_probability);
  if (limit.to !== undefined) compiled.balkTo = parts.stepOf(limit.to);
}

function compileBranch(parts: Compiler, step: Extract<Step, { kind: 'branch' }>, compiled: CompiledStep): void {
  const { stepOf, attributeOf, codeOf } = parts;
  if (step.by === 'probability') {
    compiled.kind = STEP_BRANCH_PROBABILITY;
    compiled.branchCumulative = cumulate(step.options.map((option) => parts.resolve(option.probability)));
    compiled.branchNext = Int32Array.from(step.options.map((option) => stepOf(option.next)));
  } else if (step.by === 'shortest_queue') {
    compiled.kind = STEP_BRANCH_SHORTEST_QUEUE;
    compiled.branchNext = Int32Array.from(step.options.map((option) => stepOf(option.next)));
    compiled.routeResources = Int32Array.from(
      step.options.map((option) => {
        const target = parts.world.steps[stepOf(option.next)]!;
        return target.kind === 'service' ? parts.resourceOf(target.resource) : fail(`option '${option.next}' of '${step.id}' is not a service step`);
      }),
    );
  } else if (step.by === 'rules') {
    compiled.kind = STEP_BRANCH_RULES;
    compiled.branchNext = Int32Array.from(step.options.map((option) => stepOf(option.next)));
    compiled.otherwise = stepOf(step.otherwise);
    compiled.rules = step.options.map((option) =>
      option.when.map((condition) => {
        const list = Array.isArray(condition.value) ? condition.value : null;
        return {
          attribute: attributeOf(condition.attribute),
          op: OPS.indexOf(condition.op),
          value: list ? Number.NaN : codeOf(condition.attribute, condition.value as string | number),
          values: list ? Float64Array.from(list.map((value) => codeOf(condition.attribute, value))) : null,
        };
      }),
    );
  } else {
    compiled.kind = STEP_BRANCH_ATTRIBUTE;
    compiled.attribute = attributeOf(step.attribute);
    compiled.equals = Float64Array.from(step.options.map((option) => codeOf(step.attribute, option.equals)));
    compiled.branchNext = Int32Array.from(step.options.map((option) => stepOf(option.next)));
    compiled.otherwise = stepOf(step.otherwise);
  }
}

function compileMeasures(parts: Compiler): { measures: CompiledMeasure[]; markSlots: number; hooks: Int32Array[] } {
  const { world } = parts;
  const hookLists: number[][] = world.steps.flatMap(() => MOMENTS.map(() => []));
  const hookAt = (refs: StepRefs, measure: number, role: number) => {
    for (const ref of Array.isArray(refs) ? refs : [refs])
      hookLists[parts.stepOf(ref.step) * MOMENT_STRIDE + MOMENTS.indexOf(ref.at)]!.push(measure * 4 + role);
  };
  let markSlots = 0;
  const measures: CompiledMeasure[] = world.measured.map((measure, index) => {
    const base = {
      id: measure.id,
      windowStart: measure.window?.start ?? world.warm_up,
      windowEnd: measure.window?.end ?? world.horizon,
      resource: -1,
      markSlot: -1,
      censorAtHorizon: false,
      timeFactor: 1,
      denominator: measure.denominator,
      percentiles: [] as number[],
      threshold: Number.POSITIVE_INFINITY,
      priced: world.cost_scenarios?.rates.some((rate) => rate.measure === measure.id) ?? false,
    };
    switch (measure.kind) {
      case 'time_between':
        // `to` before `from`: an entity passing the same moment again closes its previous interval first.
        hookAt(measure.to, index, HOOK_TO);
        hookAt(measure.from, index, HOOK_FROM);
        return {
          ...base,
          kind: MEASURE_TIME_BETWEEN,
          markSlot: markSlots++,
          censorAtHorizon: measure.censoring === 'at_horizon',
          timeFactor: toWorldUnit(1, world.time_unit, measure.unit),
          percentiles: measure.percentiles ?? [],
          threshold: measure.threshold ?? Number.POSITIVE_INFINITY,
        };
      case 'count':
        hookAt(measure.event, index, HOOK_COUNT);
        return { ...base, kind: MEASURE_COUNT };
      case 'utilisation':
        return { ...base, kind: MEASURE_UTILISATION, resource: parts.resourceOf(measure.resource) };
      case 'queue_length':
        return { ...base, kind: MEASURE_QUEUE_LENGTH, resource: parts.resourceOf(measure.resource) };
    }
    return fail('unknown measure kind');
  });
  return { measures, markSlots, hooks: hookLists.map((list) => Int32Array.from(list)) };
}

/**
 * Arrivals per world time unit of a rate table during hour `hour` after time 0 (Monday 00:00 unless the table's `start`
 * says otherwise): the weekday row of the day (a holiday's own row), times the compound trend at the middle of the hour.
 */
export function rateTableRate(arrival: CompiledArrival, hour: number, unitsPerHourValue: number): number {
  const calendar = arrival.calendar;
  const rates = arrival.ratesByHour!;
  if (!calendar) return rates[hour % HOURS_PER_WEEK]!;
  // The table's own clock: hour `hour` after time 0 is `absolute` hours after the Monday 00:00 before time 0.
  const offset = calendar.offsetHours;
  const absolute = hour + offset;
  const day = Math.floor(absolute / 24);
  const row = calendar.holidays.get(day - Math.floor(offset / 24)) ?? day % 7;
  const rate = rates[(row * 24 + (absolute % 24) - offset + HOURS_PER_WEEK) % HOURS_PER_WEEK]!;
  return calendar.growthPerUnit === 0 ? rate : rate * Math.exp(calendar.growthPerUnit * (hour + 0.5) * unitsPerHourValue);
}

/** Whether an attribute value (NaN: unassigned, which fails every condition) meets a rule's condition. */
export function conditionHolds(condition: CompiledCondition, value: number): boolean {
  if (Number.isNaN(value)) return false;
  switch (condition.op) {
    case OP_IN:
      return condition.values!.includes(value);
    case OP_EQ:
      return value === condition.value;
    case OP_NE:
      return value !== condition.value;
    case OP_LT:
      return value < condition.value;
    case OP_LE:
      return value <= condition.value;
    case OP_GT:
      return value > condition.value;
    default:
      return value >= condition.value;
  }
}

function cumulate(weights: number[]): Float64Array {
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  const out = new Float64Array(weights.length);
  let running = 0;
  weights.forEach((weight, index) => {
    running += weight;
    out[index] = total > 0 ? running / total : (index + 1) / weights.length;
  });
  out[weights.length - 1] = 1;
  return out;
}

function compileDistribution(distribution: Distribution, resolve: (parameter: Parameter) => number): CompiledDistribution {
  const out: CompiledDistribution = { kind: DIST_FIXED, a: 0, b: 0, c: 0, cumulative: null, values: null, mean: 0 };
  switch (distribution.dist) {
    case 'fixed':
      out.a = resolve(distribution.value);
      out.mean = out.a;
      break;
    case 'exponential':
      out.kind = DIST_EXPONENTIAL;
      out.a = resolve(distribution.mean);
      out.mean = out.a;
      break;
    case 'uniform':
      out.kind = DIST_UNIFORM;
      out.a = resolve(distribution.min);
      out.b = resolve(distribution.max);
      out.mean = (out.a + out.b) / 2;
      break;
    case 'triangular':
      out.kind = DIST_TRIANGULAR;
      out.a = resolve(distribution.min);
      out.b = resolve(distribution.mode);
      out.c = resolve(distribution.max);
      out.mean = (out.a + out.b + out.c) / 3;
      break;
    case 'lognormal': {
      // Given as the mean and sd of the duration itself; converted to the log-scale mu and sigma.
      const mean = resolve(distribution.mean);
      const sd = resolve(distribution.sd);
      const sigmaSquared = Math.log(1 + (sd * sd) / (mean * mean));
      out.kind = DIST_LOGNORMAL;
      out.a = Math.log(mean) - sigmaSquared / 2;
      out.b = Math.sqrt(sigmaSquared);
      out.mean = mean;
      break;
    }
    case 'gamma':
      out.kind = DIST_GAMMA;
      out.a = resolve(distribution.shape);
      out.b = resolve(distribution.scale);
      out.mean = out.a * out.b;
      break;
    case 'normal': {
      // Bounded below by min (default 0: a duration is never negative) and above by max (default none).
      const mean = resolve(distribution.mean);
      const sd = resolve(distribution.sd);
      const min = distribution.min === undefined ? 0 : resolve(distribution.min);
      const max = distribution.max === undefined ? Number.POSITIVE_INFINITY : resolve(distribution.max);
      const clamp = distribution.bounds === 'clamp';
      out.kind = DIST_NORMAL;
      out.cumulative = boundedNormal(mean, sd, min, max, clamp);
      out.mean = boundedNormalMoments(mean, sd, min, max, clamp).mean;
      break;
    }
    case 'empirical': {
      out.kind = DIST_EMPIRICAL;
      const weights = distribution.weights ?? distribution.values.map(() => 1);
      out.cumulative = cumulate(weights);
      out.values = Float64Array.from(distribution.values);
      const total = weights.reduce((sum, weight) => sum + weight, 0);
      out.mean = distribution.values.reduce((sum, value, index) => sum + value * (weights[index] ?? 0), 0) / (total || 1);
      break;
    }
  }
  return out;
}
