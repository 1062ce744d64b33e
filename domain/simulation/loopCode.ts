// The event loop of one replication, generated per compiled model for the models whose features it covers (the goal:
// the engine at least 60 times SimPy). The generic loop (engine/calendar.ts, Replication.loop) keeps the clock, the heap's size,
// the sequence number and each resource's counts in fields of the replication and looks each step's kind, resource
// and duration up per event; this one keeps them in local variables, which TurboFan holds in registers across the
// whole loop, and has every step's code written out with its indices as literals (no step object is read per event).
// A hand-written loop for M/M/5 measured ×1.6 the generic one's events per second, most of it from the locals.
//
// It is the generic engine's logic, statement for statement and in the same order: the same draws from the same
// streams, the same sequence numbers and heap order, the same measure arithmetic, so results are bit-identical (the
// pinned digests of test/unit/simulation-determinism.test.ts cover it, and test/unit/simulation-loop.test.ts compares
// it with the generic loop). It covers Poisson and renewal arrivals, FIFO service (with shifts and queue limits), delays,
// probability branches and exits. Models with any other feature (trace, batches, pre-emption, priority queues,
// breakdowns, reneging, seize/release, attributes, scheduled or rate-table arrivals) run the generic loop; so a seize
// that turns entities away (its queue_limit) always runs there. A service's queue limit is covered here, its
// `turned_away` moment included.
// The safety rule of engineCode.ts holds: only the model's integers and this file's fixed text are in the source.
import {
  EVENT_ARRIVAL,
  EVENT_DELAY_END,
  EVENT_SERVICE_END,
  MEASURE_WINDOW_END,
  MEASURE_WINDOW_START,
  PRIORITY_SCALE,
  STATE_FREE,
  STATE_IN_DELAY,
  STATE_IN_SERVICE,
  STATE_MOVING,
  STATE_WAITING,
} from './engineLayout.ts';
import { areaLines, generated, hookLines, int, measureAt, resourceMeasures } from './engineCode.ts';
import { ENTITIES_IN_SYSTEM_MAX, EVENTS_PER_REPLICATION_MAX } from './limits.ts';
import {
  ARRIVAL_POISSON,
  ARRIVAL_RENEWAL,
  type CompiledDistribution,
  type CompiledModel,
  DIST_EXPONENTIAL,
  MEASURE_COUNT,
  MOMENT_END,
  MOMENT_ENTER,
  MOMENT_START,
  MOMENT_STRIDE,
  MOMENT_TURNED_AWAY,
  PREEMPT_NONE,
  STEP_BRANCH_PROBABILITY,
  STEP_DELAY,
  STEP_EXIT,
  STEP_SERVICE,
} from './model.ts';

/**
 * The generated loop: runs the replication `r` on for up to LOOP_CHUNK_EVENTS events (its running count in
 * r.eventsProcessed), and returns 1 when it stopped there (call again) or 0 when the replication reached its end.
 */
export type LoopCode = (r: unknown, pick: (cumulative: Float64Array, u: number) => number, eventLimit: () => Error, entityLimit: () => Error) => number;

/**
 * Events per call of the generated loop. A replication's loop is called in chunks, not once to the end, so that V8
 * optimises the function as a whole after a few calls: run once, it is only ever entered by on-stack replacement, and
 * that code keeps the loop's doubles (the clock, the next arrival's time and key) tagged, one heap number each time one
 * changes (measured: 3x the scavenges, and ×0.8 the events per second). A chunk's state goes back to the replication
 * and is read again: a few dozen field accesses per 65,536 events.
 */
export const LOOP_CHUNK_EVENTS = 65_536;

/** Branches followed within one instant before the model is left to the generic loop (a cycle of branches never waits). */
const BRANCH_DEPTH_MAX = 8;
/** Generated source longer than this (a model with many steps and branches) is left to the generic loop. */
const SOURCE_LENGTH_MAX = 100_000;

