// estimateRun: is a world runnable within the named limits, and what will it cost (spec: /v1/runs/estimate).
// Cost model (docs/simulation.md): expected events = variants x replications x (expected arrivals x expected events per
// entity + capacity changes); credits = ceil(events / EVENTS_PER_CREDIT), at least MIN_RUN_CREDITS.
import type { WorldSpec } from '../contracts/worldSpec.ts';
import {
  creditsForEvents,
  EVENTS_PER_CREDIT,
  MAX_ENTITIES_IN_SYSTEM,
  MAX_EVENTS_PER_REPLICATION,
  MAX_EVENTS_PER_RUN,
  MAX_HORIZON_DAYS,
  MAX_REPLICATIONS,
  MAX_VARIANTS,
  MIN_RUN_CREDITS,
} from './limits.ts';
import { ARRIVAL_POISSON, ARRIVAL_RATE_TABLE, type CompiledModel, compileModel, HOURS_PER_WEEK, STEP_BRANCH_ATTRIBUTE, STEP_BRANCH_PROBABILITY, STEP_DELAY, STEP_SERVICE } from './model.ts';
import { minutesPer } from './units.ts';
import { type Problem, validateWorld } from './validate.ts';

export type RunEstimate = {
  runnable: boolean;
  issues: Problem[];
  events_estimate: number;
  events_per_replication_estimate: Record<string, number>;
  credits_estimate: number;
  cost_model: string;
};

export const COST_MODEL_DESCRIPTION = `credits = max(${MIN_RUN_CREDITS}, ceil(simulated events / ${EVENTS_PER_CREDIT})); events = arrivals, service ends, delay ends, reneges and capacity changes over all variants and replications`;

/** Expected number of arrivals over the horizon of one replication. */
function expectedArrivals(model: CompiledModel): number[] {
  return model.arrivals.map((arrival) => {
    if (arrival.kind === ARRIVAL_POISSON) return arrival.rate * model.horizon;
    if (arrival.kind === ARRIVAL_RATE_TABLE) {
      const hours = model.horizon / model.unitsPerHour;
      let total = 0;
      const whole = Math.floor(hours);
      const weekly = arrival.ratesByHour!.reduce((sum, rate) => sum + rate, 0) * model.unitsPerHour;
      total += Math.floor(whole / HOURS_PER_WEEK) * weekly;
      for (let hour = Math.floor(whole / HOURS_PER_WEEK) * HOURS_PER_WEEK; hour < hours; hour++) total += arrival.ratesByHour![hour % HOURS_PER_WEEK]! * model.unitsPerHour * Math.min(1, hours - hour);
      return total;
    }
    const times = arrival.times!;
    const perCycle = times.filter((time) => time <= model.horizon).length;
    const cycles = Number.isFinite(arrival.period) ? Math.floor(model.horizon / arrival.period) + 1 : 1;
    return perCycle * cycles * arrival.batchSize;
  });
}

/**
 * Expected heap events per entity entering each arrival's first step: visits to steps propagated through branches
 * (attribute branches split evenly, an upper-bound-friendly guess), capped at 10_000 passes to stop on cycles.
 */
function expectedVisits(model: CompiledModel, start: number): Float64Array {
  const visits = new Float64Array(model.steps.length);
  let frontier = new Float64Array(model.steps.length);
  frontier[start] = 1;
  for (let pass = 0; pass < 10_000; pass++) {
    const next = new Float64Array(model.steps.length);
    let mass = 0;
    model.steps.forEach((step, index) => {
      const weight = frontier[index]!;
      if (weight < 1e-9) return;
      visits[index]! += weight;
      if (step.kind === STEP_SERVICE || step.kind === STEP_DELAY) next[step.next]! += weight;
      else if (step.kind === STEP_BRANCH_PROBABILITY) {
        const cumulative = step.branchCumulative!;
        for (let k = 0; k < cumulative.length; k++) next[step.branchNext![k]!]! += weight * (cumulative[k]! - (k > 0 ? cumulative[k - 1]! : 0));
      } else if (step.kind === STEP_BRANCH_ATTRIBUTE) {
        const targets = [...step.branchNext!, step.otherwise];
        for (const target of targets) next[target]! += weight / targets.length;
      }
      mass += weight;
    });
    frontier = next;
    if (mass < 1e-9) break;
  }
  return visits;
}

function eventsPerEntity(model: CompiledModel, visits: Float64Array): number {
  let events = 1; // the arrival
  model.steps.forEach((step, index) => {
    // A service visit costs its end event (plus a renege event when it can renege); a delay its end event.
    if (step.kind === STEP_SERVICE) events += visits[index]! * (Number.isFinite(step.renegeAfter) ? 2 : 1);
    if (step.kind === STEP_DELAY) events += visits[index]!;
  });
  return events;
}

