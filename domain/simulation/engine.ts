// The discrete-event engine: event scheduling over a binary heap held in typed arrays, with each arrival source's next
// arrival in a slot of its own beside it (spec: What the service does 4).
// Deterministic for a seed. Ties are broken by (time, event priority, insertion sequence): at one instant capacity
// changes come first, then service ends (freeing servers), then delay ends, then reneges, then arrivals; events of the
// same kind run in the order they were scheduled.
import { DDSketch } from '@datadog/sketches-js';
import { ServiceError } from '../errors.ts';
import { EVENT_TRACE_CAP_PER_VARIANT, ENTITIES_IN_SYSTEM_MAX, EVENTS_PER_REPLICATION_MAX } from './limits.ts';
import {
  ARRIVAL_POISSON,
  ARRIVAL_RENEWAL,
  ARRIVAL_SCHEDULED,
  type CompiledDistribution,
  type CompiledModel,
  compileModel,
  conditionHolds,
  CLOCK_BUSY,
  DIST_EMPIRICAL,
  DIST_EXPONENTIAL,
  DIST_FIXED,
  DIST_GAMMA,
  DIST_LOGNORMAL,
  DIST_NORMAL,
  DIST_TRIANGULAR,
  DIST_UNIFORM,
  HOURS_PER_WEEK,
  MEASURE_COUNT,
  MEASURE_QUEUE_LENGTH,
  MEASURE_TIME_BETWEEN,
  MEASURE_UTILISATION,
  MOMENT_END,
  MOMENT_ENTER,
  MOMENT_RENEGE,
  MOMENT_STRIDE,
  MOMENT_TURNED_AWAY,
  MOMENT_START,
  PREEMPT_NONE,
  PREEMPT_RESUME,
  rateTableRate,
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
} from './model.ts';
import { boundedNormalDraw } from './normal.ts';
import { RandomStream } from './random.ts';
import { areaLines, generated, hookLines, int } from './engineCode.ts';
import { type LoopCode, specialisedLoop } from './loopCode.ts';
import type { WorldSpec } from '../contracts/worldSpec.ts';
import {
  EVENT_ARRIVAL,
  EVENT_DELAY_END,
  EVENT_FAILURE,
  EVENT_RENEGE,
  EVENT_REPAIR,
  EVENT_SERVICE_END,
  EVENT_SHIFT,
  INVERSE_PRIORITY_SCALE,
  MEASURE_AREA,
  MEASURE_CAPACITY_AREA,
  MEASURE_DETAILED,
  MEASURE_DISCOUNTED,
  MEASURE_DISCOUNTED_CAPACITY,
  MEASURE_KIND,
  MEASURE_OBSERVATIONS,
  MEASURE_STRIDE,
  MEASURE_SUM,
  MEASURE_TIME_FACTOR,
  MEASURE_WINDOW_END,
  MEASURE_WINDOW_START,
  PRIORITY_SCALE,
  STATE_FREE,
  STATE_IN_DELAY,
  STATE_IN_SERVICE,
  STATE_MOVING,
  STATE_WAITING,
} from './engineLayout.ts';

// 1.1.0: exponential draws by the ziggurat instead of -log(U) (the same distribution, other numbers for a seed).
export const ENGINE_VERSION = 'crucible-des 1.1.0';

export type TraceEvent = {
  sequence: number;
  time: number;
  kind: 'arrival' | 'enter' | 'queue' | 'start' | 'end' | 'renege' | 'leave' | 'capacity';
  /** the person, numbered by arrival in the replication from 0 (never reused); null for a resource's event */
  entity: number | null;
  step: string | null;
  resource: string | null;
  value: number | null;
};

export type MeasureObservation = {
  measure_id: string;
  /** the replication's value in the measure's unit and denominator, null when nothing was observed */
  value: number | null;
  /** observations behind the value (entities for time_between, events for count) */
  observations: number;
  /** time_between: entities that passed `from` in the window but had not reached `to` by the horizon */
  censored: number;
  /** what was still waiting at the end, beside the measure: censored entities, queue length or entities in the system */
  still_waiting_at_end: number;
  /** time_between with percentiles: the entity times of this replication as a DDSketch (protobuf, base64), merged across replications */
  entity_sketch?: string;
  /** time_between with a threshold: entities whose time exceeded it */
  over_threshold?: number;
  /** measures a cost rate prices: the quantities it can be priced by, in the measure window */
  priced?: PricedQuantities;
  /** the same, discounted to the warm-up at the cost scenarios' annual rate (only when they discount) */
  priced_discounted?: PricedQuantities;
};

/** count: events; utilisation: server-hours busy and available; time_between: entity-hours between the moments. */
export type PricedQuantities = { events?: number; busy_hours?: number; capacity_hours?: number; entity_hours?: number };

/** Relative accuracy of the entity-level quantile sketches (DDSketch guarantee: within 1% of the true quantile's value). */
export const SKETCH_RELATIVE_ACCURACY = 0.01;

export type EventCounts = {
  events_total: number;
  arrivals: number;
  service_starts: number;
  service_ends: number;
  delay_ends: number;
  reneges: number;
  exits: number;
  capacity_changes: number;
  /** services displaced by a higher-priority arrival (pre-emptive steps) */
  preemptions: number;
  /** server failures and completed repairs (resources with breakdowns) */
  breakdowns: number;
  repairs: number;
};

export type ReplicationResult = {
  variant_id: string;
  replication_index: number;
  measures: MeasureObservation[];
  event_counts: EventCounts;
  /** entries into each step, by step id */
  step_entries: Record<string, number>;
  /** arrivals inside each measure's default window (warm-up to horizon) */
  arrivals_after_warm_up: number;
  in_system_at_end: number;
  trace: TraceEvent[] | null;
  trace_truncated: boolean;
};

export type ReplicationOptions = {
  variant_id: string;
  replication_index: number;
  /** keep up to this many trace events (0 = none); at most EVENT_TRACE_CAP_PER_VARIANT */
  trace_limit?: number;
};

/** Runs one replication of one variant. Pure and deterministic: same world, variant and index give the same result. */
export function runReplication(world: WorldSpec, options: ReplicationOptions, compiled?: CompiledModel): ReplicationResult {
  const model = compiled ?? compileModel(world, options.variant_id);
  const traceLimit = Math.min(options.trace_limit ?? 0, EVENT_TRACE_CAP_PER_VARIANT);
  return new Replication(model, options.replication_index, traceLimit, true).run();
}

/** For tests: the same replication on the generic event loop even when the model has a specialised one (loopCode.ts). */
export function runReplicationOnGenericLoop(world: WorldSpec, options: ReplicationOptions, compiled?: CompiledModel): ReplicationResult {
  const model = compiled ?? compileModel(world, options.variant_id);
  const traceLimit = Math.min(options.trace_limit ?? 0, EVENT_TRACE_CAP_PER_VARIANT);
  return new Replication(model, options.replication_index, traceLimit, false).run();
}

// Fields without an initializer are `declare`d: the constructor's first write gives each its typed value, instead of
// class-field semantics defining it as undefined first (the JIT then keeps the field's type, e.g. Float64Array).
class Replication {
  declare readonly model: CompiledModel;
  declare readonly replicationIndex: number;
  now = 0;
  declare readonly horizon: number;

  // Event heap: parallel typed arrays; key = kind (the tie-break priority) * 2^44 + sequence.
  /** entry i: time at 2i, key at 2i + 1 (one array and one bounds check for both) */
  declare heapEvents: Float64Array;
  /** entry i: the event's a at 2i, b at 2i + 1 */
  declare heapArgs: Int32Array;
  heapSize = 0;
  /** the time of the event schedule() is putting in the heap (a fraction at first, so the field holds a double from the start) */
  scheduledTime = 0.5;
  /** the key of the event siftDown places (a fraction at first, as scheduledTime) */
  scheduledKey = 0.5;
  /** the loop has read the root and not yet removed it: the next push takes its place */
  rootTaken = false;
  sequence = 0;