const loopCache = new WeakMap<CompiledModel, LoopCode | null>();

/** The model's specialised loop, or null when it uses a feature the loop does not cover. Cached per compiled model. */
export function specialisedLoop(model: CompiledModel): LoopCode | null {
  const cached = loopCache.get(model);
  if (cached !== undefined) return cached;
  const source = specialisedLoopSource(model);
  const code = source === null ? null : (generated(source, 'r', 'pick', 'eventLimit', 'entityLimit') as LoopCode);
  loopCache.set(model, code);
  return code;
}

/** The specialised loop's source (null when the model is not covered). */
export function specialisedLoopSource(model: CompiledModel): string | null {
  return loopCovers(model) ? new LoopWriter(model).source() : null;
}

/** Whether every feature the model uses is one the specialised loop covers (the rest run the generic loop). */
function loopCovers(model: CompiledModel): boolean {
  const resourcesCovered = model.resources.every(
    (resource) => !resource.usesPriority && !resource.preemptive && resource.batchStep < 0 && !resource.breakdowns,
  );
  const arrivalsCovered = model.arrivals.every(
    (arrival) =>
      (arrival.kind === ARRIVAL_POISSON || (arrival.kind === ARRIVAL_RENEWAL && arrival.interarrival !== null)) &&
      arrival.batchCumulative === null &&
      arrival.batchSize === 1 &&
      arrival.attributes.length === 0,
  );
  const stepsCovered = model.steps.every((step) => {
    if (step.kind === STEP_SERVICE)
      return (
        step.duration !== null &&
        step.batchMax === 0 &&
        step.preempt === PREEMPT_NONE &&
        step.renegeAfter === Number.POSITIVE_INFINITY &&
        step.patience === null &&
        step.priorityAttribute < 0
      );
    if (step.kind === STEP_DELAY) return step.duration !== null;
    if (step.kind === STEP_BRANCH_PROBABILITY) return step.branchNext !== null && step.branchCumulative !== null;
    // Seize and release (with or without a queue_limit) are left to the generic loop.
    return step.kind === STEP_EXIT;
  });
  return model.arrivals.length > 0 && resourcesCovered && arrivalsCovered && stepsCovered;
}

/** The code of the entity's step: a switch on its step, or the one case's code alone (the entity can be at no other). */
function byStep(entity: string, cases: [number, string[]][]): string[] {
  if (cases.length === 1) return ['{', ...cases[0]![1], '}'];
  const lines = [`switch (estep[${entity}]) {`];
  for (const [stepIndex, body] of cases) lines.push(`case ${int(stepIndex)}: {`, ...body, '  break;', '}');
  lines.push('}');
  return lines;
}

/** A draw from a distribution as source text: the generic sample(), with its exponential case chosen here. */
function sampleText(distribution: CompiledDistribution, name: string, stream: string): string {
  return distribution.kind === DIST_EXPONENTIAL ? `${name}.a * ${stream}.standardExponential()` : `r.sampleOther(${name}, ${stream})`;
}

/** Writes the loop's source. Each method returns the text of one piece of the generic engine, named after it. */
class LoopWriter {
  readonly model: CompiledModel;
  /** the resources some service step uses or whose capacity changes (the others are never touched in a covered model) */
  readonly usedResources: number[];
  /** the resources whose capacity changes with their shifts: capacity-change events are in the heap */
  readonly shiftResources: number[];
  /** set when a branch chain is too deep: the model is left to the generic loop */
  tooDeep = false;
  /** some event finds the entity's step in entityStep (byStep with more than one case); else entityStep is not written */
  readonly readsStep: boolean;

