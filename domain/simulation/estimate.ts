// estimateRun: is a world runnable within the named limits, and what will it cost (spec: /v1/runs/estimate).
// Cost model (docs/simulation.md): expected events = variants x replications x (expected arrivals x expected events per
// entity + capacity changes); credits = ceil(events / EVENTS_PER_CREDIT), at least RUN_CREDITS_MIN.
import type { WorldSpec } from '../contracts/worldSpec.ts';
import {
  creditsForEvents,
  EVENTS_PER_CREDIT,
  ENTITIES_IN_SYSTEM_MAX,
  EVENTS_PER_REPLICATION_MAX,
  EVENTS_PER_RUN_MAX,
  HORIZON_DAYS_MAX,
  REPLICATIONS_MAX,
  VARIANTS_MAX,
  RUN_CREDITS_MIN,
} from './limits.ts';
import {
  ARRIVAL_POISSON,
  ARRIVAL_RATE_TABLE,
  ARRIVAL_RENEWAL,
  ARRIVAL_SCHEDULED,
  CLOCK_BUSY,
  type CompiledModel,
  compileModel,
  conditionHolds,
  HOURS_PER_WEEK,
  PREEMPT_NONE,
  rateTableRate,
  STEP_ASSIGN,
  STEP_BRANCH_ATTRIBUTE,
  STEP_BRANCH_PROBABILITY,
  STEP_BRANCH_RULES,
  STEP_BRANCH_SHORTEST_QUEUE,
  STEP_DELAY,
  STEP_RELEASE,
  STEP_SEIZE,
  STEP_SERVICE,
} from './model.ts';
import { ServiceError } from '../errors.ts';
import { runReplication } from './engine.ts';
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

export const COST_MODEL_DESCRIPTION = `credits = max(${RUN_CREDITS_MIN}, ceil(simulated events / ${EVENTS_PER_CREDIT})); events = arrivals, service ends, delay ends, reneges and capacity changes over all variants and replications`;

/** Expected number of arrivals over the horizon of one replication. */
function expectedArrivals(model: CompiledModel): number[] {
  return model.arrivals.map((arrival) => {
    if (arrival.kind === ARRIVAL_POISSON) return arrival.rate * model.horizon * arrival.batchMean;
    if (arrival.kind === ARRIVAL_RENEWAL)
      return arrival.interarrival!.mean > 0 ? (model.horizon / arrival.interarrival!.mean) * arrival.batchMean : Number.POSITIVE_INFINITY;
    if (arrival.kind === ARRIVAL_RATE_TABLE && arrival.calendar) {
      // Trend or holidays: hour by hour, over at most HORIZON_DAYS_MAX (a longer horizon is refused anyway; scaled up).
      const hours = model.horizon / model.unitsPerHour;
      const counted = Math.min(hours, HORIZON_DAYS_MAX * 24);
      let total = 0;
      for (let hour = 0; hour < counted; hour++) total += rateTableRate(arrival, hour, model.unitsPerHour) * model.unitsPerHour * Math.min(1, counted - hour);
      return (total * hours) / counted;
    }
    if (arrival.kind === ARRIVAL_RATE_TABLE) {
      const hours = model.horizon / model.unitsPerHour;
      let total = 0;
      const whole = Math.floor(hours);
      const weekly = arrival.ratesByHour!.reduce((sum, rate) => sum + rate, 0) * model.unitsPerHour;
      total += Math.floor(whole / HOURS_PER_WEEK) * weekly;
      for (let hour = Math.floor(whole / HOURS_PER_WEEK) * HOURS_PER_WEEK; hour < hours; hour++)
        total += arrival.ratesByHour![hour % HOURS_PER_WEEK]! * model.unitsPerHour * Math.min(1, hours - hour);
      return total;
    }
    // Each time t arrives at t, t + period, ... up to the horizon.
    const times = arrival.times!;
    const repeats = times.reduce(
      (sum, time) => sum + (time > model.horizon ? 0 : Number.isFinite(arrival.period) ? Math.floor((model.horizon - time) / arrival.period) + 1 : 1),
      0,
    );
    return repeats * arrival.batchSize;
  });
}

/** Probability an arrival finds every server busy in an M/M/c queue with offered load `load` (Erlang C; 1 when overloaded). */
export function erlangC(servers: number, load: number): number {
  if (servers <= 0) return 1;
  if (load <= 0) return 0;
  if (load >= servers) return 1;
  // Erlang B by its stable recursion, then C from B.
  let b = 1;
  for (let k = 1; k <= servers; k++) b = (load * b) / (k + load * b);
  return b / (1 - (load / servers) * (1 - b));
}

/**
 * Shares of a rule branch's options (and, last, of `otherwise`) for one arrival's entities: the joint distribution of
 * the attributes the rules read, each independent, from the arrival's assignment or else from the first assign step that
 * sets it (an estimate: an attribute changed along the way is taken at that step's distribution).
 */
