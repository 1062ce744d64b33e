// What a compute pool thread (compute/worker.ts) is asked to do; a leaf, so the pool, the thread and the callers that
// post tasks (compute/extraction/pdf.ts, compute/extraction/screen.ts, compute/simulation/pool.ts) share the shape without importing each other.
import type { WorldSpec } from '../domain/contracts/worldSpec.ts';
import type { ReplicationJob } from '../domain/simulation/run.ts';

export type ComputeTask =
  /** world: null when this thread is expected to hold the world under world_key already */
  | { kind: 'replication'; world_key: string; world: WorldSpec | null; job: ReplicationJob }
  | { kind: 'pdf_pages'; bytes: Uint8Array; progress: Int32Array } // both over SharedArrayBuffers (compute/extraction/pdf.ts)
  /** started: one Int32 over a SharedArrayBuffer, set to 1 when the thread begins (compute/extraction/screen.ts) */
  | { kind: 'screening'; lines: string[]; started: Int32Array };
