// Named builders for simulation test worlds (fixtures are built by code, not copied blobs).
import type { WorldSpec } from '../../domain/contracts/worldSpec.ts';

export type QueueWorldOptions = {
  servers: number;
  arrivals_per_minute: number;
  mean_service_minutes: number;
  horizon_minutes?: number;
  warm_up_minutes?: number;
  replications?: number;
  seed?: number;
  /** the treatment's change to the mean service time; omitted = the treatment changes nothing */
  treatment_mean_service_minutes?: number;
};

/** An M/M/c clinic: Poisson arrivals, c servers, exponential service, measuring wait, time in system, queue length and utilisation. */
export function queueWorld(options: QueueWorldOptions): WorldSpec {
  const { servers, arrivals_per_minute, mean_service_minutes } = options;
  return {
    contract: 'WorldSpec',
    version: '1.0.0',
    name: `M/M/${servers} test clinic`,
    synthetic: true,
    time_unit: 'minutes',
    horizon: options.horizon_minutes ?? 20_000,
    warm_up: options.warm_up_minutes ?? 1_000,
    replications: options.replications ?? 20,
    seed: options.seed ?? 12345,
    settings: {
      arrival_rate: { value: arrivals_per_minute, unit: 'per_minute', source: { kind: 'assumption', rationale: 'test queue' } },
      mean_service: { value: mean_service_minutes, unit: 'minutes', source: { kind: 'assumption', rationale: 'test queue' } },
      servers: { value: servers, unit: 'count', source: { kind: 'user_declared' } },
    },
    arrivals: [{ id: 'patients', kind: 'poisson', rate: { setting: 'arrival_rate' }, to_step: 'consult' }],
    resources: [{ id: 'clinician', capacity: { setting: 'servers' } }],
    steps: [
      { id: 'consult', kind: 'service', resource: 'clinician', duration: { dist: 'exponential', mean: { setting: 'mean_service' } }, next: 'done' },
      { id: 'done', kind: 'exit' },
    ],
    measured: [
      {
        id: 'wait',
        kind: 'time_between',
        from: { step: 'consult', at: 'enter' },
        to: { step: 'consult', at: 'start' },
        unit: 'minutes',
        denominator: 'entity',
        censoring: 'exclude',
      },
      {
        id: 'time_in_system',
        kind: 'time_between',
        from: { step: 'consult', at: 'enter' },
        to: { step: 'done', at: 'enter' },
        unit: 'minutes',
        denominator: 'entity',
        censoring: 'exclude',
      },
      { id: 'queue', kind: 'queue_length', resource: 'clinician', unit: 'entities', denominator: 'time', censoring: 'none' },
      { id: 'utilisation', kind: 'utilisation', resource: 'clinician', unit: 'fraction', denominator: 'capacity_time', censoring: 'none' },
      { id: 'seen', kind: 'count', event: { step: 'consult', at: 'end' }, unit: 'count', denominator: 'replication', censoring: 'none' },
    ],
    variants: [
      { id: 'baseline', label: 'Current clinic', role: 'baseline', changes: [] },
      {
        id: 'treatment',
        label: 'Changed clinic',
        role: 'treatment',
        changes: options.treatment_mean_service_minutes === undefined ? [] : [{ setting: 'mean_service', value: options.treatment_mean_service_minutes }],
      },
    ],
  };
}

/** Erlang C: probability an arrival waits in an M/M/c queue, and the mean wait Wq. */
export function erlangC(servers: number, arrivalRate: number, serviceRate: number): { probability_wait: number; mean_wait: number; mean_queue: number } {
  const load = arrivalRate / serviceRate;
  const utilisation = load / servers;
  let term = 1;
  let sum = 1;
  for (let k = 1; k < servers; k++) {
    term *= load / k;
    sum += term;
  }
  const last = (term * load) / servers / (1 - utilisation);
  const probabilityWait = last / (sum + last);
  const meanWait = probabilityWait / (servers * serviceRate - arrivalRate);
  return { probability_wait: probabilityWait, mean_wait: meanWait, mean_queue: arrivalRate * meanWait };
}

/** A world whose estimate is low on purpose (see below): a run meets a budget set at the estimate mid-way. */
export function burstyWorld(replications = 20): WorldSpec {
  // Rare large batches (one arrival event in 200 brings 1,000 patients, each then passing 40 short visits): replications
  // differ widely. The estimate pilots replication 0, which under seed 3 has no large batch (about 8,000 events against
  // a mean near 45,000), so the run meets a budget of the estimate part-way (docs/simulation.md, Cost model).
  const visits = Array.from({ length: 40 }, (_, k) => ({
    id: `visit_${k}`,
    kind: 'delay' as const,
    duration: { dist: 'fixed' as const, value: 1 },
    next: k === 39 ? 'done' : `visit_${k + 1}`,
  }));
  return {
    contract: 'WorldSpec',
    version: '1.0.0',
    name: 'Batched clinic',
    synthetic: true,
    time_unit: 'minutes',
    horizon: 20_000,
    warm_up: 100,
    replications,
    seed: 3,
    settings: {},
    arrivals: [{ id: 'patients', kind: 'poisson', rate: 0.01, batch_sizes: { values: [1, 1000], weights: [199, 1] }, to_step: 'consult' }],
    resources: [{ id: 'clinician', capacity: 1 }],
    steps: [
      { id: 'consult', kind: 'service', resource: 'clinician', duration: { dist: 'exponential', mean: 0.1 }, renege_after: 1000, next: 'visit_0' },
      ...visits,
      { id: 'done', kind: 'exit' },
    ],
    measured: [
      {
        id: 'wait',
        kind: 'time_between',
        from: { step: 'consult', at: 'enter' },
        to: { step: 'consult', at: 'start' },
        unit: 'minutes',
        denominator: 'entity',
        censoring: 'exclude',
      },
      { id: 'completed', kind: 'count', event: { step: 'done', at: 'enter' }, unit: 'count', denominator: 'replication', censoring: 'none' },
    ],
    variants: [
      { id: 'baseline', label: 'Current', role: 'baseline', changes: [] },
      { id: 'treatment', label: 'Same', role: 'treatment', changes: [] },
    ],
  } as WorldSpec;
}
