// Arrivals of a replication: when each source's next arrival comes, what arrives (batches, attributes), and the
// entities' slots over typed arrays.
import type { Replication } from './state.ts';
import { pick } from './pick.ts';
import { entityLimit } from './worldLimits.ts';
import { ENTITIES_IN_SYSTEM_MAX } from '../limits.ts';
import { ARRIVAL_POISSON, ARRIVAL_RENEWAL, ARRIVAL_SCHEDULED, HOURS_PER_WEEK, rateTableRate } from '../model.ts';
import { STATE_FREE, STATE_MOVING } from '../engineLayout.ts';

export const arrivalMethods = {
  // ---- arrivals ----

  scheduleNextRandomArrival(index: number, from: number): void {
    const arrival = this.model.arrivals[index]!;
    if (arrival.kind === ARRIVAL_POISSON) {
      if (arrival.rate > 0) this.scheduleArrival(from + this.arrivalStreams[index]!.standardExponential() / arrival.rate, index);
      return;
    }
    this.scheduleOtherArrival(index, from);
  },

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
  },

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
  },

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
  },

  // The less common parts of an arrival, out of line so that onArrival stays small enough to inline its callees.

  drawBatch(index: number): number {
    const arrival = this.model.arrivals[index]!;
    return arrival.batchValues![pick(arrival.batchCumulative!, this.batchStreams[index]!.uniform())]!;
  },

  assignAttributes(entity: number, index: number): void {
    const assignments = this.model.arrivals[index]!.attributes;
    for (let k = 0; k < assignments.length; k++) {
      const assignment = assignments[k]!;
      const u = this.attributeStreams[index]![k]!.uniform();
      this.entityAttributes[entity * this.attributeCount + assignment.attribute] = assignment.codes[pick(assignment.cumulative, u)]!;
    }
  },

  /** count measures per arrival: the arrival counts in the denominator of those whose window holds now */
  countArrival(): void {
    const perArrival = this.perArrivalMeasures;
    for (let k = 0; k < perArrival.length; k++) {
      const m = perArrival[k]!;
      const measure = this.measures[m]!;
      if (this.now >= measure.windowStart && this.now < measure.windowEnd) this.measureArrivals[m]!++;
    }
  },

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
  },

  releaseEntity(entity: number): void {
    this.entityState[entity] = STATE_FREE;
    this.freeList[this.freeCount++] = entity;
    this.live--;
  },

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
  },
} satisfies ThisType<Replication>;

export type ArrivalMethods = typeof arrivalMethods;