/** Entities in the system at the horizon: time-average by Little's law plus the queue growth of resources with load above capacity. */
function estimateEntities(model: CompiledModel, flowPerUnit: Float64Array): number {
  let entities = 0;
  const work = new Float64Array(model.resources.length);
  model.steps.forEach((step, index) => {
    if (!step.duration) return;
    entities += flowPerUnit[index]! * step.duration.mean;
    if (step.kind === STEP_SERVICE && !Number.isFinite(step.renegeAfter)) work[step.resource]! += flowPerUnit[index]! * step.duration.mean;
  });
  model.resources.forEach((resource, index) => {
    const capacity = resource.capacityByHour ? resource.capacityByHour.reduce((sum, value) => sum + value, 0) / HOURS_PER_WEEK : resource.capacity;
    const overload = work[index]! - capacity;
    // Offered work above capacity piles up as waiting entities (servers-worth of work per time unit, in entities via mean duration).
    if (overload > 0) {
      const meanDuration = model.steps.filter((step) => step.kind === STEP_SERVICE && step.resource === index).reduce((max, step) => Math.max(max, step.duration!.mean), 0) || 1;
      entities += (overload / meanDuration) * model.horizon;
    }
  });
  return entities;
}

export function estimateRun(world: unknown): RunEstimate {
  const validation = validateWorld(world);
  const empty = { events_estimate: 0, events_per_replication_estimate: {}, credits_estimate: MIN_RUN_CREDITS, cost_model: COST_MODEL_DESCRIPTION };
  if (!validation.valid) return { runnable: false, issues: validation.problems, ...empty };
  const spec = world as WorldSpec;
  const issues: Problem[] = [];
  const horizonDays = (spec.horizon * minutesPer(spec.time_unit)) / 1440;
  if (horizonDays > MAX_HORIZON_DAYS) issues.push({ pointer: '/horizon', message: `horizon is ${Math.round(horizonDays)} days; MAX_HORIZON_DAYS is ${MAX_HORIZON_DAYS}` });
  if (spec.replications > MAX_REPLICATIONS) issues.push({ pointer: '/replications', message: `${spec.replications} replications; MAX_REPLICATIONS is ${MAX_REPLICATIONS}` });
  if (spec.variants.length > MAX_VARIANTS) issues.push({ pointer: '/variants', message: `${spec.variants.length} variants; MAX_VARIANTS is ${MAX_VARIANTS}` });

  const perReplication: Record<string, number> = {};
  let total = 0;
  spec.variants.forEach((variant, index) => {
    const model = compileModel(spec, variant.id);
    const arrivals = expectedArrivals(model);
    let events = 0;
    // Entities in the system (Little's law: flow x mean time per step), plus the backlog of overloaded resources.
    const flowPerUnit = new Float64Array(model.steps.length);
    model.arrivals.forEach((arrival, arrivalIndex) => {
      const visits = expectedVisits(model, arrival.toStep);
      events += arrivals[arrivalIndex]! * eventsPerEntity(model, visits);
      for (let step = 0; step < visits.length; step++) flowPerUnit[step]! += (visits[step]! * arrivals[arrivalIndex]!) / model.horizon;
    });
    const entities = estimateEntities(model, flowPerUnit);
    if (entities > MAX_ENTITIES_IN_SYSTEM) {
      issues.push({ pointer: `/variants/${index}`, message: `about ${Math.round(entities)} entities in the system at once under '${variant.id}' (some resources are overloaded); MAX_ENTITIES_IN_SYSTEM is ${MAX_ENTITIES_IN_SYSTEM}` });
    }
    // Capacity changes: at most one per hour per resource with shifts.
    for (const resource of model.resources) if (resource.capacityByHour) events += model.horizon / model.unitsPerHour;
    events = Math.ceil(events);
    perReplication[variant.id] = events;
    total += events * Math.min(spec.replications, MAX_REPLICATIONS);
    if (events > MAX_EVENTS_PER_REPLICATION) {
      issues.push({ pointer: `/variants/${index}`, message: `about ${events} events per replication of '${variant.id}'; MAX_EVENTS_PER_REPLICATION is ${MAX_EVENTS_PER_REPLICATION}` });
    }
  });
  if (total > MAX_EVENTS_PER_RUN) issues.push({ pointer: '/replications', message: `about ${total} events in the run; MAX_EVENTS_PER_RUN is ${MAX_EVENTS_PER_RUN}` });
  return { runnable: issues.length === 0, issues, events_estimate: total, events_per_replication_estimate: perReplication, credits_estimate: creditsForEvents(total), cost_model: COST_MODEL_DESCRIPTION };
}