function ruleShares(model: CompiledModel, arrival: CompiledModel['arrivals'][number], step: CompiledModel['steps'][number]): Float64Array {
  const rules = step.rules!;
  const shares = new Float64Array(rules.length + 1);
  const read = [...new Set(rules.flatMap((conditions) => conditions.map((condition) => condition.attribute)))];
  const distributions = read.map((attribute) => {
    const assignment = arrival.attributes.find((candidate) => candidate.attribute === attribute);
    const setter = assignment ? null : model.steps.find((candidate) => candidate.kind === STEP_ASSIGN && candidate.attribute === attribute);
    const cumulative = assignment?.cumulative ?? setter?.branchCumulative ?? null;
    const codes = assignment?.codes ?? setter?.equals ?? null;
    if (!cumulative || !codes) return [{ code: Number.NaN, probability: 1 }];
    return Array.from(codes, (code, c) => ({ code, probability: cumulative[c]! - (c > 0 ? cumulative[c - 1]! : 0) }));
  });
  const combinations = distributions.reduce((product, values) => product * values.length, 1);
  if (combinations > 10_000) {
    shares.fill(1 / shares.length);
    return shares;
  }
  const values = new Float64Array(model.attributeNames.length).fill(Number.NaN);
  const walk = (depth: number, probability: number) => {
    if (depth === read.length) {
      let chosen = rules.length;
      for (let k = 0; k < rules.length && chosen === rules.length; k++)
        if (rules[k]!.every((condition) => conditionHolds(condition, values[condition.attribute]!))) chosen = k;
      shares[chosen]! += probability;
      return;
    }
    for (const option of distributions[depth]!) {
      values[read[depth]!] = option.code;
      walk(depth + 1, probability * option.probability);
    }
  };
  walk(0, 1);
  return shares;
}

/** Per service step: the share of visits that queue (each queued visit with reneging costs one renege event) and the share that renege. */
type QueueShares = { wait: Float64Array; abandon: Float64Array; balk: Float64Array; batch: Float64Array };

/**
 * Expected entities per batch at a batch-service step: enough that the servers keep up with the flow (offered
 * entity-work over the servers, with 10% headroom), at least the minimum batch, at most the maximum; 1 elsewhere.
 */
function expectedBatch(model: CompiledModel, step: CompiledModel['steps'][number], flow: number): number {
  if (step.batchMax <= 0) return 1;
  const resource = model.resources[step.resource]!;
  const servers = Math.max(1, resource.capacity);
  return Math.min(step.batchMax, Math.max(step.batchMin, 1, (flow * serviceMean(model, step)) / servers / 0.9));
}

/** A service step whose queued visits can leave the queue: a fixed maximum wait or a patience distribution. */
function canRenege(step: CompiledModel['steps'][number]): boolean {
  return Number.isFinite(step.renegeAfter) || step.patience !== null;
}

/**
 * Expected visits to each step per entity of one arrival process: visits propagated through branches. Probability
 * branches use their declared probabilities; attribute branches use the arrival's declared attribute probabilities
 * (an attribute the arrival does not assign takes `otherwise`). Services that renege send their expected abandoning
 * share to `renege_to` (or out). Capped at 10_000 passes to stop on cycles.
 */