  // Arrivals: each source has at most one pending arrival, so it waits in a slot of its own instead of the heap (the
  // heap then holds only the events in progress, and an arrival replaces nothing in it). The slot keeps the heap's
  // (time, key) order: its key takes the sequence number the heap would have given it.
  /** per arrival source: its pending arrival's time (Infinity: none), and its key */
  declare arrivalTime: Float64Array;
  declare arrivalKey: Float64Array;
  /** the earliest pending arrival: its source (-1: none), time (Infinity: none) and key */
  nextArrival = -1;
  nextArrivalTime = Number.POSITIVE_INFINITY;
  nextArrivalKey = 0.5;

  // Entities: a free list over typed arrays that grow by doubling.
  entityCapacity = 1024;
  declare entityStep: Int32Array;
  declare entityState: Int32Array;
  declare entityToken: Int32Array;
  declare entityAttributes: Float64Array;
  declare entityMarks: Float64Array;
  /** pre-emptive resources: when the entity's service ends, and the service time left after it was pre-empted (NaN: none) */
  declare entityServiceEnd: Float64Array;
  declare entityRemaining: Float64Array;
  declare freeList: Int32Array;
  freeCount = 0;
  nextEntity = 0;
  live = 0;
  tokenCounter = 0;
  declare readonly attributeCount: number;
  declare readonly markSlots: number;

  // Resources.
  declare busy: Int32Array;
  declare capacity: Int32Array;
  declare queueLength: Int32Array;
  declare queues: (FifoQueue | PriorityQueue)[];
  /** pre-emptive resources only: the entities in service (null elsewhere) */
  declare inService: (number[] | null)[];
  declare resourceLastTime: Float64Array;
  /** the utilisation and queue_length measures of resource r: resourceMeasureList[resourceMeasureStart[r] .. resourceMeasureStart[r + 1]) */
  declare resourceMeasureStart: Int32Array;
  declare resourceMeasureList: Int32Array;
  declare capacityChangeHours: Int32Array[];
  declare capacityChangeCursor: Int32Array;

  // Breakdowns (only when some resource has them): servers get identities, numbered across resources.
  declare readonly hasBreakdowns: boolean;
  /** first server number of each resource with breakdowns (-1 elsewhere) */
  declare serverBase: Int32Array;
  declare serverResource: Int32Array;
  declare serverEntity: Int32Array;
  /** busy clock: serving time left before the server fails; when its current service started */
  declare serverTimeToFailure: Float64Array;
  declare serverServiceStart: Float64Array;
  declare serverToken: Int32Array;
  declare idleServers: (number[] | null)[];
  declare entityServer: Int32Array;
  declare failureStreams: (RandomStream | null)[];
  declare repairStreams: (RandomStream | null)[];

  // Streams: one per random source, seeded by (world seed, replication, source name).
  declare durationStreams: (RandomStream | null)[];
  declare branchStreams: (RandomStream | null)[];
  /** per service step: patience draws, balk decisions (only for steps that have them) */
  declare patienceStreams: (RandomStream | null)[];
  declare balkStreams: (RandomStream | null)[];
  /** per arrival: batch size draws (only with batch_sizes) */
  declare batchStreams: (RandomStream | null)[];
  declare arrivalStreams: RandomStream[];
  declare attributeStreams: RandomStream[][];
  declare scheduledCursor: Int32Array;
  declare scheduledCycle: Int32Array;

  // Measure accumulators. What the hot path reads and adds to per measure sits in one array, MEASURE_STRIDE numbers a
  // measure (one typed array checked per function instead of one per quantity).
  declare measureState: Float64Array;
  declare measureArrivals: Float64Array;
  declare measureSketches: (DDSketch | null)[];
  declare measureOver: Float64Array;
  /** cost discounting per world time unit (0: off) */
  declare readonly discount: number;
  declare readonly discountOrigin: number;
  arrivalsAfterWarmUp = 0;
  declare readonly perArrivalMeasures: Int32Array;
  /** some step seizes a resource: dispatch checks whether the entity it serves next is seizing */
  declare readonly hasSeize: boolean;
  /** some service step serves batches; entityBatchNext links the members of a batch in service (-1 ends the list) */
  declare readonly hasBatch: boolean;
  declare entityBatchNext: Int32Array;
  declare readonly measures: CompiledModel['measures'];
  /** the model's measure code (see specialise): the hooks of a (step, moment), and the time-weighted areas of a resource */
  declare readonly hooks: HookCode;
  declare readonly touchResource: TouchCode;
  declare readonly steps: CompiledModel['steps'];
  /** the model's specialised event loop (loopCode.ts), or null: the generic loop() runs it */
  declare readonly specialisedLoop: LoopCode | null;
  /** the specialised loop's count of events processed so far (it runs in chunks) */
  eventsProcessed = 0;

  counts: EventCounts = {
    events_total: 0,
    arrivals: 0,
    service_starts: 0,
    service_ends: 0,
    delay_ends: 0,
    reneges: 0,
    exits: 0,
    capacity_changes: 0,
    preemptions: 0,
    breakdowns: 0,
    repairs: 0,
  };
  declare stepEntries: Float64Array;
  declare trace: TraceEvent[] | null;
  declare traceLimit: number;
  traceTruncated = false;
  /** traced replications only: each slot's person, numbered by arrival from 0 (slots are reused; a person's number is not) */
  tracePerson: number[] = [];