  constructor(model: CompiledModel) {
    this.model = model;
    const used = new Set<number>();
    for (const step of model.steps) if (step.kind === STEP_SERVICE) used.add(step.resource);
    // A resource's capacity changes when some slot of its week differs from the one before (Replication.capacityChangeHours).
    this.shiftResources = model.resources.flatMap((resource, index) => {
      const slots = resource.capacityBySlot;
      return slots?.some((capacity, slot) => capacity !== slots[(slot + slots.length - 1) % slots.length]) ? [index] : [];
    });
    for (const resource of this.shiftResources) used.add(resource);
    this.usedResources = [...used].sort((a, b) => a - b);
    // Service ends and dispatches switch on the step among the service steps, delay ends among the delay steps.
    const count = (kind: number) => model.steps.filter((step) => step.kind === kind).length;
    this.readsStep = count(STEP_SERVICE) > 1 || count(STEP_DELAY) > 1;
  }

  source(): string | null {
    const text = [...this.prologue(), ...this.loop(), ...this.epilogue()].join('\n');
    return this.tooDeep || text.length > SOURCE_LENGTH_MAX ? null : text;
  }

  /** The replication's state into locals (the loop writes it back at the end: epilogue). */
  prologue(): string[] {
    const model = this.model;
    const lines = [
      'const horizon = r.horizon;',
      'const warmUp = r.model.warmUp;',
      'const ms = r.measureState;',
      'const se = r.stepEntries;',
      'const ma = r.measureArrivals;',
      'let now = r.now, seq = r.sequence, heapSize = r.heapSize, rootTaken = false;',
      `let events = r.eventsProcessed, more = 0; const limit = Math.min(events + ${int(LOOP_CHUNK_EVENTS)}, ${int(EVENTS_PER_REPLICATION_MAX)});`,
      'let heapE = r.heapEvents, heapA = r.heapArgs;',
      'let state = r.entityState, marks = r.entityMarks, estep = r.entityStep, free = r.freeList, attrs = r.entityAttributes;',
      'let freeCount = r.freeCount, nextEntity = r.nextEntity, live = r.live, capE = r.entityCapacity;',
      'let cArrivals = 0, cStarts = 0, cEnds = 0, cDelays = 0, cExits = 0, cShifts = 0, afterWarmUp = r.arrivalsAfterWarmUp;',
      'let na = r.nextArrival, nat = r.nextArrivalTime, nak = r.nextArrivalKey;',
    ];
    for (const resource of this.usedResources) {
      const k = int(resource);
      lines.push(`let busy${k} = r.busy[${k}], queue${k} = r.queueLength[${k}], last${k} = r.resourceLastTime[${k}];`);
      lines.push(`let cap${k} = r.capacity[${k}];`, `const fifo${k} = r.queues[${k}], slots${k} = r.model.resources[${k}].capacityBySlot;`);
      lines.push(`let ring${k} = fifo${k}.entities, head${k} = fifo${k}.head;`);
    }
    model.arrivals.forEach((_, index) => {
      const i = int(index);
      lines.push(`let at${i} = r.arrivalTime[${i}], ak${i} = r.arrivalKey[${i}];`);
      lines.push(`const as${i} = r.arrivalStreams[${i}], ar${i} = r.model.arrivals[${i}], rate${i} = ar${i}.rate, ia${i} = ar${i}.interarrival;`);
    });
    model.steps.forEach((step, index) => {
      const j = int(index);
      lines.push(`let se${j} = se[${j}];`); // the step's entries (stepEntries) in a local too
      if (step.duration) lines.push(`const dd${j} = r.steps[${j}].duration, ds${j} = r.durationStreams[${j}];`);
      if (step.kind === STEP_SERVICE && Number.isFinite(step.maxWaiting))
        lines.push(`const mw${j} = r.steps[${j}].maxWaiting, bp${j} = r.steps[${j}].balkProbability, bk${j} = r.balkStreams[${j}];`);
      if (step.kind === STEP_BRANCH_PROBABILITY) lines.push(`const bc${j} = r.steps[${j}].branchCumulative, bs${j} = r.branchStreams[${j}];`);
    });
    return lines;
  }