function expectedVisits(model: CompiledModel, arrivalIndex: number, shares: QueueShares | null): Float64Array {
  const arrival = model.arrivals[arrivalIndex]!;
  const visits = new Float64Array(model.steps.length);
  let frontier = new Float64Array(model.steps.length);
  frontier[arrival.toStep] = 1;
  for (let pass = 0; pass < 10_000; pass++) {
    const next = new Float64Array(model.steps.length);
    let mass = 0;
    model.steps.forEach((step, index) => {
      const weight = frontier[index]!;
      if (weight < 1e-9) return;
      visits[index]! += weight;
      if (step.kind === STEP_SERVICE) {
        const balk = shares ? shares.balk[index]! : 0;
        const abandon = shares ? shares.abandon[index]! * (1 - balk) : 0;
        next[step.next]! += weight * (1 - abandon - balk);
        if (step.renegeTo >= 0) next[step.renegeTo]! += weight * abandon;
        if (step.balkTo >= 0) next[step.balkTo]! += weight * balk;
      } else if (step.kind === STEP_SEIZE && step.balkTo >= 0 && shares) {
        // Turned away at a full seize (queue_limit): on to its step without the unit.
        next[step.next]! += weight * (1 - shares.balk[index]!);
        next[step.balkTo]! += weight * shares.balk[index]!;
      } else if (step.kind === STEP_SEIZE && shares) next[step.next]! += weight * (1 - shares.balk[index]!);
      else if (step.kind === STEP_DELAY) next[step.next]! += weight;
      else if (step.kind === STEP_BRANCH_PROBABILITY) {
        const cumulative = step.branchCumulative!;
        for (let k = 0; k < cumulative.length; k++) next[step.branchNext![k]!]! += weight * (cumulative[k]! - (k > 0 ? cumulative[k - 1]! : 0));
      } else if (step.kind === STEP_BRANCH_ATTRIBUTE) {
        // The arrival's assignment, or else the first assign step that sets the attribute (as for rules).
        const setter = model.steps.find((candidate) => candidate.kind === STEP_ASSIGN && candidate.attribute === step.attribute);
        const assignment =
          arrival.attributes.find((candidate) => candidate.attribute === step.attribute) ??
          (setter ? { codes: setter.equals!, cumulative: setter.branchCumulative! } : undefined);
        let rest = 1;
        if (assignment) {
          // The first option whose value matches wins, as in the engine.
          const taken = new Set<number>();
          step.equals!.forEach((value, k) => {
            if (taken.has(value)) return;
            taken.add(value);
            let probability = 0;
            assignment.codes.forEach((code, c) => {
              if (code === value) probability += assignment.cumulative[c]! - (c > 0 ? assignment.cumulative[c - 1]! : 0);
            });
            next[step.branchNext![k]!]! += weight * probability;
            rest -= probability;
          });
        }
        next[step.otherwise]! += weight * Math.max(0, rest);
      } else if (step.kind === STEP_BRANCH_SHORTEST_QUEUE) {
        // Symmetric view: join-the-shortest-queue spreads entities about evenly over its options.
        const options = step.branchNext!;
        for (let k = 0; k < options.length; k++) next[options[k]!]! += weight / options.length;
      } else if (step.kind === STEP_BRANCH_RULES) {
        const shares = ruleShares(model, arrival, step);
        step.branchNext!.forEach((target, k) => {
          next[target]! += weight * shares[k]!;
        });
        next[step.otherwise]! += weight * shares[step.branchNext!.length]!;
      } else if (step.kind === STEP_ASSIGN || step.kind === STEP_SEIZE || step.kind === STEP_RELEASE) next[step.next]! += weight;
      mass += weight;
    });
    frontier = next;
    if (mass < 1e-9) break;
  }
  return visits;
}

function eventsPerEntity(model: CompiledModel, arrivalIndex: number, visits: Float64Array, shares: QueueShares): number {
  const arrival = model.arrivals[arrivalIndex]!;
  let events = 1 / (arrival.batchSize * arrival.batchMean); // one arrival event brings a batch
  model.steps.forEach((step, index) => {
    // A service visit costs its end event (unless it reneges) plus, when it can renege and has to queue, a renege
    // event (stale or not, it is processed); a delay visit its end event.
    if (step.kind === STEP_SERVICE) {
      const balk = shares.balk[index]!;
      const queued = Math.max(0, shares.wait[index]! - balk);
      events += visits[index]! * ((1 - balk - shares.abandon[index]! * (1 - balk)) / shares.batch[index]! + (canRenege(step) ? queued : 0));
    }
    if (step.kind === STEP_DELAY) events += visits[index]!;
  });
  return events;
}

/** Share of each arrival process's arrivals falling in each hour of the week (uniform when it has no weekly pattern). */
function arrivalHourShares(model: CompiledModel): Float64Array[] {
  const uniform = new Float64Array(HOURS_PER_WEEK).fill(1 / HOURS_PER_WEEK);
  const week = HOURS_PER_WEEK * model.unitsPerHour;
  return model.arrivals.map((arrival) => {
    let weights: Float64Array | null = null;
    if (arrival.kind === ARRIVAL_RATE_TABLE) weights = Float64Array.from(arrival.ratesByHour!);
    else if (arrival.kind === ARRIVAL_SCHEDULED) {
      const times = arrival.times!;
      const cycles = Number.isFinite(arrival.period) ? Math.ceil(week / arrival.period) : 1;
      if (cycles * times.length > 100_000) return uniform;
      weights = new Float64Array(HOURS_PER_WEEK);
      for (let cycle = 0; cycle < cycles; cycle++) {
        for (const time of times) {
          const at = cycle * (Number.isFinite(arrival.period) ? arrival.period : 0) + time;
          if (at < week) weights[Math.floor(at / model.unitsPerHour) % HOURS_PER_WEEK]! += 1;
        }
      }
    }
    if (!weights) return uniform;
    const total = weights.reduce((sum, value) => sum + value, 0);
    return total > 0 ? weights.map((value) => value / total) : uniform;
  });
}

type CapacityProfile = {
  /** mean capacity over the week */
  mean: number;
  /** mean capacity over the hours it is open */
  open_mean: number;
  /** share of the week with no capacity */
  closed_time: number;
  /** share of the arrivals reaching it that come while it is closed (arrival hour of the pathway's arrivals) */
  closed_arrivals: number;
  /** mean length of a closed stretch, world time units */
  closed_stretch: number;
};

