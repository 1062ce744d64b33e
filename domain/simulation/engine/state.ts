// The state of one replication: the class's fields and its constructor, which sets them up from the compiled model.
// Its methods are written by concept in the files beside this one and put on this class's prototype (replication.ts),
// so every replication shares one prototype and one shape.
import { DDSketch } from '@datadog/sketches-js';
import {
  type CompiledModel,
  MEASURE_COUNT,
  MEASURE_QUEUE_LENGTH,
  MEASURE_UTILISATION,
  STEP_ASSIGN,
  STEP_SEIZE,
  STEP_BRANCH_PROBABILITY,
  STEP_BRANCH_SHORTEST_QUEUE,
} from '../model.ts';
import { RandomStream } from '../random.ts';
import { areaLines, generated, hookLines, int } from '../engineCode.ts';
import { type LoopCode, specialisedLoop } from '../loopCode.ts';
import { MEASURE_DETAILED, MEASURE_KIND, MEASURE_STRIDE, MEASURE_TIME_FACTOR, MEASURE_WINDOW_END, MEASURE_WINDOW_START } from '../engineLayout.ts';
import { FifoQueue, PriorityQueue } from './queues.ts';
import { type EventCounts, SKETCH_RELATIVE_ACCURACY, type TraceEvent } from './types.ts';

// Fields without an initializer are `declare`d: the constructor's first write gives each its typed value, instead of
// class-field semantics defining it as undefined first (the JIT then keeps the field's type, e.g. Float64Array).
export class Replication {
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

/** Lists as one array and the start of each (start[i] .. start[i + 1]), so the hot path reads flat typed arrays. */
function flatten(lists: number[][]): [Int32Array, Int32Array] {
  const start = new Int32Array(lists.length + 1);
  lists.forEach((list, index) => {
    start[index + 1] = start[index]! + list.length;
  });
  return [start, Int32Array.from(lists.flat())];
}
