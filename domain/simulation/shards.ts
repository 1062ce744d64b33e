// How a world run is split into shards (docs/runs.md, How a run uses the workers): a shard is a range of replication
// indexes of every variant, run as one activity on whichever worker takes it. Each replication's random numbers come
// from (world seed, replication index, source name) alone, so a replication's result is the same whichever shard,
// worker or thread computes it: the run's results do not depend on the shard size or the number of workers. A shard
// holds whole groups (every variant of a replication index) because results are kept and charged in complete groups.
// Pure: the workflow receives the plan from an activity that calls it.
import { REPLICATIONS_MAX } from './limits.ts';

/** A shard: replication indexes from ≤ index < to, of every variant. */
export type RunShard = { from: number; to: number };

/**
 * The most shards one run is split into. The run's workflow history grows by about 7 events per shard (the activity's
 * scheduled, started and completed events and the workflow task that handles each completion), so 200 shards keep it
 * under 1,500 events, well inside Temporal's guidance (a warning at 10,240 events): no continue-as-new is needed.
 * A run with more replications than this gets shards of several replications each.
 */
export const RUN_SHARDS_MAX = 200;
/** Shards of one run running at once, by default (CRUCIBLE_RUN_SHARDS_IN_FLIGHT). */
export const RUN_SHARDS_IN_FLIGHT_DEFAULT = 8;
/** A shard's target duration on one pool thread, by default (CRUCIBLE_RUN_SHARD_SECONDS). */
export const RUN_SHARD_SECONDS_DEFAULT = 2;
/**
 * The events one pool thread simulates per second, as the shard size assumes it: the generic event loop's measured
 * rate (docs/performance.md: 14.6 to 16.1 M events/s), below the generated loop's, so a shard errs on the short side.
 */
export const SHARD_EVENTS_PER_THREAD_SECOND = 15_000_000;

export type ShardPlanInput = {
  /** the world's replications per variant */
  replications: number;
  /** the estimate's events for the whole run (every variant and replication) */
  events_estimate: number;
  /** the target duration of one shard on one pool thread */
  shard_seconds: number;
  /** a fixed number of replications per shard instead of the target duration (tests, tuning); null: by duration */
  replications_per_shard: number | null;
};

/** The replications per shard: about `shard_seconds` of one thread at the estimate's events, whole groups, ≥ 1. */
export function shardSize(input: ShardPlanInput): number {
  const replications = Math.max(1, Math.min(input.replications, REPLICATIONS_MAX));
  const eventsPerGroup = Math.max(1, input.events_estimate / replications);
  const byDuration = Math.floor((input.shard_seconds * SHARD_EVENTS_PER_THREAD_SECOND) / eventsPerGroup);
  const wanted = input.replications_per_shard ?? byDuration;
  return Math.min(replications, Math.max(1, wanted, Math.ceil(replications / RUN_SHARDS_MAX)));
}

/** The run's shards in replication order: consecutive ranges covering every replication once, at most RUN_SHARDS_MAX. */
export function planShards(input: ShardPlanInput): RunShard[] {
  const replications = Math.max(0, Math.min(input.replications, REPLICATIONS_MAX));
  const size = shardSize(input);
  const shards: RunShard[] = [];
  for (let from = 0; from < replications; from += size) shards.push({ from, to: Math.min(replications, from + size) });
  return shards;
}
