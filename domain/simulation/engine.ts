// The discrete-event engine: event scheduling over a binary heap held in typed arrays, with each arrival source's next
// arrival in a slot of its own beside it (spec: What the service does 4).
// Deterministic for a seed. Ties are broken by (time, event priority, insertion sequence): at one instant capacity
// changes come first, then service ends (freeing servers), then delay ends, then reneges, then arrivals; events of the
// same kind run in the order they were scheduled.
// The engine's parts are in engine/, by concept: the replication's state, its event calendar, arrivals, the flow
// through steps and queues, capacity and breakdowns, and measures and results. This module is their public face.
import { EVENT_TRACE_CAP_PER_VARIANT } from './limits.ts';
import { type CompiledModel, compileModel } from './model.ts';
import type { WorldSpec } from '../contracts/worldSpec.ts';
import { Replication } from './engine/replication.ts';
import type { ReplicationOptions, ReplicationResult } from './engine/types.ts';

export {
  type EventCounts,
  type MeasureObservation,
  type PricedQuantities,
  type ReplicationOptions,
  type ReplicationResult,
  SKETCH_RELATIVE_ACCURACY,
  type TraceEvent,
} from './engine/types.ts';

// 1.1.0: exponential draws by the ziggurat instead of -log(U) (the same distribution, other numbers for a seed).
export const ENGINE_VERSION = 'crucible-des 1.1.0';

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