function capacityProfile(model: CompiledModel, resourceIndex: number, arrivalShares: Float64Array[], arrivalWeights: Float64Array): CapacityProfile {
  const resource = model.resources[resourceIndex]!;
  const byHour = resource.capacityByHour;
  if (!byHour) {
    const closed = resource.capacity > 0 ? 0 : 1;
    return {
      mean: resource.capacity,
      open_mean: resource.capacity,
      closed_time: closed,
      closed_arrivals: closed,
      closed_stretch: closed ? Number.POSITIVE_INFINITY : 0,
    };
  }
  let total = 0;
  let closedHours = 0;
  let stretches = 0;
  let closedArrivals = 0;
  const weightTotal = arrivalWeights.reduce((sum, value) => sum + value, 0);
  for (let hour = 0; hour < HOURS_PER_WEEK; hour++) {
    const capacity = byHour[hour]!;
    total += capacity;
    if (capacity !== 0) continue;
    closedHours++;
    if (byHour[(hour + HOURS_PER_WEEK - 1) % HOURS_PER_WEEK] !== 0) stretches++;
    for (let a = 0; a < arrivalShares.length; a++)
      closedArrivals += weightTotal > 0 ? (arrivalShares[a]![hour]! * arrivalWeights[a]!) / weightTotal : 1 / HOURS_PER_WEEK;
  }
  const open = HOURS_PER_WEEK - closedHours;
  return {
    mean: total / HOURS_PER_WEEK,
    open_mean: open > 0 ? total / open : 0,
    closed_time: closedHours / HOURS_PER_WEEK,
    closed_arrivals: open > 0 ? Math.min(1, closedArrivals) : 1,
    closed_stretch: stretches > 0 ? (closedHours / stretches) * model.unitsPerHour : open > 0 ? 0 : Number.POSITIVE_INFINITY,
  };
}

/** Offered work per world time unit at each resource (server-time units per time unit) from the step flows. */
function offeredLoad(model: CompiledModel, flowPerUnit: Float64Array): Float64Array {
  const work = new Float64Array(model.resources.length);
  model.steps.forEach((step, index) => {
    if (step.kind === STEP_SERVICE) work[step.resource]! += (flowPerUnit[index]! * serviceMean(model, step)) / expectedBatch(model, step, flowPerUnit[index]!);
    if (step.kind === STEP_SEIZE) work[step.resource]! += flowPerUnit[index]! * holdTime(model, index);
  });
  return work;
}

/**
 * Expected time a seize step's entity holds its unit: the mean durations of the steps it passes before a release of
 * the same resource (probability branches by their probabilities, other branches split evenly; waits not counted).
 */
function holdTime(model: CompiledModel, seizeIndex: number): number {
  const seize = model.steps[seizeIndex]!;
  let frontier = new Float64Array(model.steps.length);
  frontier[seize.next] = 1;
  let time = 0;
  for (let pass = 0; pass < 10_000; pass++) {
    const next = new Float64Array(model.steps.length);
    let mass = 0;
    model.steps.forEach((step, index) => {
      const weight = frontier[index]!;
      if (weight < 1e-9 || (step.kind === STEP_RELEASE && step.resource === seize.resource)) return;
      if (step.kind === STEP_SERVICE) time += weight * serviceMean(model, step);
      if (step.kind === STEP_DELAY) time += weight * step.duration!.mean;
      if (step.kind === STEP_BRANCH_PROBABILITY) {
        const cumulative = step.branchCumulative!;
        for (let k = 0; k < cumulative.length; k++) next[step.branchNext![k]!]! += weight * (cumulative[k]! - (k > 0 ? cumulative[k - 1]! : 0));
      } else if (step.branchNext) {
        const targets = step.otherwise >= 0 ? [...step.branchNext, step.otherwise] : [...step.branchNext];
        for (const target of targets) next[target]! += weight / targets.length;
      } else if (step.next >= 0) next[step.next]! += weight;
      mass += weight;
    });
    frontier = next;
    if (mass < 1e-9) break;
  }
  return time;
}

/**
 * Shares of visits that queue and that renege at each service step, from an M/M/c view of its resource: the chance
 * of waiting is Erlang C at the offered load (a resource closed part of the week makes arrivals in closed hours wait);
 * a waiting entity reneges when its wait, exponential with rate (c - load) / mean service, exceeds its patience; an
 * overloaded resource loses at least the excess share of its work.
 */
