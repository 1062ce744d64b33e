// The event calendar of a replication: the heap of events in progress, each arrival source's slot, and the loop that
// takes the earliest event until the horizon.
import type { Replication } from './state.ts';
import { pick } from './pick.ts';
import { entityLimit, eventLimit } from './worldLimits.ts';
import type { ReplicationResult } from './types.ts';
import { EVENTS_PER_REPLICATION_MAX } from '../limits.ts';
import { ARRIVAL_SCHEDULED } from '../model.ts';
import {
  EVENT_ARRIVAL,
  EVENT_DELAY_END,
  EVENT_FAILURE,
  EVENT_RENEGE,
  EVENT_REPAIR,
  EVENT_SERVICE_END,
  EVENT_SHIFT,
  INVERSE_PRIORITY_SCALE,
  PRIORITY_SCALE,
} from '../engineLayout.ts';

export const calendarMethods = {
  // ---- event heap ----

  /**
   * Schedules an event. Small enough that the JIT always inlines it: the time goes through a number field, because a
   * number passed to a call the JIT does not inline is boxed (a heap allocation per event), while a field is written in place.
   */
  schedule(time: number, kind: number, a: number, b: number): void {
    this.scheduledTime = time;
    this.push(kind, a, b);
  },

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
  },

  /** Puts the arrival source's next arrival in its slot (none past the horizon, as push). findNextArrival follows. */
  scheduleArrival(time: number, index: number): void {
    if (time > this.horizon) return;
    this.arrivalTime[index] = time;
    this.arrivalKey[index] = EVENT_ARRIVAL * PRIORITY_SCALE + this.sequence++;
  },

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
  },

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
  },

  growHeap(): void {
    const events = new Float64Array(this.heapEvents.length * 2);
    events.set(this.heapEvents);
    this.heapEvents = events;
    const args = new Int32Array(this.heapArgs.length * 2);
    args.set(this.heapArgs);
    this.heapArgs = args;
  },

  /** Removes the root the loop has taken (when the event it ran scheduled nothing). */
  popRoot(): void {
    this.rootTaken = false;
    const size = --this.heapSize;
    if (size === 0) return;
    this.scheduledTime = this.heapEvents[2 * size]!;
    this.scheduledKey = this.heapEvents[2 * size + 1]!;
    this.siftDown(size, this.heapArgs[2 * size]!, this.heapArgs[2 * size + 1]!);
  },

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
  },

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
  },

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
  },
} satisfies ThisType<Replication>;

export type CalendarMethods = typeof calendarMethods;
