// What a compute pool thread (compute/worker.ts) is asked to do; a leaf, so the pool, the thread and the callers that
// post tasks (compute/extraction/pdf.ts, compute/extraction/screen.ts, compute/simulation/pool.ts,
// compute/simulation/export.ts, compute/worldValidation.ts) share the shape without importing each other. Every kind but 'replication' counts as
// extraction for the pool's shares (compute/scheduler.ts).
import type { RunManifest } from '../domain/contracts/runResults.ts';
import type { WorldSpec } from '../domain/contracts/worldSpec.ts';
import type { ReplicationResult } from '../domain/simulation/index.ts';
import type { EventChunkRow } from '../domain/simulation/traceChunks.ts';
import type { ReplicationJob } from '../domain/simulation/run.ts';

/** What a run's export is made of, as stored: its manifest, world, kept replications and stored trace (its chunks as read). */
export type RunExportInput = { manifest: RunManifest; world: WorldSpec; results: ReplicationResult[]; event_chunks: EventChunkRow[] };

export type ComputeTask =
  /** world: null when this thread is expected to hold the world under world_key already */
  | { kind: 'replication'; world_key: string; world: WorldSpec | null; job: ReplicationJob }
  /** both over SharedArrayBuffers (compute/extraction/pdf.ts) */
  | { kind: 'pdf_pages'; bytes: Uint8Array; progress: Int32Array }
  /** started: one Int32 over a SharedArrayBuffer, set to 1 when the thread begins (compute/extraction/screen.ts) */
  | { kind: 'screening'; lines: string[]; started: Int32Array }
  /** a run's export ZIP, built once per run (compute/simulation/export.ts) */
  | { kind: 'export'; input: RunExportInput }
  /** a large world's text sent to the public validator, parsed and checked here (compute/worldValidation.ts) */
  | { kind: 'world_validation'; text: string };