function queueShares(model: CompiledModel, flowPerUnit: Float64Array, visitsByArrival: Float64Array[], arrivals: number[]): QueueShares {
  const wait = new Float64Array(model.steps.length);
  const abandon = new Float64Array(model.steps.length);
  const balk = new Float64Array(model.steps.length);
  const work = offeredLoad(model, flowPerUnit);
  const meanService = meanServiceByResource(model, flowPerUnit);
  const hourShares = arrivalHourShares(model);
  const profiles = model.resources.map((_, resource) => {
    // How much of each arrival process reaches this resource, to weight their hourly patterns.
    const weights = Float64Array.from(
      visitsByArrival.map((visits, a) =>
        model.steps.reduce((sum, step, index) => sum + (step.kind === STEP_SERVICE && step.resource === resource ? visits[index]! * arrivals[a]! : 0), 0),
      ),
    );
    return capacityProfile(model, resource, hourShares, weights);
  });
  model.steps.forEach((step, index) => {
    // Service steps, and seize steps that turn entities away (their balk share; they never renege).
    if (step.kind !== STEP_SERVICE && !(step.kind === STEP_SEIZE && Number.isFinite(step.maxWaiting))) return;
    const profile = profiles[step.resource]!;
    const load = work[step.resource]!;
    const servers = Math.max(1, Math.round(profile.open_mean));
    // Work offered while open: the share of arrivals that come in open hours spread over the open time.
    const openLoad = profile.closed_time < 1 ? (load * (1 - profile.closed_arrivals)) / (1 - profile.closed_time) : Number.POSITIVE_INFINITY;
    const waitOpen = erlangC(servers, openLoad);
    wait[index] = Math.min(1, profile.closed_arrivals + (1 - profile.closed_arrivals) * waitOpen);
    if (Number.isFinite(step.maxWaiting)) {
      // M/M/c: P(at least K waiting) = C x rho^K; an overloaded queue turns away at least its excess.
      const rho = openLoad / servers;
      const full = rho >= 1 ? Math.max(1 - 1 / rho, waitOpen) : waitOpen * rho ** step.maxWaiting;
      balk[index] = step.balkProbability * Math.min(1, full);
    }
    if (!canRenege(step)) return;
    const patience = Number.isFinite(step.renegeAfter) ? step.renegeAfter : step.patience!.mean;
    const service = meanService[step.resource]! || 1;
    const drain = (servers - openLoad) / service;
    const overflow = openLoad > servers ? 1 - servers / openLoad : 0;
    const tail = drain > 0 ? Math.exp(-drain * patience) : 1;
    // Arriving while closed: the wait until opening is about uniform over a closed stretch.
    const closedAbandon = profile.closed_stretch > 0 ? Math.max(0, 1 - patience / profile.closed_stretch) : 0;
    abandon[index] = Math.min(1, Math.max(overflow, (1 - profile.closed_arrivals) * waitOpen * tail + profile.closed_arrivals * closedAbandon));
  });
  const batch = Float64Array.from(model.steps, (step, index) => (step.kind === STEP_SERVICE ? expectedBatch(model, step, flowPerUnit[index]!) : 1));
  return { wait, abandon, balk, batch };
}

function meanServiceByResource(model: CompiledModel, flowPerUnit: Float64Array): Float64Array {
  const work = new Float64Array(model.resources.length);
  const flow = new Float64Array(model.resources.length);
  model.steps.forEach((step, index) => {
    if (step.kind !== STEP_SERVICE && step.kind !== STEP_SEIZE) return;
    work[step.resource]! += flowPerUnit[index]! * (step.kind === STEP_SEIZE ? holdTime(model, index) : serviceMean(model, step));
    flow[step.resource]! += flowPerUnit[index]!;
  });
  return work.map((value, index) => (flow[index]! > 0 ? value / flow[index]! : 0));
}

/** Entities in the system at the horizon: time-average by Little's law plus the queue growth of resources with load at or above capacity. */
function estimateEntities(model: CompiledModel, flowPerUnit: Float64Array, overloads: ResourceOverload[]): number {
  let entities = 0;
  model.steps.forEach((step, index) => {
    if (step.duration) entities += flowPerUnit[index]! * (step.kind === STEP_SERVICE ? serviceMean(model, step) : step.duration.mean);
  });
  for (const overload of overloads) entities += overload.backlog;
  return entities;
}

type ResourceOverload = { resource: string; load: number; capacity: number; backlog: number };

/** Resources whose offered work (from steps that cannot renege) is at or above their mean capacity, with the backlog that piles up over the horizon. */
function overloadedResources(model: CompiledModel, flowPerUnit: Float64Array): ResourceOverload[] {
  const work = new Float64Array(model.resources.length);
  const arrivals = new Float64Array(model.resources.length);
  model.steps.forEach((step, index) => {
    // A seize with a queue limit turns entities away instead of piling them up (as a service with one).
    if (step.kind === STEP_SEIZE && Number.isFinite(step.maxWaiting)) return;
    if (step.kind === STEP_SEIZE) {
      work[step.resource]! += flowPerUnit[index]! * holdTime(model, index);
      arrivals[step.resource]! += flowPerUnit[index]!;
      return;
    }
    if (step.kind !== STEP_SERVICE || canRenege(step) || Number.isFinite(step.maxWaiting)) return;
    work[step.resource]! += (flowPerUnit[index]! * serviceMean(model, step)) / expectedBatch(model, step, flowPerUnit[index]!);
    arrivals[step.resource]! += flowPerUnit[index]!;
  });
  const meanService = meanServiceByResource(model, flowPerUnit);
  const out: ResourceOverload[] = [];
  model.resources.forEach((resource, index) => {
    const capacity = resource.capacityByHour ? resource.capacityByHour.reduce((sum, value) => sum + value, 0) / HOURS_PER_WEEK : resource.capacity;
    const load = work[index]!;
    if (load <= 0 || load < capacity) return;
    // Offered work above capacity piles up as waiting entities; at exactly capacity the queue still grows like a random walk.
    const excess = ((load - capacity) / (meanService[index]! || 1)) * model.horizon;
    out.push({ resource: resource.id, load, capacity, backlog: Math.max(excess, Math.sqrt(arrivals[index]! * model.horizon)) });
  });
  return out;
}