  constructor(model: CompiledModel, replicationIndex: number, traceLimit: number, specialised: boolean) {
    this.model = model;
    this.replicationIndex = replicationIndex;
    this.horizon = model.horizon;
    const heapCapacity = 1024;
    this.heapEvents = new Float64Array(2 * heapCapacity);
    this.heapArgs = new Int32Array(2 * heapCapacity);
    this.arrivalTime = new Float64Array(model.arrivals.length).fill(Number.POSITIVE_INFINITY);
    this.arrivalKey = new Float64Array(model.arrivals.length);

    this.attributeCount = model.attributeNames.length;
    this.markSlots = model.markSlots;
    const n = this.entityCapacity;
    this.entityStep = new Int32Array(n);
    this.entityState = new Int32Array(n);
    this.entityToken = new Int32Array(n);
    this.entityAttributes = new Float64Array(n * this.attributeCount).fill(Number.NaN);
    this.entityMarks = new Float64Array(n * this.markSlots).fill(Number.NaN);
    this.freeList = new Int32Array(n);
    this.entityServiceEnd = new Float64Array(n);
    this.entityRemaining = new Float64Array(n).fill(Number.NaN);

    const resources = model.resources;
    const r = resources.length;
    this.busy = new Int32Array(r);
    this.capacity = new Int32Array(r);
    this.queueLength = new Int32Array(r);
    this.queues = resources.map((resource) => (resource.usesPriority ? new PriorityQueue() : new FifoQueue()));
    this.resourceLastTime = new Float64Array(r);
    this.inService = resources.map((resource) => (resource.preemptive ? [] : null));
    const resourceMeasures = resources.map((_, index) =>
      model.measures.flatMap((measure, measureIndex) =>
        (measure.kind === MEASURE_UTILISATION || measure.kind === MEASURE_QUEUE_LENGTH) && measure.resource === index ? [measureIndex] : [],
      ),
    );
    [this.resourceMeasureStart, this.resourceMeasureList] = flatten(resourceMeasures);
    this.capacityChangeHours = resources.map((resource) => {
      const bySlot = resource.capacityBySlot;
      if (!bySlot) return new Int32Array(0);
      const changes: number[] = [];
      const slots = bySlot.length;
      for (let slot = 0; slot < slots; slot++) if (bySlot[slot] !== bySlot[(slot + slots - 1) % slots]) changes.push(slot);
      return Int32Array.from(changes);
    });
    this.capacityChangeCursor = new Int32Array(r);
    this.hasBreakdowns = resources.some((resource) => resource.breakdowns !== null);
    this.serverBase = new Int32Array(r).fill(-1);
    let servers = 0;
    resources.forEach((resource, index) => {
      if (!resource.breakdowns) return;
      this.serverBase[index] = servers;
      servers += resource.capacity;
    });
    this.serverResource = new Int32Array(servers);
    resources.forEach((resource, index) => {
      if (resource.breakdowns) this.serverResource.fill(index, this.serverBase[index]!, this.serverBase[index]! + resource.capacity);
    });
    this.serverEntity = new Int32Array(servers).fill(-1);
    this.serverTimeToFailure = new Float64Array(servers);
    this.serverServiceStart = new Float64Array(servers);
    this.serverToken = new Int32Array(servers);
    this.idleServers = resources.map(() => null);
    this.entityServer = new Int32Array(this.hasBreakdowns ? n : 0).fill(-1);
    this.failureStreams = resources.map((resource) =>
      resource.breakdowns ? new RandomStream(model.seed, replicationIndex, `resource:${resource.id}:failure`) : null,
    );
    this.repairStreams = resources.map((resource) =>
      resource.breakdowns ? new RandomStream(model.seed, replicationIndex, `resource:${resource.id}:repair`) : null,
    );

    const seed = model.seed;
    this.durationStreams = model.steps.map((step) => (step.duration ? new RandomStream(seed, replicationIndex, `step:${step.id}:duration`) : null));
    // Probability branches draw their option, shortest-queue branches break ties, assign steps draw the new value.
    this.branchStreams = model.steps.map((step) =>
      step.kind === STEP_BRANCH_PROBABILITY || step.kind === STEP_BRANCH_SHORTEST_QUEUE
        ? new RandomStream(seed, replicationIndex, `step:${step.id}:branch`)
        : step.kind === STEP_ASSIGN
          ? new RandomStream(seed, replicationIndex, `step:${step.id}:assign`)
          : null,
    );
    this.arrivalStreams = model.arrivals.map((arrival) => new RandomStream(seed, replicationIndex, `arrival:${arrival.id}`));
    this.patienceStreams = model.steps.map((step) => (step.patience ? new RandomStream(seed, replicationIndex, `step:${step.id}:patience`) : null));
    this.balkStreams = model.steps.map((step) =>
      Number.isFinite(step.maxWaiting) && step.balkProbability < 1 ? new RandomStream(seed, replicationIndex, `step:${step.id}:balk`) : null,
    );
    this.batchStreams = model.arrivals.map((arrival) =>
      arrival.batchCumulative ? new RandomStream(seed, replicationIndex, `arrival:${arrival.id}:batch`) : null,
    );
    this.attributeStreams = model.arrivals.map((arrival) =>
      arrival.attributes.map((assignment) => new RandomStream(seed, replicationIndex, assignment.source)),
    );
    this.scheduledCursor = new Int32Array(model.arrivals.length);
    this.scheduledCycle = new Int32Array(model.arrivals.length);

    const m = model.measures.length;
    this.measureArrivals = new Float64Array(m);
    this.measureState = new Float64Array(m * MEASURE_STRIDE);
    model.measures.forEach((measure, index) => {
      const base = index * MEASURE_STRIDE;
      this.measureState[base + MEASURE_WINDOW_START] = measure.windowStart;
      this.measureState[base + MEASURE_WINDOW_END] = measure.windowEnd;
      this.measureState[base + MEASURE_TIME_FACTOR] = measure.timeFactor;
      this.measureState[base + MEASURE_KIND] = measure.kind;
      this.measureState[base + MEASURE_DETAILED] = measure.percentiles.length > 0 || Number.isFinite(measure.threshold) ? 1 : 0;
    });
    this.measureSketches = model.measures.map((measure) =>
      measure.percentiles.length > 0 ? new DDSketch({ relativeAccuracy: SKETCH_RELATIVE_ACCURACY }) : null,
    );
    this.measureOver = new Float64Array(m);
    this.discount = model.discountPerUnit;
    this.discountOrigin = model.discountOrigin;
    this.measures = model.measures;
    const code = specialise(model, this.resourceMeasureStart, this.resourceMeasureList);
    this.hooks = code.hooks;
    this.touchResource = code.touch;
    this.steps = model.steps;
    this.perArrivalMeasures = Int32Array.from(
      model.measures.flatMap((measure, index) => (measure.kind === MEASURE_COUNT && measure.denominator === 'arrival' ? [index] : [])),
    );
    this.stepEntries = new Float64Array(model.steps.length);
    this.hasSeize = model.steps.some((step) => step.kind === STEP_SEIZE);
    this.hasBatch = model.steps.some((step) => step.batchMax > 0);
    this.entityBatchNext = new Int32Array(this.hasBatch ? this.entityCapacity : 0);
    this.traceLimit = traceLimit;
    this.trace = traceLimit > 0 ? [] : null;
    // The generated loop does not trace: a replication with a trace runs the generic loop.
    this.specialisedLoop = specialised && traceLimit === 0 ? specialisedLoop(model) : null;
  }

  // ---- event heap ----

  /**
   * Schedules an event. Small enough that the JIT always inlines it: the time goes through a number field, because a
   * number passed to a call the JIT does not inline is boxed (a heap allocation per event), while a field is written in place.
   */
  schedule(time: number, kind: number, a: number, b: number): void {
    this.scheduledTime = time;
    this.push(kind, a, b);
  }

  /** Puts the event at scheduledTime into the heap (in the root's place when the loop has taken the root). */
  push(kind: number, a: number, b: number): void {
    const time = this.scheduledTime;
    if (time > this.horizon) return; // never processed: the run ends at the horizon
    const key = kind * PRIORITY_SCALE + this.sequence++;
    if (this.rootTaken) {
      // The event being processed schedules one: it replaces the root with one sift-down, instead of the root's removal
      // and this insertion. The heap orders by the unique (time, key), so which events run when does not change.
      this.rootTaken = false;
      this.scheduledKey = key;
      this.siftDown(this.heapSize, a, b);
      return;
    }
    if (2 * this.heapSize === this.heapEvents.length) this.growHeap();
    const events = this.heapEvents;
    const args = this.heapArgs;
    let index = this.heapSize++;
    // Sift up with a hole.
    while (index > 0) {
      const parent = (index - 1) >> 1;
      const parentTime = events[2 * parent]!;
      if (parentTime < time || (parentTime === time && events[2 * parent + 1]! < key)) break;
      events[2 * index] = parentTime;
      events[2 * index + 1] = events[2 * parent + 1]!;
      args[2 * index] = args[2 * parent]!;
      args[2 * index + 1] = args[2 * parent + 1]!;
      index = parent;
    }
    events[2 * index] = time;
    events[2 * index + 1] = key;
    args[2 * index] = a;
    args[2 * index + 1] = b;
  }

  /** Puts the arrival source's next arrival in its slot (none past the horizon, as push). findNextArrival follows. */
  scheduleArrival(time: number, index: number): void {
    if (time > this.horizon) return;
    this.arrivalTime[index] = time;
    this.arrivalKey[index] = EVENT_ARRIVAL * PRIORITY_SCALE + this.sequence++;
  }

  /** Finds the earliest pending arrival among the slots (one slot: no search). */
  findNextArrival(): void {
    if (this.arrivalTime.length === 1) {
      const time = this.arrivalTime[0]!;
      this.nextArrival = time === Number.POSITIVE_INFINITY ? -1 : 0;
      this.nextArrivalTime = time;
      this.nextArrivalKey = this.arrivalKey[0]!;
      return;
    }
    this.findNextArrivalOfMany();
  }