  /** The locals back into the replication, for finish() (run() sets the clock to the horizon after). */
  epilogue(): string[] {
    const lines = [
      'r.now = now; r.sequence = seq; r.heapSize = heapSize; r.rootTaken = false;',
      'r.freeCount = freeCount; r.nextEntity = nextEntity; r.live = live; r.arrivalsAfterWarmUp = afterWarmUp;',
      'const counts = r.counts;',
      'counts.arrivals += cArrivals; counts.service_starts += cStarts; counts.service_ends += cEnds; counts.delay_ends += cDelays; counts.exits += cExits;',
      'counts.capacity_changes += cShifts;',
      'r.nextArrival = na; r.nextArrivalTime = nat; r.nextArrivalKey = nak;',
    ];
    for (const resource of this.usedResources) {
      const k = int(resource);
      lines.push(`r.busy[${k}] = busy${k}; r.queueLength[${k}] = queue${k}; r.resourceLastTime[${k}] = last${k}; r.capacity[${k}] = cap${k};`);
      lines.push(`fifo${k}.entities = ring${k}; fifo${k}.head = head${k}; fifo${k}.size = queue${k};`);
    }
    for (let index = 0; index < this.model.arrivals.length; index++) {
      const i = int(index);
      lines.push(`r.arrivalTime[${i}] = at${i}; r.arrivalKey[${i}] = ak${i};`);
    }
    for (let index = 0; index < this.model.steps.length; index++) lines.push(`se[${int(index)}] = se${int(index)};`);
    lines.push('r.eventsProcessed = events;', 'return more;');
    return lines;
  }

  /** Replication.loop: the earliest of the next arrival and the heap's root, until the horizon. */
  loop(): string[] {
    const model = this.model;
    // One count check an event for both the chunk's end (LOOP_CHUNK_EVENTS: the event is left for the next call) and
    // EVENTS_PER_REPLICATION_MAX (the generic loop's error when the event past it is taken).
    const counted = [
      '    if (++events > limit) {',
      `      if (events > ${int(EVENTS_PER_REPLICATION_MAX)}) throw eventLimit();`,
      '      events--;',
      '      more = 1;',
      '      break;',
      '    }',
    ];
    const lines = ['for (;;) {'];
    lines.push('  if (heapSize === 0 || nat < heapE[0] || (nat === heapE[0] && nak < heapE[1])) {');
    lines.push('    if (na < 0) break;', ...counted, '    now = nat;');
    if (model.arrivals.length === 1) lines.push(...this.arrival(0));
    else {
      lines.push('    switch (na) {');
      for (let index = 0; index < model.arrivals.length; index++) lines.push(`    case ${int(index)}: {`, ...this.arrival(index), '      break;', '    }');
      lines.push('    }');
    }
    lines.push('    continue;', '  }', '  const eventTime = heapE[0];', '  if (eventTime > horizon) break;', ...counted.map((line) => line.slice(2)));
    lines.push('  const ent = heapA[0];', '  rootTaken = true; // removed by the first event this one schedules, or after it', '  now = eventTime;');
    // The event's kind from its key (kind × 2^44 + sequence): capacity changes (with shifts), service ends, delay ends.
    const ends = [`if (heapE[1] < ${int(EVENT_DELAY_END * PRIORITY_SCALE)}) {`, ...this.serviceEnd(), '} else {', ...this.delayEnd(), '}'];
    if (this.shiftResources.length === 0) lines.push(...ends.map((line) => `  ${line}`));
    else lines.push(`  if (heapE[1] < ${int(EVENT_SERVICE_END * PRIORITY_SCALE)}) {`, ...this.capacityChange(), '  } else', ...ends.map((line) => `  ${line}`));
    lines.push('  if (rootTaken) {', '    rootTaken = false;', '    const size0 = --heapSize;', '    if (size0 > 0) {');
    lines.push('      const time = heapE[2 * size0];', '      const key = heapE[2 * size0 + 1];', '      const moved = heapA[2 * size0];');
    if (this.shiftResources.length > 0) lines.push('      const movedB = heapA[2 * size0 + 1];');
    lines.push(...this.siftDown('size0', 'moved', 'movedB'), '    }', '  }', '}');
    return lines;
  }

