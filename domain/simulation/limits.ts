// Named limits of a run, checked at estimate time and guarded again by the engine (STYLE.md: a limit on everything that grows).

/** Entities alive at once in one replication. */
export const ENTITIES_IN_SYSTEM_MAX = 1_000_000;
/** Events processed in one replication. */
export const EVENTS_PER_REPLICATION_MAX = 200_000_000;
/** Estimated events over the whole run (all variants x replications). */
export const EVENTS_PER_RUN_MAX = 5_000_000_000;
/** Replications per variant. */
export const REPLICATIONS_MAX = 1000;
/** Variants per world (the schema caps the list at 20 too). */
export const VARIANTS_MAX = 20;
/** Horizon, in days whatever the world's time unit. */
export const HORIZON_DAYS_MAX = 3660;
/** Events of the first replication kept in the trace, per variant. */
export const EVENT_TRACE_CAP_PER_VARIANT = 10_000;

/** Cost model: credits charged per simulated events (spec: estimate "a documented cost model"). */
export const EVENTS_PER_CREDIT = 100_000;
/** Minimum credits for any run that simulates at least one event. */
export const RUN_CREDITS_MIN = 1;

/** Credits for a number of simulated events: ceil(events / EVENTS_PER_CREDIT), at least RUN_CREDITS_MIN. */
export function creditsForEvents(events: number): number {
  if (!(events > 0)) return RUN_CREDITS_MIN;
  return Math.max(RUN_CREDITS_MIN, Math.ceil(events / EVENTS_PER_CREDIT));
}