  findNextArrivalOfMany(): void {
    let next = -1;
    let nextTime = Number.POSITIVE_INFINITY;
    let nextKey = 0;
    for (let index = 0; index < this.arrivalTime.length; index++) {
      const time = this.arrivalTime[index]!;
      if (time < nextTime || (time === nextTime && time !== Number.POSITIVE_INFINITY && this.arrivalKey[index]! < nextKey)) {
        next = index;
        nextTime = time;
        nextKey = this.arrivalKey[index]!;
      }
    }
    this.nextArrival = next;
    this.nextArrivalTime = nextTime;
    this.nextArrivalKey = nextKey;
  }

  growHeap(): void {
    const events = new Float64Array(this.heapEvents.length * 2);
    events.set(this.heapEvents);
    this.heapEvents = events;
    const args = new Int32Array(this.heapArgs.length * 2);
    args.set(this.heapArgs);
    this.heapArgs = args;
  }

  /** Removes the root the loop has taken (when the event it ran scheduled nothing). */
  popRoot(): void {
    this.rootTaken = false;
    const size = --this.heapSize;
    if (size === 0) return;
    this.scheduledTime = this.heapEvents[2 * size]!;
    this.scheduledKey = this.heapEvents[2 * size + 1]!;
    this.siftDown(size, this.heapArgs[2 * size]!, this.heapArgs[2 * size + 1]!);
  }

  /** Puts the event (scheduledTime, scheduledKey, a, b) at the root of the heap's first `size` entries and sifts it down. */
  siftDown(size: number, a: number, b: number): void {
    const events = this.heapEvents;
    const args = this.heapArgs;
    const time = this.scheduledTime;
    const key = this.scheduledKey;
    let index = 0;
    const half = size >> 1;
    while (index < half) {
      let child = 2 * index + 1;
      const right = child + 1;
      if (right < size) {
        // The earlier child, as a sum of comparisons rather than a branch: which child is earlier is a coin toss the
        // processor cannot predict. The two terms exclude each other (the second only when the times are equal).
        const leftTime = events[2 * child]!;
        const rightTime = events[2 * right]!;
        child += Number(rightTime < leftTime) + Number(rightTime === leftTime && events[2 * right + 1]! < events[2 * child + 1]!);
      }
      const childTime = events[2 * child]!;
      if (time < childTime || (time === childTime && key < events[2 * child + 1]!)) break;
      events[2 * index] = childTime;
      events[2 * index + 1] = events[2 * child + 1]!;
      args[2 * index] = args[2 * child]!;
      args[2 * index + 1] = args[2 * child + 1]!;
      index = child;
    }
    events[2 * index] = time;
    events[2 * index + 1] = key;
    args[2 * index] = a;
    args[2 * index + 1] = b;
  }

  // ---- main loop ----

  run(): ReplicationResult {
    const model = this.model;
    for (let r = 0; r < model.resources.length; r++) this.initialiseCapacity(r);
    if (this.hasBreakdowns) for (let r = 0; r < model.resources.length; r++) if (model.resources[r]!.breakdowns) this.initialiseServers(r);
    model.arrivals.forEach((arrival, index) => {
      if (arrival.kind !== ARRIVAL_SCHEDULED) this.scheduleNextRandomArrival(index, 0);
      else this.scheduleNextScheduledArrival(index);
    });
    this.findNextArrival();

    if (this.specialisedLoop) {
      // In chunks of LOOP_CHUNK_EVENTS (loopCode.ts says why); the loop keeps its count in eventsProcessed.
      while (this.specialisedLoop(this, pick, eventLimit, entityLimit) !== 0);
      this.counts.events_total = this.eventsProcessed;
    } else this.counts.events_total = this.loop();
    this.now = this.horizon;
    return this.finish();
  }

  /** Processes events up to the horizon; returns how many. Kept apart from run so its optimised code never meets the finish. */
  loop(): number {
    const horizon = this.horizon;
    let events = 0;
    for (;;) {
      const arrivalTime = this.nextArrivalTime;
      if (this.heapSize === 0 || arrivalTime < this.heapEvents[0]! || (arrivalTime === this.heapEvents[0]! && this.nextArrivalKey < this.heapEvents[1]!)) {
        // The earliest pending arrival comes first (or nothing else is pending).
        if (this.nextArrival < 0) break;
        this.now = arrivalTime;
        if (++events > EVENTS_PER_REPLICATION_MAX) {
          throw eventLimit();
        }
        const source = this.nextArrival;
        this.arrivalTime[source] = Number.POSITIVE_INFINITY; // taken: the arrival puts its source's next one in the slot, if any
        this.onArrival(source);
        continue;
      }
      const time = this.heapEvents[0]!;
      if (time > horizon) break;
      const kind = (this.heapEvents[1]! * INVERSE_PRIORITY_SCALE) | 0; // truncation is the floor here (positive, below 2^31), and an integer switch
      const a = this.heapArgs[0]!;
      const b = this.heapArgs[1]!;
      this.rootTaken = true; // removed by the first event this one schedules, or after it
      this.now = time;
      if (++events > EVENTS_PER_REPLICATION_MAX) {
        throw eventLimit();
      }
      switch (kind) {
        case EVENT_SERVICE_END:
          // b is the service token on pre-emptive resources: a pre-empted service's end is stale.
          if (b === 0 || this.entityToken[a] === b) this.onServiceEnd(a);
          break;
        case EVENT_DELAY_END:
          this.onDelayEnd(a);
          break;
        case EVENT_RENEGE:
          this.onRenege(a, b);
          break;
        case EVENT_SHIFT:
          this.onCapacityChange(a, b);
          break;
        case EVENT_FAILURE:
          // b is the server's token: a busy-clock failure planned within a service that ended early is stale.
          if (this.serverToken[a] === b) this.onFailure(a);
          break;
        case EVENT_REPAIR:
          this.onRepair(a);
          break;
      }
      if (this.rootTaken) this.popRoot();
    }
    return events;
  }

  // ---- arrivals ----

  scheduleNextRandomArrival(index: number, from: number): void {
    const arrival = this.model.arrivals[index]!;
    if (arrival.kind === ARRIVAL_POISSON) {
      if (arrival.rate > 0) this.scheduleArrival(from + this.arrivalStreams[index]!.standardExponential() / arrival.rate, index);
      return;
    }
    this.scheduleOtherArrival(index, from);
  }

  /** Renewal and non-homogeneous Poisson arrivals (out of line, so the Poisson case stays small enough to inline). */
  scheduleOtherArrival(index: number, from: number): void {
    const arrival = this.model.arrivals[index]!;
    const stream = this.arrivalStreams[index]!;
    if (arrival.kind === ARRIVAL_RENEWAL) {
      this.scheduleArrival(from + this.sample(arrival.interarrival!, stream), index);
      return;
    }
    // Non-homogeneous Poisson by inversion of the integrated hourly rate.
    const rates = arrival.ratesByHour!;
    const hourLength = this.model.unitsPerHour;
    let remaining = stream.standardExponential();
    let time = from;
    let hour = Math.floor(time / hourLength);
    const calendar = arrival.calendar !== null;
    for (let guard = 0; guard < 2 * HOURS_PER_WEEK + 1 || time <= this.horizon; guard++) {
      if (time > this.horizon) return;
      const rate = calendar ? rateTableRate(arrival, hour, hourLength) : rates[hour % HOURS_PER_WEEK]!;
      const end = (hour + 1) * hourLength;
      const mass = rate * (end - time);
      if (mass >= remaining && rate > 0) {
        this.scheduleArrival(time + remaining / rate, index);
        return;
      }
      remaining -= mass;
      time = end;
      hour++;
    }
  }