  /** Replication.onArrival for source `index` (now is its time): its next arrival, the next of all, a new entity. */
  arrival(index: number): string[] {
    const model = this.model;
    const arrival = model.arrivals[index]!;
    const i = int(index);
    const lines = [`at${i} = Infinity; // taken: the arrival puts the next one of its source in the slot, if any`];
    if (arrival.kind === ARRIVAL_POISSON) lines.push(`if (rate${i} > 0) {`, `  const time = now + as${i}.standardExponential() / rate${i};`);
    else lines.push('{', `  const time = now + ${sampleText(arrival.interarrival!, `ia${i}`, `as${i}`)};`);
    lines.push(`  if (!(time > horizon)) { at${i} = time; ak${i} = ${int(EVENT_ARRIVAL * PRIORITY_SCALE)} + seq++; }`, '}');
    lines.push(...this.findNextArrival());
    lines.push('let e;', 'if (freeCount > 0) e = free[--freeCount];', 'else {', '  if (nextEntity === capE) {', '    r.growEntities();');
    lines.push('    state = r.entityState; marks = r.entityMarks; estep = r.entityStep; free = r.freeList;');
    lines.push('    attrs = r.entityAttributes; capE = r.entityCapacity;', '  }', '  e = nextEntity++;', '}');
    lines.push(`if (++live > ${int(ENTITIES_IN_SYSTEM_MAX)}) throw entityLimit();`, `state[e] = ${int(STATE_MOVING)};`);
    const attributes = model.attributeNames.length;
    if (attributes > 0) lines.push(`for (let k = 0; k < ${int(attributes)}; k++) attrs[e * ${int(attributes)} + k] = NaN;`);
    for (let slot = 0; slot < model.markSlots; slot++) lines.push(`marks[e * ${int(model.markSlots)} + ${int(slot)}] = NaN;`);
    lines.push('cArrivals++;', 'if (now >= warmUp) afterWarmUp++;');
    model.measures.forEach((measure, m) => {
      if (measure.kind !== MEASURE_COUNT || measure.denominator !== 'arrival') return;
      lines.push(`if (now >= ${measureAt(m, MEASURE_WINDOW_START)} && now < ${measureAt(m, MEASURE_WINDOW_END)}) ma[${int(m)}]++;`);
    });
    lines.push(...this.enterStep('e', arrival.toStep, 0));
    return lines.map((line) => `    ${line}`);
  }

  /** Replication.findNextArrival: the earliest pending arrival among the slots. */
  findNextArrival(): string[] {
    const count = this.model.arrivals.length;
    if (count === 1) return ['na = at0 === Infinity ? -1 : 0;', 'nat = at0;', 'nak = ak0;'];
    const lines = ['na = -1;', 'nat = Infinity;', 'nak = 0;'];
    for (let index = 0; index < count; index++) {
      const i = int(index);
      lines.push(`if (at${i} < nat || (at${i} === nat && at${i} !== Infinity && ak${i} < nak)) { na = ${i}; nat = at${i}; nak = ak${i}; }`);
    }
    return lines;
  }