/**
 * Mean service time at a step as the resource sees it: with breakdowns, each unit of work also costs the repairs it
 * meets, E[repair] / E[time to failure] per unit (busy clock: the completion time; calendar clock: the same factor is
 * 1 / availability, availability = E[time to failure] / (E[time to failure] + E[repair])).
 */
function serviceMean(model: CompiledModel, step: CompiledModel['steps'][number]): number {
  const breakdowns = model.resources[step.resource]!.breakdowns;
  const mean = step.duration!.mean;
  if (!breakdowns || breakdowns.timeToFailure.mean <= 0) return mean;
  return mean * (1 + breakdowns.repair.mean / breakdowns.timeToFailure.mean);
}

/**
 * Breakdown events in one replication: each failure, its repair and the stale end of the service it interrupts.
 * Calendar clock: every server cycles through failure and repair; busy clock: failures per unit of serving time.
 */
function breakdownEvents(model: CompiledModel, flowPerUnit: Float64Array): number {
  const work = new Float64Array(model.resources.length);
  model.steps.forEach((step, index) => {
    if (step.kind === STEP_SERVICE) work[step.resource]! += flowPerUnit[index]! * step.duration!.mean;
  });
  let events = 0;
  model.resources.forEach((resource, index) => {
    const breakdowns = resource.breakdowns;
    if (!breakdowns || resource.capacity <= 0 || breakdowns.timeToFailure.mean <= 0) return;
    const serving = Math.min(work[index]!, resource.capacity);
    if (breakdowns.clock === CLOCK_BUSY) {
      events += 3 * ((serving * model.horizon) / breakdowns.timeToFailure.mean);
      return;
    }
    const cycle = breakdowns.timeToFailure.mean + breakdowns.repair.mean;
    const failures = (resource.capacity * model.horizon) / cycle;
    const availability = breakdowns.timeToFailure.mean / cycle;
    // A failing server is busy as often as a working one (serving work over working server-time): that share of failures interrupts a service, whose end goes stale.
    events += failures * (2 + Math.min(1, serving / (resource.capacity * availability)));
  });
  return events;
}

/** Capacity changes in one replication: each change of a resource's weekly calendar once per week of the horizon. */
function capacityChanges(model: CompiledModel): number {
  let changes = 0;
  for (const resource of model.resources) {
    const bySlot = resource.capacityBySlot;
    if (!bySlot) continue;
    const slots = (model.horizon / model.unitsPerHour) * resource.slotsPerHour;
    const week = bySlot.length;
    for (let slot = 0; slot < week; slot++) {
      if (bySlot[slot] === bySlot[(slot + week - 1) % week]) continue;
      // Slots slot, slot + week, ... that fall within (0, horizon].
      if (slot > 0 && slot <= slots) changes += Math.floor((slots - slot) / week) + 1;
      else if (slot === 0) changes += Math.floor(slots / week);
    }
  }
  return changes;
}

/** Events the pilot of one variant may simulate (split over the variants, at least PILOT_EVENTS_MIN each). */
export const PILOT_EVENTS = 100_000;
export const PILOT_EVENTS_MIN = 10_000;
/** A pilot whose analytic expectation is below this many events is too small to correct the estimate. */
const PILOT_EXPECTED_MIN = 1_000;

type VariantEstimate = { events: number; entities: number; overloads: ResourceOverload[]; pilot: boolean };

/**
 * Whether the events an entity causes depend on the queues it meets (loss, balking, abandonment, pre-emption,
 * batches, breakdowns): only then do the queueing formulas approximate the count, and a pilot corrects them. Elsewhere
 * every visit ends once and the analytic count is exact in expectation.
 */
function queueDependent(model: CompiledModel): boolean {
  if (model.resources.some((resource) => resource.breakdowns !== null)) return true;
  return model.steps.some(
    (step) =>
      (step.kind === STEP_SERVICE && (canRenege(step) || Number.isFinite(step.maxWaiting) || step.preempt !== PREEMPT_NONE || step.batchMax > 0)) ||
      (step.kind === STEP_SEIZE && Number.isFinite(step.maxWaiting)),
  );
}