  scheduleNextScheduledArrival(index: number): void {
    const arrival = this.model.arrivals[index]!;
    const times = arrival.times!;
    let cursor = this.scheduledCursor[index]!;
    if (cursor >= times.length) {
      if (!Number.isFinite(arrival.period)) return;
      cursor = 0;
      this.scheduledCycle[index]!++;
    }
    this.scheduledCursor[index] = cursor + 1;
    // Cycle 0 starts at 0 (a schedule without a period has period Infinity, and 0 x Infinity is NaN).
    const cycle = this.scheduledCycle[index]!;
    this.scheduleArrival((cycle === 0 ? 0 : cycle * arrival.period) + times[cursor]!, index);
  }

  onArrival(index: number): void {
    const arrival = this.model.arrivals[index]!;
    if (arrival.kind === ARRIVAL_SCHEDULED) this.scheduleNextScheduledArrival(index);
    else this.scheduleNextRandomArrival(index, this.now);
    this.findNextArrival();
    const batch = arrival.batchCumulative ? this.drawBatch(index) : arrival.batchSize;
    for (let unit = 0; unit < batch; unit++) {
      const entity = this.allocateEntity();
      this.counts.arrivals++;
      if (arrival.attributes.length > 0) this.assignAttributes(entity, index);
      if (this.now >= this.model.warmUp) this.arrivalsAfterWarmUp++;
      if (this.perArrivalMeasures.length > 0) this.countArrival();
      if (this.trace) {
        this.tracePerson[entity] = this.counts.arrivals - 1;
        this.record('arrival', entity, null, null, null);
      }
      this.enterStep(entity, arrival.toStep);
    }
  }

  // The less common parts of an arrival, out of line so that onArrival stays small enough to inline its callees.

  drawBatch(index: number): number {
    const arrival = this.model.arrivals[index]!;
    return arrival.batchValues![pick(arrival.batchCumulative!, this.batchStreams[index]!.uniform())]!;
  }

  assignAttributes(entity: number, index: number): void {
    const assignments = this.model.arrivals[index]!.attributes;
    for (let k = 0; k < assignments.length; k++) {
      const assignment = assignments[k]!;
      const u = this.attributeStreams[index]![k]!.uniform();
      this.entityAttributes[entity * this.attributeCount + assignment.attribute] = assignment.codes[pick(assignment.cumulative, u)]!;
    }
  }

  /** count measures per arrival: the arrival counts in the denominator of those whose window holds now */
  countArrival(): void {
    const perArrival = this.perArrivalMeasures;
    for (let k = 0; k < perArrival.length; k++) {
      const m = perArrival[k]!;
      const measure = this.measures[m]!;
      if (this.now >= measure.windowStart && this.now < measure.windowEnd) this.measureArrivals[m]!++;
    }
  }

  // ---- entities ----

  allocateEntity(): number {
    let entity: number;
    if (this.freeCount > 0) entity = this.freeList[--this.freeCount]!;
    else {
      if (this.nextEntity === this.entityCapacity) this.growEntities();
      entity = this.nextEntity++;
    }
    if (++this.live > ENTITIES_IN_SYSTEM_MAX) {
      throw entityLimit();
    }
    this.entityState[entity] = STATE_MOVING;
    const attributes = this.attributeCount;
    for (let k = 0; k < attributes; k++) this.entityAttributes[entity * attributes + k] = Number.NaN;
    const slots = this.markSlots;
    for (let k = 0; k < slots; k++) this.entityMarks[entity * slots + k] = Number.NaN;
    return entity;
  }

  releaseEntity(entity: number): void {
    this.entityState[entity] = STATE_FREE;
    this.freeList[this.freeCount++] = entity;
    this.live--;
  }