  /** Replication.enterStep for a step known here: its code, and through branches the code of the steps they lead to. */
  enterStep(entity: string, stepIndex: number, depth: number): string[] {
    if (stepIndex < 0) return [];
    if (depth > BRANCH_DEPTH_MAX) {
      this.tooDeep = true;
      return [];
    }
    const step = this.model.steps[stepIndex]!;
    const j = int(stepIndex);
    const lines = [...(this.readsStep ? [`estep[${entity}] = ${j};`] : []), `se${j}++;`, ...this.hook(entity, stepIndex, MOMENT_ENTER)];
    if (step.kind === STEP_SERVICE) {
      const k = int(step.resource);
      lines.push(`if (queue${k} === 0 && busy${k} < cap${k}) {`, ...this.startService(entity, stepIndex), '} else {');
      lines.push(...this.arriveAtBusyService(entity, stepIndex, depth), '}');
    } else if (step.kind === STEP_DELAY) {
      lines.push(
        `state[${entity}] = ${int(STATE_IN_DELAY)};`,
        ...this.schedule(`now + ${sampleText(step.duration!, `dd${j}`, `ds${j}`)}`, EVENT_DELAY_END, entity),
      );
    } else if (step.kind === STEP_EXIT) {
      lines.push('cExits++;', `state[${entity}] = ${int(STATE_FREE)};`, `free[freeCount++] = ${entity};`, 'live--;');
    } else {
      // A probability branch: the option drawn as the generic passStep draws it, each option's step written out.
      const next = step.branchNext!;
      lines.push(`switch (pick(bc${j}, bs${j}.uniform())) {`);
      next.forEach((target, option) => {
        lines.push(option === next.length - 1 ? 'default: {' : `case ${int(option)}: {`, ...this.enterStep(entity, target, depth + 1), '  break;', '}');
      });
      lines.push('}');
    }
    return lines;
  }

  /** Replication.startService at a service step known here. */
  startService(entity: string, stepIndex: number): string[] {
    const step = this.model.steps[stepIndex]!;
    const j = int(stepIndex);
    const lines = [...this.touch(step.resource), `busy${int(step.resource)}++;`, `state[${entity}] = ${int(STATE_IN_SERVICE)};`, 'cStarts++;'];
    lines.push(...this.hook(entity, stepIndex, MOMENT_START));
    lines.push(...this.schedule(`now + ${sampleText(step.duration!, `dd${j}`, `ds${j}`)}`, EVENT_SERVICE_END, entity));
    return lines.map((line) => `  ${line}`);
  }

  /**
   * Replication.enqueue at a FIFO service step without reneging, on the resource's FifoQueue ring (its entities, head
   * and size) held in locals. The queue's tokens are not kept: in a covered model nothing makes a queued entry stale
   * (no reneging, pre-emption or breakdown), so the generic pop's check always passes and the queue length is the ring's size.
   */
  enqueue(entity: string, stepIndex: number): string[] {
    const resource = this.model.steps[stepIndex]!.resource;
    const k = int(resource);
    const lines = [...this.touch(resource), `if (queue${k} === ring${k}.length) {`, `  const grown = new Int32Array(2 * queue${k});`];
    lines.push(`  for (let q = 0; q < queue${k}; q++) grown[q] = ring${k}[(head${k} + q) & (queue${k} - 1)];`, `  ring${k} = grown;`, `  head${k} = 0;`, '}');
    lines.push(`ring${k}[(head${k} + queue${k}) & (ring${k}.length - 1)] = ${entity};`, `queue${k}++;`, `state[${entity}] = ${int(STATE_WAITING)};`);
    return lines.map((line) => `  ${line}`);
  }

  /**
   * Replication.onCapacityChange of the resource `ent` (the event's a) to its slot (b). The next change is scheduled by
   * the generic scheduleCapacityChange, with the heap's state handed over and back (a few times a simulated day).
   */
  capacityChange(): string[] {
    const lines = ['const slot = heapA[1];', 'switch (ent) {'];
    for (const resource of this.shiftResources) {
      const k = int(resource);
      lines.push(`case ${k}: {`, ...this.touch(resource), `cap${k} = slots${k}[slot % slots${k}.length];`, 'cShifts++;');
      lines.push('r.heapSize = heapSize; r.sequence = seq; r.rootTaken = rootTaken;', `r.scheduleCapacityChange(${k}, slot);`);
      lines.push('heapSize = r.heapSize; seq = r.sequence; rootTaken = r.rootTaken; heapE = r.heapEvents; heapA = r.heapArgs;');
      lines.push(...this.dispatch(resource), 'break;', '}');
    }
    lines.push('}');
    return lines.map((line) => `    ${line}`);
  }

