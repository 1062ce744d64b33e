// The flow of entities through the steps: services, delays, branches, seizes and releases, the queues at resources,
// pre-emption and reneging.
import type { Replication } from './state.ts';
import { pick } from './pick.ts';
import { ServiceError } from '../../errors.ts';
import {
  type CompiledModel,
  conditionHolds,
  MOMENT_END,
  MOMENT_ENTER,
  MOMENT_RENEGE,
  MOMENT_TURNED_AWAY,
  MOMENT_START,
  PREEMPT_NONE,
  PREEMPT_RESUME,
  STEP_BRANCH_ATTRIBUTE,
  STEP_ASSIGN,
  STEP_RELEASE,
  STEP_SEIZE,
  STEP_BRANCH_PROBABILITY,
  STEP_BRANCH_RULES,
  STEP_BRANCH_SHORTEST_QUEUE,
  STEP_DELAY,
  STEP_EXIT,
  STEP_SERVICE,
} from '../model.ts';
import type { RandomStream } from '../random.ts';
import { EVENT_DELAY_END, EVENT_RENEGE, EVENT_SERVICE_END, STATE_IN_DELAY, STATE_IN_SERVICE, STATE_MOVING, STATE_WAITING } from '../engineLayout.ts';

export const flowMethods = {
  /**
   * Moves an entity into a step and on through instantaneous steps until it waits, is served, is delayed or leaves.
   * The common moves (a free server, a delay, the exit) are here; queueing and the instantaneous steps are out of line
   * in arriveAtBusyService and passStep, so this stays small enough for the JIT to inline its callees.
   */
  enterStep(entity: number, stepIndex: number): void {
    const steps = this.steps;
    let current = stepIndex;
    while (current >= 0) {
      const step = steps[current]!;
      this.entityStep[entity] = current;
      this.stepEntries[current]!++;
      this.hook(entity, current, MOMENT_ENTER);
      if (this.trace) this.recordStep('enter', entity, current, false, null);
      const kind = step.kind;
      if (kind === STEP_SERVICE) {
        const resource = step.resource;
        if (step.batchMax === 0 && this.queueLength[resource] === 0 && this.busy[resource]! < this.capacity[resource]!) {
          this.startService(entity, current);
          return;
        }
        current = this.arriveAtBusyService(entity, current);
      } else if (kind === STEP_DELAY) {
        this.startDelay(entity, current);
        return;
      } else if (kind === STEP_EXIT) {
        this.counts.exits++;
        this.leave(entity);
        return;
      } else current = this.passStep(entity, current);
    }
  },

  startDelay(entity: number, stepIndex: number): void {
    this.entityState[entity] = STATE_IN_DELAY;
    this.schedule(this.now + this.sample(this.steps[stepIndex]!.duration!, this.durationStreams[stepIndex]!), EVENT_DELAY_END, entity, 0);
  },

  /** An entity at a service step that has no free server at once (or serves batches). Returns the step it moves on to (-1: none). */
  arriveAtBusyService(entity: number, current: number): number {
    const step = this.steps[current]!;
    const resource = step.resource;
    if (this.hasBatch && step.batchMax > 0) {
      // Batch service: everyone waits in line; a free server takes a batch once enough wait.
      this.enqueue(entity, current);
      this.dispatchBatch(resource);
      return -1;
    }
    if (this.queueLength[resource] === 0 && this.busy[resource]! < this.capacity[resource]!) this.startService(entity, current);
    else if (step.preempt !== PREEMPT_NONE && this.preempt(entity, current)) this.startService(entity, current);
    else if (this.turnsAway(resource, step, current)) return this.turnedAway(entity, current);
    else this.enqueue(entity, current);
    return -1;
  },

  /** queue_limit (service or seize): the entity finds max_waiting or more waiting and balks (always, at balk probability 1: blocking/loss). */
  turnsAway(resource: number, step: CompiledModel['steps'][number], stepIndex: number): boolean {
    return this.queueLength[resource]! >= step.maxWaiting && (step.balkProbability >= 1 || this.balkStreams[stepIndex]!.uniform() < step.balkProbability);
  },

  /** The entity turned away goes on at once to the queue limit's step, or leaves. Returns the step it moves on to (-1: it left). */
  turnedAway(entity: number, stepIndex: number): number {
    this.hook(entity, stepIndex, MOMENT_TURNED_AWAY);
    const to = this.steps[stepIndex]!.balkTo;
    if (to >= 0) return to;
    this.leave(entity);
    return -1;
  },

  /** An instantaneous step (branch, assign, seize, release) or the exit. Returns the step the entity moves on to (-1: it waits or left). */
  passStep(entity: number, current: number): number {
    const step = this.steps[current]!;
    switch (step.kind) {
      case STEP_BRANCH_PROBABILITY:
        return step.branchNext![pick(step.branchCumulative!, this.branchStreams[current]!.uniform())]!;
      case STEP_BRANCH_SHORTEST_QUEUE:
        return this.shortestQueue(step, this.branchStreams[current]!);
      case STEP_BRANCH_RULES:
        return this.firstRule(entity, step);
      case STEP_SEIZE: {
        const resource = step.resource;
        if (this.queueLength[resource] === 0 && this.busy[resource]! < this.capacity[resource]!) {
          this.seized(entity, current);
          return step.next;
        }
        if (this.turnsAway(resource, step, current)) return this.turnedAway(entity, current);
        this.enqueue(entity, current);
        return -1;
      }
      case STEP_RELEASE: {
        const resource = step.resource;
        if (this.busy[resource]! <= 0)
          throw new ServiceError('INTERNAL', `release of '${this.model.resources[resource]!.id}' at step '${step.id}' with no unit held`);
        this.touch(resource);
        this.busy[resource]!--;
        if (this.trace) this.record('end', entity, step.id, this.model.resources[resource]!.id, null);
        // The next in line takes the unit before the releasing entity moves on (as at a service end).
        this.dispatch(resource);
        return step.next;
      }
      case STEP_ASSIGN: {
        const u = step.equals!.length > 1 ? this.branchStreams[current]!.uniform() : 0;
        this.entityAttributes[entity * this.attributeCount + step.attribute] = step.equals![pick(step.branchCumulative!, u)]!;
        return step.next;
      }
      case STEP_BRANCH_ATTRIBUTE: {
        const value = this.entityAttributes[entity * this.attributeCount + step.attribute];
        const equals = step.equals!;
        for (let k = 0; k < equals.length; k++) if (equals[k] === value) return step.branchNext![k]!;
        return step.otherwise;
      }
      default:
        this.counts.exits++;
        this.leave(entity);
        return -1;
    }
  },

  /** The option whose resource has the fewest entities waiting and in service; ties broken uniformly at random. */
  shortestQueue(step: CompiledModel['steps'][number], stream: RandomStream): number {
    const resources = step.routeResources!;
    let best = Number.POSITIVE_INFINITY;
    let chosen = 0;
    let ties = 0;
    for (let k = 0; k < resources.length; k++) {
      const resource = resources[k]!;
      const load = this.queueLength[resource]! + this.busy[resource]!;
      if (load < best) {
        best = load;
        chosen = k;
        ties = 1;
      } else if (load === best && stream.uniform() * ++ties < 1) chosen = k; // reservoir: each tied option with chance 1 / ties
    }
    return step.branchNext![chosen]!;
  },

  /** The first option whose conditions all hold (an unassigned attribute fails every condition), else `otherwise`. */
  firstRule(entity: number, step: CompiledModel['steps'][number]): number {
    const rules = step.rules!;
    const base = entity * this.attributeCount;
    for (let k = 0; k < rules.length; k++) {
      const conditions = rules[k]!;
      let holds = true;
      for (let c = 0; c < conditions.length && holds; c++) holds = conditionHolds(conditions[c]!, this.entityAttributes[base + conditions[c]!.attribute]!);
      if (holds) return step.branchNext![k]!;
    }
    return step.otherwise;
  },

  leave(entity: number): void {
    if (this.trace) this.record('leave', entity, null, null, null);
    this.releaseEntity(entity);
  },

  // ---- service ----

  startService(entity: number, stepIndex: number): void {
    const step = this.steps[stepIndex]!;
    const resource = step.resource;
    this.touch(resource);
    this.busy[resource]!++;
    this.entityState[entity] = STATE_IN_SERVICE;
    this.counts.service_starts++;
    this.hook(entity, stepIndex, MOMENT_START);
    if (this.trace) this.recordStep('start', entity, stepIndex, true, null);
    if (this.inService[resource]) this.startPreemptibleService(entity, stepIndex);
    else this.schedule(this.now + this.sample(step.duration!, this.durationStreams[stepIndex]!), EVENT_SERVICE_END, entity, 0);
  },

  /** Pre-emptive resource: remember the end and give the end event a token, so a pre-emption can make it stale. */
  startPreemptibleService(entity: number, stepIndex: number): void {
    const step = this.steps[stepIndex]!;
    const resource = step.resource;
    const remaining = this.entityRemaining[entity]!;
    const end = this.now + (Number.isNaN(remaining) ? this.sample(step.duration!, this.durationStreams[stepIndex]!) : remaining);
    this.entityRemaining[entity] = Number.NaN;
    this.entityServiceEnd[entity] = end;
    const token = ++this.tokenCounter;
    this.entityToken[entity] = token;
    this.inService[resource]!.push(entity);
    this.schedule(end, EVENT_SERVICE_END, entity, token);
    if (this.serverBase[resource]! >= 0) this.assignServer(entity, resource, end);
  },

  /** Priority value of an entity at a service step (lower first; no value = last). */
  priorityOf(entity: number, step: CompiledModel['steps'][number]): number {
    if (step.priorityAttribute < 0) return Number.MAX_VALUE;
    const value = this.entityAttributes[entity * this.attributeCount + step.priorityAttribute]!;
    return Number.isNaN(value) ? Number.MAX_VALUE : value;
  },

  /**
   * Pre-emption: when the arriving entity's priority value is lower than that of an entity in service at the resource
   * (the highest such value is displaced), the displaced entity goes back to the queue, first among its priority, with
   * its remaining time (resume) or a new draw later (restart). Returns true when a server was freed.
   */
  preempt(entity: number, stepIndex: number): boolean {
    const step = this.steps[stepIndex]!;
    const resource = step.resource;
    const inService = this.inService[resource]!;
    const priority = this.priorityOf(entity, step);
    let victimSlot = -1;
    let worst = priority;
    for (let k = 0; k < inService.length; k++) {
      const candidate = inService[k]!;
      const value = this.priorityOf(candidate, this.steps[this.entityStep[candidate]!]!);
      if (value > worst) {
        worst = value;
        victimSlot = k;
      }
    }
    if (victimSlot < 0) return false;
    const victim = inService[victimSlot]!;
    inService[victimSlot] = inService[inService.length - 1]!;
    inService.pop();
    const victimStep = this.entityStep[victim]!;
    if (this.serverBase[resource]! >= 0) this.freeServer(victim, resource);
    this.touch(resource);
    this.busy[resource]!--;
    this.counts.preemptions++;
    if (this.steps[victimStep]!.preempt === PREEMPT_RESUME) this.entityRemaining[victim] = this.entityServiceEnd[victim]! - this.now;
    this.enqueue(victim, victimStep, -1);
    return true;
  },

  enqueue,

  scheduleRenege(entity: number, stepIndex: number, token: number): void {
    const step = this.steps[stepIndex]!;
    if (step.renegeAfter !== Number.POSITIVE_INFINITY) this.schedule(this.now + step.renegeAfter, EVENT_RENEGE, entity, token);
    else this.schedule(this.now + this.sample(step.patience!, this.patienceStreams[stepIndex]!), EVENT_RENEGE, entity, token);
  },

  onServiceEnd(entity: number): void {
    const stepIndex = this.entityStep[entity]!;
    const step = this.steps[stepIndex]!;
    if (this.hasBatch && step.batchMax > 0) {
      this.onBatchEnd(entity, stepIndex);
      return;
    }
    const resource = step.resource;
    this.counts.service_ends++;
    this.hook(entity, stepIndex, MOMENT_END);
    if (this.trace) this.recordStep('end', entity, stepIndex, true, null);
    this.touch(resource);
    this.busy[resource]!--;
    const inService = this.inService[resource];
    if (inService) {
      inService.splice(inService.indexOf(entity), 1);
      if (this.serverBase[resource]! >= 0) this.freeServer(entity, resource);
    }
    // Free the server for the next in line before the finished entity moves on (as SimPy's release does).
    this.dispatch(resource);
    this.entityState[entity] = STATE_MOVING;
    this.enterStep(entity, step.next);
  },

  /** Starts batches at a batch-service resource while a server is free and at least the minimum batch waits. */
  dispatchBatch(resource: number): void {
    const stepIndex = this.model.resources[resource]!.batchStep;
    const step = this.steps[stepIndex]!;
    const queue = this.queues[resource]!;
    while (this.busy[resource]! < this.capacity[resource]! && this.queueLength[resource]! >= step.batchMin) {
      let first = -1;
      let last = -1;
      for (let taken = 0; taken < step.batchMax && this.queueLength[resource]! > 0; taken++) {
        const entity = queue.pop(this.entityToken, this.entityState);
        if (entity < 0) break;
        this.touch(resource);
        this.queueLength[resource]!--;
        this.entityState[entity] = STATE_IN_SERVICE;
        this.entityBatchNext[entity] = -1;
        if (last >= 0) this.entityBatchNext[last] = entity;
        else first = entity;
        last = entity;
        this.counts.service_starts++;
        this.hook(entity, stepIndex, MOMENT_START);
        if (this.trace) this.record('start', entity, step.id, this.model.resources[resource]!.id, null);
      }
      if (first < 0) return;
      this.touch(resource);
      this.busy[resource]!++;
      this.schedule(this.now + this.sample(step.duration!, this.durationStreams[stepIndex]!), EVENT_SERVICE_END, first, 0);
    }
  },

  /** A batch's service ended: its members end together, the server takes the next batch, then the members move on. */
  onBatchEnd(first: number, stepIndex: number): void {
    const step = this.steps[stepIndex]!;
    const resource = step.resource;
    const members: number[] = [];
    for (let entity = first; entity >= 0; entity = this.entityBatchNext[entity]!) members.push(entity);
    for (const entity of members) {
      this.counts.service_ends++;
      this.hook(entity, stepIndex, MOMENT_END);
      if (this.trace) this.record('end', entity, step.id, this.model.resources[resource]!.id, null);
    }
    this.touch(resource);
    this.busy[resource]!--;
    this.dispatchBatch(resource);
    for (const entity of members) {
      this.entityState[entity] = STATE_MOVING;
      this.enterStep(entity, step.next);
    }
  },

  dispatch(resource: number): void {
    if (this.hasBatch && this.model.resources[resource]!.batchStep >= 0) {
      this.dispatchBatch(resource);
      return;
    }
    const queue = this.queues[resource]!;
    while (this.queueLength[resource]! > 0 && this.busy[resource]! < this.capacity[resource]!) {
      const entity = queue.pop(this.entityToken, this.entityState);
      if (entity < 0) break;
      this.touch(resource);
      this.queueLength[resource]!--;
      const stepIndex = this.entityStep[entity]!;
      if (this.hasSeize && this.steps[stepIndex]!.kind === STEP_SEIZE) {
        this.seized(entity, stepIndex);
        this.entityState[entity] = STATE_MOVING;
        this.enterStep(entity, this.steps[stepIndex]!.next);
      } else this.startService(entity, stepIndex);
    }
  },

  /** The entity takes a unit of the seize step's resource and holds it until a release step. */
  seized(entity: number, stepIndex: number): void {
    const step = this.steps[stepIndex]!;
    this.touch(step.resource);
    this.busy[step.resource]!++;
    this.entityState[entity] = STATE_MOVING;
    this.hook(entity, stepIndex, MOMENT_START);
    if (this.trace) this.record('start', entity, step.id, this.model.resources[step.resource]!.id, null);
  },

  onDelayEnd(entity: number): void {
    const stepIndex = this.entityStep[entity]!;
    const step = this.steps[stepIndex]!;
    this.counts.delay_ends++;
    this.hook(entity, stepIndex, MOMENT_END);
    if (this.trace) this.record('end', entity, step.id, null, null);
    this.entityState[entity] = STATE_MOVING;
    this.enterStep(entity, step.next);
  },

  onRenege(entity: number, token: number): void {
    // Stale when the entity already started service (its token changes only when it queues again).
    if (this.entityState[entity] !== STATE_WAITING || this.entityToken[entity] !== token) return;
    const stepIndex = this.entityStep[entity]!;
    const step = this.steps[stepIndex]!;
    const resource = step.resource;
    this.touch(resource);
    this.queueLength[resource]!--;
    this.entityState[entity] = STATE_MOVING; // the queue entry is now dead and skipped lazily
    this.entityToken[entity] = 0;
    this.counts.reneges++;
    this.hook(entity, stepIndex, MOMENT_RENEGE);
    if (this.trace) this.record('renege', entity, step.id, this.model.resources[resource]!.id, null);
    if (step.renegeTo >= 0) this.enterStep(entity, step.renegeTo);
    else this.leave(entity);
  },
} satisfies ThisType<Replication>;

export type FlowMethods = typeof flowMethods;

// Out of the methods' object: its default `order` reads `this`, which an object's ThisType does not type, and a
// method typed with its own `this` would make the object's type depend on itself.
/** Queues an entity; `order` ranks it among equal priorities (default: arrival order at the queue; -1: first). */
function enqueue(this: Replication, entity: number, stepIndex: number, order: number = this.sequence): void {
  const step = this.steps[stepIndex]!;
  const resource = step.resource;
  this.touch(resource);
  this.queueLength[resource]!++;
  this.entityState[entity] = STATE_WAITING;
  const token = ++this.tokenCounter;
  this.entityToken[entity] = token;
  const priority = step.priorityAttribute >= 0 ? this.entityAttributes[entity * this.attributeCount + step.priorityAttribute]! : 0;
  this.queues[resource]!.push(entity, token, Number.isNaN(priority) ? Number.MAX_VALUE : priority, order);
  if (this.trace) this.recordStep('queue', entity, stepIndex, true, this.queueLength[resource]!);
  if (step.renegeAfter !== Number.POSITIVE_INFINITY || step.patience) this.scheduleRenege(entity, stepIndex, token);
}