  growEntities(): void {
    const size = this.entityCapacity * 2;
    const growInt = (array: Int32Array, n: number) => {
      const next = new Int32Array(n);
      next.set(array);
      return next;
    };
    const growFloat = (array: Float64Array, n: number) => {
      const next = new Float64Array(n).fill(Number.NaN);
      next.set(array);
      return next;
    };
    this.entityStep = growInt(this.entityStep, size);
    this.entityState = growInt(this.entityState, size);
    this.entityToken = growInt(this.entityToken, size);
    this.entityServiceEnd = growFloat(this.entityServiceEnd, size);
    this.entityRemaining = growFloat(this.entityRemaining, size);
    this.freeList = growInt(this.freeList, size);
    this.entityAttributes = growFloat(this.entityAttributes, size * this.attributeCount);
    this.entityMarks = growFloat(this.entityMarks, size * this.markSlots);
    if (this.hasBreakdowns) this.entityServer = growInt(this.entityServer, size);
    if (this.hasBatch) this.entityBatchNext = growInt(this.entityBatchNext, size);
    this.entityCapacity = size;
  }

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
  }

  startDelay(entity: number, stepIndex: number): void {
    this.entityState[entity] = STATE_IN_DELAY;
    this.schedule(this.now + this.sample(this.steps[stepIndex]!.duration!, this.durationStreams[stepIndex]!), EVENT_DELAY_END, entity, 0);
  }

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
  }

  /** queue_limit (service or seize): the entity finds max_waiting or more waiting and balks (always, at balk probability 1: blocking/loss). */
  turnsAway(resource: number, step: CompiledModel['steps'][number], stepIndex: number): boolean {
    return this.queueLength[resource]! >= step.maxWaiting && (step.balkProbability >= 1 || this.balkStreams[stepIndex]!.uniform() < step.balkProbability);
  }

  /** The entity turned away goes on at once to the queue limit's step, or leaves. Returns the step it moves on to (-1: it left). */
  turnedAway(entity: number, stepIndex: number): number {
    this.hook(entity, stepIndex, MOMENT_TURNED_AWAY);
    const to = this.steps[stepIndex]!.balkTo;
    if (to >= 0) return to;
    this.leave(entity);
    return -1;
  }

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
  }

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
  }

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
  }

  leave(entity: number): void {
    if (this.trace) this.record('leave', entity, null, null, null);
    this.releaseEntity(entity);
  }

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
  }

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
  }

  /** Priority value of an entity at a service step (lower first; no value = last). */
  priorityOf(entity: number, step: CompiledModel['steps'][number]): number {
    if (step.priorityAttribute < 0) return Number.MAX_VALUE;
    const value = this.entityAttributes[entity * this.attributeCount + step.priorityAttribute]!;
    return Number.isNaN(value) ? Number.MAX_VALUE : value;
  }

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
  }

  /** Queues an entity; `order` ranks it among equal priorities (default: arrival order at the queue; -1: first). */
  enqueue(entity: number, stepIndex: number, order = this.sequence): void {
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

  scheduleRenege(entity: number, stepIndex: number, token: number): void {
    const step = this.steps[stepIndex]!;
    if (step.renegeAfter !== Number.POSITIVE_INFINITY) this.schedule(this.now + step.renegeAfter, EVENT_RENEGE, entity, token);
    else this.schedule(this.now + this.sample(step.patience!, this.patienceStreams[stepIndex]!), EVENT_RENEGE, entity, token);
  }

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
  }

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
  }

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
  }

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
  }

  /** The entity takes a unit of the seize step's resource and holds it until a release step. */
  seized(entity: number, stepIndex: number): void {
    const step = this.steps[stepIndex]!;
    this.touch(step.resource);
    this.busy[step.resource]!++;
    this.entityState[entity] = STATE_MOVING;
    this.hook(entity, stepIndex, MOMENT_START);
    if (this.trace) this.record('start', entity, step.id, this.model.resources[step.resource]!.id, null);
  }

  onDelayEnd(entity: number): void {
    const stepIndex = this.entityStep[entity]!;
    const step = this.steps[stepIndex]!;
    this.counts.delay_ends++;
    this.hook(entity, stepIndex, MOMENT_END);
    if (this.trace) this.record('end', entity, step.id, null, null);
    this.entityState[entity] = STATE_MOVING;
    this.enterStep(entity, step.next);
  }

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
  }

  // ---- capacity ----

  initialiseCapacity(resource: number): void {
    const spec = this.model.resources[resource]!;
    if (!spec.capacityBySlot) {
      this.capacity[resource] = spec.capacity;
      return;
    }
    this.capacity[resource] = spec.capacityBySlot[0]!;
    if (this.capacityChangeHours[resource]!.length > 0) this.scheduleCapacityChange(resource, 0);
  }

  /** Schedules the first capacity change strictly after the absolute slot `afterSlot` (slot 0 = Monday 00:00; an hour or a minute). */
  scheduleCapacityChange(resource: number, afterSlot: number): void {
    const changes = this.capacityChangeHours[resource]!;
    const spec = this.model.resources[resource]!;
    const slotsPerWeek = spec.capacityBySlot!.length;
    const week = Math.floor(afterSlot / slotsPerWeek);
    let next = (week + 1) * slotsPerWeek + changes[0]!;
    for (let k = 0; k < changes.length; k++) {
      const candidate = week * slotsPerWeek + changes[k]!;
      if (candidate > afterSlot) {
        next = candidate;
        break;
      }
    }
    this.schedule((next * this.model.unitsPerHour) / spec.slotsPerHour, EVENT_SHIFT, resource, next);
  }

  onCapacityChange(resource: number, slot: number): void {
    this.touch(resource);
    const bySlot = this.model.resources[resource]!.capacityBySlot!;
    this.capacity[resource] = bySlot[slot % bySlot.length]!;
    this.counts.capacity_changes++;
    if (this.trace) this.record('capacity', null, null, this.model.resources[resource]!.id, this.capacity[resource]!);
    this.scheduleCapacityChange(resource, slot);
    this.dispatch(resource);
  }

  // ---- breakdowns ----

  initialiseServers(resource: number): void {
    const spec = this.model.resources[resource]!;
    const breakdowns = spec.breakdowns!;
    const base = this.serverBase[resource]!;
    const idle: number[] = [];
    for (let server = base + spec.capacity - 1; server >= base; server--) {
      idle.push(server);
      const timeToFailure = this.sample(breakdowns.timeToFailure, this.failureStreams[resource]!);
      if (breakdowns.clock === CLOCK_BUSY) this.serverTimeToFailure[server] = timeToFailure;
      else this.schedule(timeToFailure, EVENT_FAILURE, server, this.serverToken[server]!);
    }
    this.idleServers[resource] = idle;
  }

  /** Puts an entity starting service on an idle working server; on the busy clock, plans the failure if it falls within this service. */
  assignServer(entity: number, resource: number, end: number): void {
    const server = this.idleServers[resource]!.pop();
    if (server === undefined) throw new ServiceError('INTERNAL', 'a service started at a resource with no idle working server');
    this.serverEntity[server] = entity;
    this.entityServer[entity] = server;
    if (this.model.resources[resource]!.breakdowns!.clock !== CLOCK_BUSY) return;
    this.serverServiceStart[server] = this.now;
    const token = ++this.serverToken[server]!;
    if (this.now + this.serverTimeToFailure[server]! < end) this.schedule(this.now + this.serverTimeToFailure[server]!, EVENT_FAILURE, server, token);
  }

  /** The entity's service ended or was displaced: its server is idle again (the busy clock keeps the serving time left). */
  freeServer(entity: number, resource: number): void {
    const server = this.entityServer[entity]!;
    this.entityServer[entity] = -1;
    this.serverEntity[server] = -1;
    if (this.model.resources[resource]!.breakdowns!.clock === CLOCK_BUSY) {
      this.serverTimeToFailure[server]! -= this.now - this.serverServiceStart[server]!;
      this.serverToken[server]!++;
    }
    this.idleServers[resource]!.push(server);
  }

  onFailure(server: number): void {
    const resource = this.serverResource[server]!;
    const breakdowns = this.model.resources[resource]!.breakdowns!;
    this.touch(resource);
    this.capacity[resource]!--;
    this.counts.breakdowns++;
    const entity = this.serverEntity[server]!;
    if (entity >= 0) {
      // The entity in service is interrupted: it waits first in line and resumes (or restarts) on the next working server.
      const inService = this.inService[resource]!;
      inService.splice(inService.indexOf(entity), 1);
      this.serverEntity[server] = -1;
      this.entityServer[entity] = -1;
      this.busy[resource]!--;
      if (breakdowns.interrupted === PREEMPT_RESUME) this.entityRemaining[entity] = this.entityServiceEnd[entity]! - this.now;
      this.enqueue(entity, this.entityStep[entity]!, -1);
    } else {
      const idle = this.idleServers[resource]!;
      idle.splice(idle.indexOf(server), 1);
    }
    if (this.trace) this.record('capacity', null, null, this.model.resources[resource]!.id, this.capacity[resource]!);
    this.schedule(this.now + this.sample(breakdowns.repair, this.repairStreams[resource]!), EVENT_REPAIR, server, 0);
  }

  onRepair(server: number): void {
    const resource = this.serverResource[server]!;
    const breakdowns = this.model.resources[resource]!.breakdowns!;
    this.touch(resource);
    this.capacity[resource]!++;
    this.counts.repairs++;
    this.idleServers[resource]!.push(server);
    const timeToFailure = this.sample(breakdowns.timeToFailure, this.failureStreams[resource]!);
    if (breakdowns.clock === CLOCK_BUSY) this.serverTimeToFailure[server] = timeToFailure;
    else this.schedule(this.now + timeToFailure, EVENT_FAILURE, server, this.serverToken[server]!);
    if (this.trace) this.record('capacity', null, null, this.model.resources[resource]!.id, this.capacity[resource]!);
    this.dispatch(resource);
  }

  // ---- measures ----

  hook(entity: number, stepIndex: number, moment: number): void {
    this.hooks(this, entity, stepIndex * MOMENT_STRIDE + moment);
  }

  /** One entity's time for a measure that keeps its distribution (sketch) or a threshold count. */
  observe(m: number, value: number): void {
    this.measureSketches[m]?.accept(value);
    if (value > this.measures[m]!.threshold) this.measureOver[m]!++;
  }

  /** Accumulates time-weighted areas of a resource's measures up to now, clipped to each measure's window (the model's specialised code). */
  touch(resource: number): void {
    // Most touches after the first at an instant find nothing to add (a service end, the dispatch and the next start):
    // they skip the call (the specialised code returns at once when now is its resource's last time, so this is the same).
    if (this.resourceLastTime[resource] !== this.now) this.touchResource(this, resource);
  }

  /** The discounted length of [from, to): the integral of e^{-k (t - origin)} dt. */
  discountedSpan(from: number, to: number): number {
    const k = this.discount;
    return (Math.exp(-k * (from - this.discountOrigin)) - Math.exp(-k * (to - this.discountOrigin))) / k;
  }

  /** The quantities cost rates can price a measure by (undiscounted, or discounted from the accumulators). */
  pricedQuantities(m: number, discounted: boolean): PricedQuantities {
    const measure = this.measures[m]!;
    const hours = 1 / this.model.unitsPerHour;
    switch (measure.kind) {
      case MEASURE_COUNT:
        return {
          events: discounted ? this.measureState[m * MEASURE_STRIDE + MEASURE_DISCOUNTED]! : this.measureState[m * MEASURE_STRIDE + MEASURE_OBSERVATIONS]!,
        };
      case MEASURE_UTILISATION:
        return discounted
          ? {
              busy_hours: this.measureState[m * MEASURE_STRIDE + MEASURE_DISCOUNTED]! * hours,
              capacity_hours: this.measureState[m * MEASURE_STRIDE + MEASURE_DISCOUNTED_CAPACITY]! * hours,
            }
          : {
              busy_hours: this.measureState[m * MEASURE_STRIDE + MEASURE_AREA]! * hours,
              capacity_hours: this.measureState[m * MEASURE_STRIDE + MEASURE_CAPACITY_AREA]! * hours,
            };
      case MEASURE_TIME_BETWEEN:
        return {
          entity_hours: discounted
            ? this.measureState[m * MEASURE_STRIDE + MEASURE_DISCOUNTED]! * hours
            : (this.measureState[m * MEASURE_STRIDE + MEASURE_SUM]! / measure.timeFactor) * hours,
        };
    }
    return {};
  }

  // ---- sampling ----

  /** A draw from a distribution; the exponential case is kept small enough to inline, the others are out of line. */
  sample(distribution: CompiledDistribution, stream: RandomStream): number {
    if (distribution.kind === DIST_EXPONENTIAL) return distribution.a * stream.standardExponential();
    return this.sampleOther(distribution, stream);
  }

  sampleOther(distribution: CompiledDistribution, stream: RandomStream): number {
    switch (distribution.kind) {
      case DIST_EXPONENTIAL:
        return distribution.a * stream.standardExponential();
      case DIST_FIXED:
        return distribution.a;
      case DIST_UNIFORM:
        return distribution.a + (distribution.b - distribution.a) * stream.uniform();
      case DIST_TRIANGULAR: {
        const { a: min, b: mode, c: max } = distribution;
        const u = stream.uniform();
        const split = (mode - min) / (max - min);
        return u < split ? min + Math.sqrt(u * (max - min) * (mode - min)) : max - Math.sqrt((1 - u) * (max - min) * (max - mode));
      }
      case DIST_LOGNORMAL:
        return Math.exp(distribution.a + distribution.b * stream.normal());
      case DIST_GAMMA:
        return stream.gamma(distribution.a, distribution.b);
      case DIST_EMPIRICAL:
        return distribution.values![pick(distribution.cumulative!, stream.uniform())]!;
      case DIST_NORMAL:
        return boundedNormalDraw(distribution.cumulative!, stream.uniform());
    }
    return distribution.a;
  }

  // ---- trace and results ----

  /** A trace event; `entity` is the engine's slot, recorded as the person in it. */
  record(kind: TraceEvent['kind'], entity: number | null, step: string | null, resource: string | null, value: number | null): void {
    const trace = this.trace!;
    if (trace.length >= this.traceLimit) {
      this.traceTruncated = true;
      return;
    }
    trace.push({ sequence: trace.length, time: this.now, kind, entity: entity === null ? null : this.tracePerson[entity]!, step, resource, value });
  }

  /** A trace event of an entity at a step, with the step's resource when atResource (out of line: hot paths only test this.trace). */
  recordStep(kind: TraceEvent['kind'], entity: number, stepIndex: number, atResource: boolean, value: number | null): void {
    const step = this.steps[stepIndex]!;
    this.record(kind, entity, step.id, atResource ? this.model.resources[step.resource]!.id : null, value);
  }

  // Over 70 lines, listed in test/unit/architecture.test.ts: the summary of one replication from its running state.
  finish(): ReplicationResult {
    const model = this.model;
    for (let r = 0; r < model.resources.length; r++) this.touch(r);
    // Entities still marked at the horizon are censored for their time_between measures.
    const censored = new Float64Array(model.measures.length);
    let inSystem = 0;
    for (let entity = 0; entity < this.nextEntity; entity++) {
      if (this.entityState[entity] === STATE_FREE) continue;
      inSystem++;
      model.measures.forEach((measure, m) => {
        if (measure.kind !== MEASURE_TIME_BETWEEN) return;
        const mark = this.entityMarks[entity * this.markSlots + measure.markSlot]!;
        if (Number.isNaN(mark)) return;
        censored[m]!++;
        if (measure.censorAtHorizon) {
          const value = (this.horizon - mark) * measure.timeFactor;
          this.measureState[m * MEASURE_STRIDE + MEASURE_SUM]! += value;
          this.measureState[m * MEASURE_STRIDE + MEASURE_OBSERVATIONS]!++;
          if (this.measureState[m * MEASURE_STRIDE + MEASURE_DETAILED] === 1) this.observe(m, value);
          if (this.discount > 0) this.measureState[m * MEASURE_STRIDE + MEASURE_DISCOUNTED]! += this.discountedSpan(mark, this.horizon);
        }
      });
    }
    const measures: MeasureObservation[] = model.measures.map((measure, m) => {
      const length = measure.windowEnd - measure.windowStart;
      let value: number | null = null;
      let observations = this.measureState[m * MEASURE_STRIDE + MEASURE_OBSERVATIONS]!;
      let stillWaiting = inSystem;
      switch (measure.kind) {
        case MEASURE_TIME_BETWEEN:
          value = observations > 0 ? this.measureState[m * MEASURE_STRIDE + MEASURE_SUM]! / observations : null;
          stillWaiting = censored[m]!;
          break;
        case MEASURE_COUNT:
          if (measure.denominator === 'replication') value = observations;
          else if (measure.denominator === 'arrival') value = this.measureArrivals[m]! > 0 ? observations / this.measureArrivals[m]! : null;
          else value = observations / (length / model.unitsPerHour / 24);
          break;
        case MEASURE_UTILISATION:
          value =
            this.measureState[m * MEASURE_STRIDE + MEASURE_CAPACITY_AREA]! > 0
              ? this.measureState[m * MEASURE_STRIDE + MEASURE_AREA]! / this.measureState[m * MEASURE_STRIDE + MEASURE_CAPACITY_AREA]!
              : null;
          observations = 1;
          stillWaiting = this.queueLength[measure.resource]!;
          break;
        case MEASURE_QUEUE_LENGTH:
          value = this.measureState[m * MEASURE_STRIDE + MEASURE_AREA]! / length;
          observations = 1;
          stillWaiting = this.queueLength[measure.resource]!;
          break;
      }
      const observation: MeasureObservation = { measure_id: measure.id, value, observations, censored: censored[m]!, still_waiting_at_end: stillWaiting };
      const sketch = this.measureSketches[m];
      if (sketch) observation.entity_sketch = Buffer.from(sketch.toProto()).toString('base64');
      if (Number.isFinite(measure.threshold)) observation.over_threshold = this.measureOver[m]!;
      if (measure.priced) {
        observation.priced = this.pricedQuantities(m, false);
        if (this.discount > 0) observation.priced_discounted = this.pricedQuantities(m, true);
      }
      return observation;
    });
    const stepEntries: Record<string, number> = {};
    model.steps.forEach((step, index) => {
      stepEntries[step.id] = this.stepEntries[index]!;
    });
    return {
      variant_id: model.variantId,
      replication_index: this.replicationIndex,
      measures,
      event_counts: { ...this.counts },
      step_entries: stepEntries,
      arrivals_after_warm_up: this.arrivalsAfterWarmUp,
      in_system_at_end: inSystem,
      trace: this.trace,
      trace_truncated: this.traceTruncated,
    };
  }
}