  /** Replication.arriveAtBusyService at a FIFO step: the entity balks (queue_limit) or joins the line. */
  arriveAtBusyService(entity: string, stepIndex: number, depth: number): string[] {
    const step = this.model.steps[stepIndex]!;
    if (!Number.isFinite(step.maxWaiting)) return this.enqueue(entity, stepIndex);
    const j = int(stepIndex);
    const k = int(step.resource);
    // Balks (or is blocked: a full queue with balk probability 1) and goes on at once, to its step or out.
    const lines = [`if (queue${k} >= mw${j} && (bp${j} >= 1 || bk${j}.uniform() < bp${j})) {`, ...this.hook(entity, stepIndex, MOMENT_TURNED_AWAY)];
    if (step.balkTo >= 0) lines.push(...this.enterStep(entity, step.balkTo, depth + 1));
    else lines.push(`state[${entity}] = ${int(STATE_FREE)};`, `free[freeCount++] = ${entity};`, 'live--;');
    lines.push('} else {', ...this.enqueue(entity, stepIndex), '}');
    return lines;
  }

  /** Replication.onServiceEnd of the entity `ent`, at its step. */
  serviceEnd(): string[] {
    const cases: [number, string[]][] = [];
    this.model.steps.forEach((step, stepIndex) => {
      if (step.kind !== STEP_SERVICE) return;
      const k = int(step.resource);
      const lines = ['cEnds++;', ...this.hook('ent', stepIndex, MOMENT_END), ...this.touch(step.resource), `busy${k}--;`];
      // Free the server for the next in line before the finished entity moves on (as the generic dispatch does).
      lines.push(...this.dispatch(step.resource), `state[ent] = ${int(STATE_MOVING)};`, ...this.enterStep('ent', step.next, 0));
      cases.push([stepIndex, lines]);
    });
    return byStep('ent', cases).map((line) => `    ${line}`);
  }

  /** Replication.onDelayEnd of the entity `ent`, at its step. */
  delayEnd(): string[] {
    const cases: [number, string[]][] = [];
    this.model.steps.forEach((step, stepIndex) => {
      if (step.kind !== STEP_DELAY) return;
      const lines = ['cDelays++;', ...this.hook('ent', stepIndex, MOMENT_END), `state[ent] = ${int(STATE_MOVING)};`];
      cases.push([stepIndex, [...lines, ...this.enterStep('ent', step.next, 0)]]);
    });
    return byStep('ent', cases).map((line) => `    ${line}`);
  }

  /** Replication.dispatch: the next in line start service while a server is free (at their own step of this resource). */
  dispatch(resource: number): string[] {
    const k = int(resource);
    const lines = [`while (queue${k} > 0 && busy${k} < cap${k}) {`, `  const w = ring${k}[head${k}];`, `  head${k} = (head${k} + 1) & (ring${k}.length - 1);`];
    lines.push(...this.touch(resource).map((line) => `  ${line}`), `  queue${k}--;`);
    const cases: [number, string[]][] = [];
    this.model.steps.forEach((step, stepIndex) => {
      if (step.kind === STEP_SERVICE && step.resource === resource) cases.push([stepIndex, this.startService('w', stepIndex)]);
    });
    lines.push(...byStep('w', cases).map((line) => `  ${line}`), '}');
    return lines;
  }

  /** The generic touch: the resource's areas up to now (nothing for a resource without utilisation or queue measures). */
  touch(resource: number): string[] {
    const measures = resourceMeasures(this.model, resource);
    if (measures.length === 0) return [];
    const k = int(resource);
    const names = { busy: `busy${k}`, queue: `queue${k}`, capacity: `cap${k}` };
    return [
      `if (now !== last${k}) {`,
      `  const last = last${k};`,
      ...areaLines(this.model, measures, names).map((line) => `  ${line}`),
      `  last${k} = now;`,
      '}',
    ];
  }

