// Measures, draws, trace and results of a replication: the accumulators the hooks add to, samples from the model's
// distributions, trace events, and the summary at the horizon.
import type { Replication } from './state.ts';
import { pick } from './pick.ts';
import type { MeasureObservation, PricedQuantities, ReplicationResult, TraceEvent } from './types.ts';
import {
  type CompiledDistribution,
  DIST_EMPIRICAL,
  DIST_EXPONENTIAL,
  DIST_FIXED,
  DIST_GAMMA,
  DIST_LOGNORMAL,
  DIST_NORMAL,
  DIST_TRIANGULAR,
  DIST_UNIFORM,
  MEASURE_COUNT,
  MEASURE_QUEUE_LENGTH,
  MEASURE_TIME_BETWEEN,
  MEASURE_UTILISATION,
  MOMENT_STRIDE,
} from '../model.ts';
import { boundedNormalDraw } from '../normal.ts';
import type { RandomStream } from '../random.ts';
import {
  MEASURE_AREA,
  MEASURE_CAPACITY_AREA,
  MEASURE_DETAILED,
  MEASURE_DISCOUNTED,
  MEASURE_DISCOUNTED_CAPACITY,
  MEASURE_OBSERVATIONS,
  MEASURE_STRIDE,
  MEASURE_SUM,
  STATE_FREE,
} from '../engineLayout.ts';

export const measureMethods = {
  // ---- measures ----

  hook(entity: number, stepIndex: number, moment: number): void {
    this.hooks(this, entity, stepIndex * MOMENT_STRIDE + moment);
  },

  /** One entity's time for a measure that keeps its distribution (sketch) or a threshold count. */
  observe(m: number, value: number): void {
    this.measureSketches[m]?.accept(value);
    if (value > this.measures[m]!.threshold) this.measureOver[m]!++;
  },

  /** Accumulates time-weighted areas of a resource's measures up to now, clipped to each measure's window (the model's specialised code). */
  touch(resource: number): void {
    // Most touches after the first at an instant find nothing to add (a service end, the dispatch and the next start):
    // they skip the call (the specialised code returns at once when now is its resource's last time, so this is the same).
    if (this.resourceLastTime[resource] !== this.now) this.touchResource(this, resource);
  },

  /** The discounted length of [from, to): the integral of e^{-k (t - origin)} dt. */
  discountedSpan(from: number, to: number): number {
    const k = this.discount;
    return (Math.exp(-k * (from - this.discountOrigin)) - Math.exp(-k * (to - this.discountOrigin))) / k;
  },

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
  },

  // ---- sampling ----

  /** A draw from a distribution; the exponential case is kept small enough to inline, the others are out of line. */
  sample(distribution: CompiledDistribution, stream: RandomStream): number {
    if (distribution.kind === DIST_EXPONENTIAL) return distribution.a * stream.standardExponential();
    return this.sampleOther(distribution, stream);
  },

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
  },

  // ---- trace and results ----

  /** A trace event; `entity` is the engine's slot, recorded as the person in it. */
  record(kind: TraceEvent['kind'], entity: number | null, step: string | null, resource: string | null, value: number | null): void {
    const trace = this.trace!;
    if (trace.length >= this.traceLimit) {
      this.traceTruncated = true;
      return;
    }
    trace.push({ sequence: trace.length, time: this.now, kind, entity: entity === null ? null : this.tracePerson[entity]!, step, resource, value });
  },

  /** A trace event of an entity at a step, with the step's resource when atResource (out of line: hot paths only test this.trace). */
  recordStep(kind: TraceEvent['kind'], entity: number, stepIndex: number, atResource: boolean, value: number | null): void {
    const step = this.steps[stepIndex]!;
    this.record(kind, entity, step.id, atResource ? this.model.resources[step.resource]!.id : null, value);
  },

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
  },
} satisfies ThisType<Replication>;

export type MeasureMethods = typeof measureMethods;