/** Flows per time unit into each step, with the visits behind them and the queueing shares they imply. */
function flowsOf(model: CompiledModel, arrivals: number[], shares: QueueShares | null): { flowPerUnit: Float64Array; visitsByArrival: Float64Array[] } {
  const flowPerUnit = new Float64Array(model.steps.length);
  const visitsByArrival = model.arrivals.map((_, arrivalIndex) => expectedVisits(model, arrivalIndex, shares));
  visitsByArrival.forEach((visits, arrivalIndex) => {
    for (let step = 0; step < visits.length; step++) flowPerUnit[step]! += (visits[step]! * arrivals[arrivalIndex]!) / model.horizon;
  });
  return { flowPerUnit, visitsByArrival };
}

/** Flows first without reneging, then with the reneging (and turning away) the first flows imply. */
function settledFlows(model: CompiledModel, arrivals: number[]) {
  const first = flowsOf(model, arrivals, null);
  const shares = queueShares(model, first.flowPerUnit, first.visitsByArrival, arrivals);
  return { ...flowsOf(model, arrivals, shares), shares };
}

/** A resource whose queue can only grow: the work offered by steps that never give up or turn away is at or above its mean capacity. */
export type SaturatedResource = {
  resource: string;
  /** servers' worth of work offered, and the mean servers available */
  load: number;
  capacity: number;
  /** the steps offering that work: their servers' worth and the mean time each visit holds a server (world time unit) */
  steps: { step: string; work: number; mean_time: number }[];
};

/**
 * The resources of a variant that would be busy all the time with a queue growing through the horizon (the estimate's
 * flows, as its overload check counts them; not refused unless the backlog passes the entity limit).
 */
export function saturatedResources(spec: WorldSpec, variantId: string): SaturatedResource[] {
  const model = compileModel(spec, variantId);
  const arrivals = expectedArrivals(model).map((expected) => (Number.isFinite(expected) ? expected : 0));
  const { flowPerUnit } = settledFlows(model, arrivals);
  return model.resources.flatMap((resource, index) => {
    const steps: SaturatedResource['steps'] = [];
    model.steps.forEach((step, stepIndex) => {
      if (step.resource !== index || Number.isFinite(step.maxWaiting)) return;
      if (step.kind === STEP_SEIZE) {
        const hold = holdTime(model, stepIndex);
        steps.push({ step: step.id, work: flowPerUnit[stepIndex]! * hold, mean_time: hold });
      } else if (step.kind === STEP_SERVICE && !canRenege(step)) {
        const batch = expectedBatch(model, step, flowPerUnit[stepIndex]!);
        steps.push({ step: step.id, work: (flowPerUnit[stepIndex]! * serviceMean(model, step)) / batch, mean_time: serviceMean(model, step) / batch });
      }
    });
    const load = steps.reduce((sum, step) => sum + step.work, 0);
    const capacity = resource.capacityByHour ? resource.capacityByHour.reduce((sum, value) => sum + value, 0) / HOURS_PER_WEEK : resource.capacity;
    return load > 0 && load >= capacity ? [{ resource: resource.id, load, capacity, steps }] : [];
  });
}

/** The analytic expectation for one variant over the world's horizon (docs/simulation.md, Cost model). */
function analyticVariant(spec: WorldSpec, variantId: string, issues: Problem[] | null, arrivalPointer = true): VariantEstimate {
  const model = compileModel(spec, variantId);
  const arrivals = expectedArrivals(model);
  arrivals.forEach((expected, arrivalIndex) => {
    if (Number.isFinite(expected)) return;
    if (issues && arrivalPointer)
      issues.push({
        pointer: `/arrivals/${arrivalIndex}`,
        message: `arrival '${model.arrivals[arrivalIndex]!.id}' has a mean interarrival time of 0 under '${variantId}': arrivals would never stop`,
      });
    arrivals[arrivalIndex] = 0;
  });
  const { flowPerUnit, visitsByArrival, shares } = settledFlows(model, arrivals);
  let events = 0;
  visitsByArrival.forEach((visits, arrivalIndex) => {
    events += arrivals[arrivalIndex]! * eventsPerEntity(model, arrivalIndex, visits, shares);
  });
  // Entities in the system (Little's law: flow x mean time per step), plus the backlog of overloaded resources.
  const overloads = overloadedResources(model, flowPerUnit);
  const entities = estimateEntities(model, flowPerUnit, overloads);
  events += capacityChanges(model) + breakdownEvents(model, flowPerUnit);
  return { events, entities, overloads, pilot: queueDependent(model) };
}

/**
 * The pilot (docs/simulation.md, Cost model): replication 0 of the variant over a shortened horizon, chosen so the
 * analytic expectation is about `budget` events, run by the engine itself. Returns the ratio of the events it
 * simulated to the analytic expectation over the same horizon, which corrects what the queueing formulas miss (loss,
 * abandonment, pre-emption, bursts); 1 when the pilot is too small to say or the engine refuses it.
 */