  /** The measure hooks of (step, moment) for an entity. */
  hook(entity: string, stepIndex: number, moment: number): string[] {
    const lines = hookLines(this.model, stepIndex * MOMENT_STRIDE + moment, 'marks');
    return lines.length === 0 ? [] : ['{', `  const entity = ${entity};`, ...lines.map((line) => `  ${line}`), '}'];
  }

  /** Replication.schedule and push: the event at `time` into the heap (in the root's place when the loop has taken it). */
  schedule(time: string, kind: number, entity: string): string[] {
    const lines = ['{', `  const time = ${time};`, '  if (!(time > horizon)) { // never processed past the horizon'];
    lines.push(`    const key = ${int(kind * PRIORITY_SCALE)} + seq++;`, '    if (rootTaken) {', '      rootTaken = false;');
    lines.push(...this.siftDown('heapSize', entity, '0').map((line) => `    ${line}`), '    } else {');
    lines.push('      if (2 * heapSize === heapE.length) { r.growHeap(); heapE = r.heapEvents; heapA = r.heapArgs; }');
    lines.push(
      '      let index = heapSize++;',
      '      while (index > 0) {',
      '        const parent = (index - 1) >> 1;',
      '        const parentTime = heapE[2 * parent];',
    );
    lines.push('        if (parentTime < time || (parentTime === time && heapE[2 * parent + 1] < key)) break;');
    lines.push(
      `        heapE[2 * index] = parentTime; heapE[2 * index + 1] = heapE[2 * parent + 1]; heapA[2 * index] = heapA[2 * parent];${this.moveB('parent')}`,
    );
    lines.push(
      '        index = parent;',
      '      }',
      `      heapE[2 * index] = time; heapE[2 * index + 1] = key; heapA[2 * index] = ${entity};${this.placeB('0')}`,
    );
    lines.push('    }', '  }', '}');
    return lines;
  }

  /**
   * Without shifts, every event of a covered model has b = 0, which nothing reads, so the heap's b slots are not moved;
   * with shifts, a capacity change's b is its slot, and b moves with its event as in the generic heap.
   */
  moveB(from: string): string {
    return this.shiftResources.length === 0 ? '' : ` heapA[2 * index + 1] = heapA[2 * ${from} + 1];`;
  }

  placeB(b: string): string {
    return this.shiftResources.length === 0 ? '' : ` heapA[2 * index + 1] = ${b};`;
  }

  /** Replication.siftDown: (time, key, entity, b) from the root of the heap's first `size` entries down. */
  siftDown(size: string, entity: string, b: string): string[] {
    return [
      '  {',
      `    const size = ${size};`,
      '    const half = size >> 1;',
      '    let index = 0;',
      '    while (index < half) {',
      '      let child = 2 * index + 1;',
      '      const right = child + 1;',
      '      if (right < size) {',
      '        // The earlier child as a sum of comparisons, not a branch (as the generic siftDown, whose comment says why).',
      '        const leftTime = heapE[2 * child];',
      '        const rightTime = heapE[2 * right];',
      '        child += Number(rightTime < leftTime) + Number(rightTime === leftTime && heapE[2 * right + 1] < heapE[2 * child + 1]);',
      '      }',
      '      const childTime = heapE[2 * child];',
      '      if (time < childTime || (time === childTime && key < heapE[2 * child + 1])) break;',
      `      heapE[2 * index] = childTime; heapE[2 * index + 1] = heapE[2 * child + 1]; heapA[2 * index] = heapA[2 * child];${this.moveB('child')}`,
      '      index = child;',
      '    }',
      `    heapE[2 * index] = time; heapE[2 * index + 1] = key; heapA[2 * index] = ${entity};${this.placeB(b)}`,
      '  }',
    ];
  }
}