// ---- measure code specialised per compiled model ----

/** Runs the hooks of (step, moment) at = step * MOMENT_STRIDE + moment for an entity. */
type HookCode = (r: Replication, entity: number, at: number) => void;
/** Accumulates the time-weighted areas of a resource's measures up to now. */
type TouchCode = (r: Replication, resource: number) => void;
type MeasureCode = { hooks: HookCode; touch: TouchCode };

const measureCodeCache = new WeakMap<CompiledModel, MeasureCode>();

/**
 * The measure hooks and resource areas of one compiled model as straight-line code: only the measures it has, each
 * with its kind, slots and options (discounting, sketches) chosen once here instead of looked up per event. The source
 * is built only from the model's integers (measure, step, resource, slot and array indices) and this file's fixed
 * text: no name, id or other string of the world is ever part of it, and window bounds and time factors are read from
 * Replication.measureState at run time. The arithmetic is that of the generic loop it replaces, in the same order,
 * so results are bit-identical. Cached per compiled model (the pool reuses one model across replications).
 */
function specialise(model: CompiledModel, resourceMeasureStart: Int32Array, resourceMeasureList: Int32Array): MeasureCode {
  const cached = measureCodeCache.get(model);
  if (cached) return cached;
  const hookCases: string[] = [];
  model.hooks.forEach((list, point) => {
    if (list.length === 0) return;
    const lines = hookLines(model, point, 'r.entityMarks');
    hookCases.push(`case ${int(point)}: {`, ...lines.map((line) => `  ${line}`), '  return;', '}');
  });
  const hookSource = hookCases.length === 0 ? '' : ['const ms = r.measureState;', 'const now = r.now;', 'switch (at) {', ...hookCases, '}'].join('\n');

  const touchCases: string[] = [];
  for (let resource = 0; resource + 1 < resourceMeasureStart.length; resource++) {
    const first = resourceMeasureStart[resource]!;
    const end = resourceMeasureStart[resource + 1]!;
    if (first === end) continue;
    const k = int(resource);
    const measures = Array.from(resourceMeasureList.subarray(first, end));
    const names = { busy: `r.busy[${k}]`, queue: `r.queueLength[${k}]`, capacity: `r.capacity[${k}]` };
    const lines = [`const last = r.resourceLastTime[${k}];`, 'if (now === last) return;', ...areaLines(model, measures, names)];
    lines.push(`r.resourceLastTime[${k}] = now;`);
    touchCases.push(`case ${k}: {`, ...lines.map((line) => `  ${line}`), '  return;', '}');
  }
  const touchSource = touchCases.length === 0 ? '' : ['const ms = r.measureState;', 'const now = r.now;', 'switch (resource) {', ...touchCases, '}'].join('\n');

  const code: MeasureCode = { hooks: generated(hookSource, 'r', 'entity', 'at') as HookCode, touch: generated(touchSource, 'r', 'resource') as TouchCode };
  measureCodeCache.set(model, code);
  return code;
}