export function pilotRatio(spec: WorldSpec, variantId: string, expected: number, budget: number): number {
  if (!(expected > 0)) return 1;
  let horizon = Math.min(spec.horizon, (spec.horizon * budget) / expected);
  let analytic = 0;
  for (let attempt = 0; attempt < 8; attempt++) {
    analytic = horizon >= spec.horizon ? expected : analyticVariant({ ...spec, horizon }, variantId, null).events;
    if (analytic >= PILOT_EXPECTED_MIN || horizon >= spec.horizon) break;
    horizon = Math.min(spec.horizon, horizon * 4);
  }
  if (analytic < PILOT_EXPECTED_MIN / 10) return 1;
  const pilot: WorldSpec = {
    ...spec,
    horizon,
    stop_when: undefined,
    cost_scenarios: undefined,
    measured: spec.measured.map((measure) => ({ ...measure, window: undefined, percentiles: undefined, threshold: undefined }) as typeof measure),
  };
  try {
    const simulated = runReplication(pilot, { variant_id: variantId, replication_index: 0, trace_limit: 0 }).event_counts.events_total;
    return simulated / analytic;
  } catch (error) {
    if (error instanceof ServiceError && error.code === 'WORLD_LIMIT_EXCEEDED') return 1;
    throw error;
  }
}

export function estimateRun(world: unknown): RunEstimate {
  const validation = validateWorld(world);
  const empty = { events_estimate: 0, events_per_replication_estimate: {}, credits_estimate: RUN_CREDITS_MIN, cost_model: COST_MODEL_DESCRIPTION };
  if (!validation.valid) return { runnable: false, issues: validation.problems, ...empty };
  const spec = world as WorldSpec;
  const issues: Problem[] = [];
  const horizonDays = (spec.horizon * minutesPer(spec.time_unit)) / 1440;
  if (horizonDays > HORIZON_DAYS_MAX)
    issues.push({ pointer: '/horizon', message: `horizon is ${Math.round(horizonDays)} days; HORIZON_DAYS_MAX is ${HORIZON_DAYS_MAX}` });
  if (spec.replications > REPLICATIONS_MAX)
    issues.push({ pointer: '/replications', message: `${spec.replications} replications; REPLICATIONS_MAX is ${REPLICATIONS_MAX}` });
  if (spec.variants.length > VARIANTS_MAX) issues.push({ pointer: '/variants', message: `${spec.variants.length} variants; VARIANTS_MAX is ${VARIANTS_MAX}` });

  const perReplication: Record<string, number> = {};
  const pilotBudget = Math.max(PILOT_EVENTS_MIN, Math.floor(PILOT_EVENTS / spec.variants.length));
  let total = 0;
  spec.variants.forEach((variant, index) => {
    const { events: analytic, entities, overloads, pilot } = analyticVariant(spec, variant.id, issues);
    if (entities > ENTITIES_IN_SYSTEM_MAX) {
      const named = overloads
        .map((overload) => {
          const over = overload.capacity > 0 ? `${Math.round((overload.load / overload.capacity - 1) * 100)}% above` : 'with no';
          return `resource '${overload.resource}' is offered ${round(overload.load)} servers' worth of work against a mean capacity of ${round(overload.capacity)} (${over} capacity), about ${Math.round(overload.backlog)} entities queued by the horizon`;
        })
        .join('; ');
      issues.push({
        pointer: `/variants/${index}`,
        message: `about ${Math.round(entities)} entities in the system at once under '${variant.id}'${named ? `: ${named}` : ''}; ENTITIES_IN_SYSTEM_MAX is ${ENTITIES_IN_SYSTEM_MAX}`,
      });
    }
    // A world the limits refuse is not piloted: its analytic figure is what the issue reports.
    const ratio = pilot && issues.length === 0 && analytic <= EVENTS_PER_REPLICATION_MAX ? pilotRatio(spec, variant.id, analytic, pilotBudget) : 1;
    const events = Math.ceil(analytic * ratio);
    perReplication[variant.id] = events;
    total += events * Math.min(spec.replications, REPLICATIONS_MAX);
    if (events > EVENTS_PER_REPLICATION_MAX) {
      issues.push({
        pointer: `/variants/${index}`,
        message: `about ${events} events per replication of '${variant.id}'; EVENTS_PER_REPLICATION_MAX is ${EVENTS_PER_REPLICATION_MAX}`,
      });
    }
  });
  if (total > EVENTS_PER_RUN_MAX)
    issues.push({ pointer: '/replications', message: `about ${total} events in the run; EVENTS_PER_RUN_MAX is ${EVENTS_PER_RUN_MAX}` });
  return {
    runnable: issues.length === 0,
    issues,
    events_estimate: total,
    events_per_replication_estimate: perReplication,
    credits_estimate: creditsForEvents(total),
    cost_model: COST_MODEL_DESCRIPTION,
  };
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
