// The simulation room's public functions (pure). Activities and the API import from here.
import type { RunManifest } from '../contracts/runResults.ts';
import type { WorldSpec } from '../contracts/worldSpec.ts';
import { ENGINE_VERSION, type ReplicationResult } from './engine.ts';

export {
  ENGINE_VERSION,
  type EventCounts,
  type MeasureObservation,
  type ReplicationOptions,
  type ReplicationResult,
  runReplication,
  type TraceEvent,
} from './engine.ts';
export { COST_MODEL_DESCRIPTION, estimateRun, type RunEstimate } from './estimate.ts';
export { buildExportFiles, EXPORT_FILE_NAMES, type ExportInput, eventsCsv, metricsCsv, reportHtml } from './export.ts';
export * from './limits.ts';
export { compileModel, type CompiledModel } from './model.ts';
export {
  compare,
  COMPARISON_METHOD,
  costReport,
  describe,
  type EventTrace,
  eventTrace,
  findings,
  pageEvents,
  type StoredTraceEvent,
  summarize,
  tQuantile975,
} from './results.ts';
export { PairGate, precisionReached, type ReplicationJob, replicationJobs, type RunProgress, runSequential } from './run.ts';
export { type Problem, type ValidationResult, validateWorld } from './validate.ts';
export { deadlinePhrase, estimateWithModelCheck, type ModelWarning, modelCheck } from './modelCheck.ts';

export const SEED_SCHEME = 'xoshiro128** per (world seed, replication index, random source name), seeded through splitmix32';

export type ManifestInput = {
  run_id: string;
  world_revision_id: string;
  world: WorldSpec;
  results: ReplicationResult[];
  status: RunManifest['status'];
  started_at: Date;
  finished_at: Date;
  credits_reserved: number;
  credits_used: number;
};

/** The RunManifest of a run from its completed replications. */
export function buildManifest(input: ManifestInput): RunManifest {
  const { world, results } = input;
  return {
    contract: 'RunManifest',
    version: '1.0.0',
    run_id: input.run_id,
    world_revision_id: input.world_revision_id,
    world_name: world.name,
    engine_version: ENGINE_VERSION,
    seed: world.seed,
    seed_scheme: SEED_SCHEME,
    status: input.status,
    variants: world.variants.map((variant) => ({
      variant_id: variant.id,
      role: variant.role,
      replications_completed: results.filter((result) => result.variant_id === variant.id).length,
    })),
    replications_requested: world.replications * world.variants.length,
    replications_completed: results.length,
    events_simulated: results.reduce((sum, result) => sum + result.event_counts.events_total, 0),
    started_at: input.started_at.toISOString(),
    finished_at: input.finished_at.toISOString(),
    wall_clock_ms: Math.max(0, Math.round(input.finished_at.getTime() - input.started_at.getTime())),
    credits_reserved: input.credits_reserved,
    credits_used: input.credits_used,
    synthetic: true,
  };
}