/** An engine limit the world made the run exceed: the world, not the service, caused the failure (spec: Credits). */
function worldLimit(message: string, path: string, detail: string): ServiceError {
  return new ServiceError('WORLD_LIMIT_EXCEEDED', `the world caused this failure, not the service: ${message}`, [{ path, message: detail }]);
}

// The limits' errors are built out of line: the hot functions that throw them stay small enough to inline.
function eventLimit(): ServiceError {
  return worldLimit(
    `replication exceeded EVENTS_PER_REPLICATION_MAX (${EVENTS_PER_REPLICATION_MAX}); shorten the horizon or lower the arrival rates`,
    '/horizon',
    `more than ${EVENTS_PER_REPLICATION_MAX} events in one replication`,
  );
}

function entityLimit(): ServiceError {
  return worldLimit(
    `more than ENTITIES_IN_SYSTEM_MAX (${ENTITIES_IN_SYSTEM_MAX}) entities were in the system at once; the pathway cannot keep up with its arrivals`,
    '/arrivals',
    `more than ${ENTITIES_IN_SYSTEM_MAX} entities at once`,
  );
}

/** Lists as one array and the start of each (start[i] .. start[i + 1]), so the hot path reads flat typed arrays. */
function flatten(lists: number[][]): [Int32Array, Int32Array] {
  const start = new Int32Array(lists.length + 1);
  lists.forEach((list, index) => {
    start[index + 1] = start[index]! + list.length;
  });
  return [start, Int32Array.from(lists.flat())];
}

/** Index of the first cumulative weight above u (binary search; cumulative ends at 1). */
function pick(cumulative: Float64Array, u: number): number {
  let low = 0;
  let high = cumulative.length - 1;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (u < cumulative[middle]!) high = middle;
    else low = middle + 1;
  }
  return low;
}

class FifoQueue {
  entities = new Int32Array(256);
  tokens = new Int32Array(256);
  head = 0;
  size = 0;

  /** sequence -1 puts the entity first in line (an interrupted service); otherwise last. */
  push(entity: number, token: number, _priority: number, sequence: number): void {
    if (this.size === this.entities.length) this.grow();
    const mask = this.entities.length - 1;
    if (sequence === -1) this.head = (this.head - 1) & mask;
    const slot = sequence === -1 ? this.head : (this.head + this.size) & mask;
    this.entities[slot] = entity;
    this.tokens[slot] = token;
    this.size++;
  }

  /** Next live entity, skipping entries left by reneging; -1 when none. */
  pop(entityToken: Int32Array, entityState: Int32Array): number {
    const mask = this.entities.length - 1;
    while (this.size > 0) {
      const entity = this.entities[this.head]!;
      const token = this.tokens[this.head]!;
      this.head = (this.head + 1) & mask;
      this.size--;
      if (entityState[entity] === STATE_WAITING && entityToken[entity] === token) return entity;
    }
    return -1;
  }

  grow(): void {
    const size = this.entities.length * 2;
    const entities = new Int32Array(size);
    const tokens = new Int32Array(size);
    const mask = this.entities.length - 1;
    for (let k = 0; k < this.size; k++) {
      entities[k] = this.entities[(this.head + k) & mask]!;
      tokens[k] = this.tokens[(this.head + k) & mask]!;
    }
    this.entities = entities;
    this.tokens = tokens;
    this.head = 0;
  }
}

/** Lower priority value first, then arrival order at the queue. */
class PriorityQueue {
  priority = new Float64Array(256);
  order = new Float64Array(256);
  entities = new Int32Array(256);
  tokens = new Int32Array(256);
  size = 0;

  push(entity: number, token: number, priority: number, sequence: number): void {
    if (this.size === this.entities.length) this.grow();
    let index = this.size++;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if (this.priority[parent]! < priority || (this.priority[parent] === priority && this.order[parent]! < sequence)) break;
      this.move(parent, index);
      index = parent;
    }
    this.priority[index] = priority;
    this.order[index] = sequence;
    this.entities[index] = entity;
    this.tokens[index] = token;
  }

  pop(entityToken: Int32Array, entityState: Int32Array): number {
    while (this.size > 0) {
      const entity = this.entities[0]!;
      const token = this.tokens[0]!;
      const size = --this.size;
      if (size > 0) {
        const priority = this.priority[size]!;
        const order = this.order[size]!;
        const lastEntity = this.entities[size]!;
        const lastToken = this.tokens[size]!;
        let index = 0;
        for (;;) {
          let child = 2 * index + 1;
          if (child >= size) break;
          const right = child + 1;
          if (
            right < size &&
            (this.priority[right]! < this.priority[child]! || (this.priority[right] === this.priority[child] && this.order[right]! < this.order[child]!))
          )
            child = right;
          if (priority < this.priority[child]! || (priority === this.priority[child] && order < this.order[child]!)) break;
          this.move(child, index);
          index = child;
        }
        this.priority[index] = priority;
        this.order[index] = order;
        this.entities[index] = lastEntity;
        this.tokens[index] = lastToken;
      }
      if (entityState[entity] === STATE_WAITING && entityToken[entity] === token) return entity;
    }
    return -1;
  }

  move(from: number, to: number): void {
    this.priority[to] = this.priority[from]!;
    this.order[to] = this.order[from]!;
    this.entities[to] = this.entities[from]!;
    this.tokens[to] = this.tokens[from]!;
  }

  grow(): void {
    const size = this.entities.length * 2;
    const copy = <T extends Float64Array | Int32Array>(array: T, make: (n: number) => T): T => {
      const next = make(size);
      next.set(array);
      return next;
    };
    this.priority = copy(this.priority, (n) => new Float64Array(n));
    this.order = copy(this.order, (n) => new Float64Array(n));
    this.entities = copy(this.entities, (n) => new Int32Array(n));
    this.tokens = copy(this.tokens, (n) => new Int32Array(n));
  }
}
