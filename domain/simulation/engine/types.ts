// What a replication reports: its result, measures, event counts and trace.

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
