// A compute pool thread (compute/pool.ts): runs simulation replications, reads its share of a PDF's pages, screens a
// source's lines, builds run exports and checks large worlds sent to the validator. It keeps the worlds and compiled models it saw recently, so the replications of
// one run compile each variant once per thread and only a run's first task on a thread carries the world
// (compute/simulation/pool.ts sends it again when told). Only the engine, the model compiler, the export builder
// (domain/simulation's results) and the PDF reader load here (with the intake limits the reader checks, which bring
// TypeBox; not the rest of the rooms); the screening rules and secretlint load on a first screening.
import type { WorldSpec } from '../domain/contracts/worldSpec.ts';
import type { ScreeningHit } from '../domain/intake/screening.ts';
import { runReplication } from '../domain/simulation/engine.ts';
import { type CompiledModel, compileModel } from '../domain/simulation/model.ts';
import { countStrayRejection, type PdfShareResult, readPdfShare } from './extraction/pdf.ts';
// Imported statically, so the compile cache the pool fills before its threads start holds it (compute/pool.ts).
import { buildRunExport } from './simulation/export.ts';
import type { ComputeTask } from './tasks.ts';
import type { WorldTextOutcome } from './worldValidation.ts';

// pdfjs inflates every content stream over 1 KiB through DecompressionStream, which in Node is a web stream over zlib on
// the libuv threadpool: for a page's few KiB the hop costs more than the inflate and this thread idles meanwhile. Without
// it pdfjs inflates on this thread with its own decoder (its fallback, same bytes); nothing else on a pool thread uses it.
Reflect.deleteProperty(globalThis, 'DecompressionStream');

// Node's default for a promise rejected with no handler is to throw it, which ends the thread and whatever task it runs
// then. Only pdfjs leaves such promises here (a damaged file can make it drop one, docs/decisions.md): the PDF read in
// progress counts them and fails (compute/extraction/pdf.ts), and the thread goes on.
process.on('unhandledRejection', countStrayRejection);

export type ReplicationOutcome =
  | { ok: true; result: ReturnType<typeof runReplication>; wall_ms: number }
  /** the task came without its world and this thread does not hold it (never saw it, or dropped it): send it with the world */
  | { ok: false; world_missing: true }
  | { ok: false; world_missing?: undefined; error: { name: string; code?: string; message: string; details?: unknown } };

/** Worlds kept per thread by world_key, oldest dropped first. */
const WORLDS_KEPT_MAX = 8;
/** Compiled models kept per thread (world_key + variant), oldest dropped first. */
const MODELS_KEPT_MAX = 32;
const worlds = new Map<string, WorldSpec>();
const models = new Map<string, CompiledModel>();

function keep<T>(map: Map<string, T>, key: string, value: T, limit: number): void {
  map.delete(key);
  if (map.size >= limit) map.delete(map.keys().next().value!);
  map.set(key, value);
}

function replication(task: Extract<ComputeTask, { kind: 'replication' }>): ReplicationOutcome {
  const started = performance.now();
  try {
    const world = task.world ?? worlds.get(task.world_key);
    if (!world) return { ok: false, world_missing: true };
    if (task.world) keep(worlds, task.world_key, task.world, WORLDS_KEPT_MAX);
    const key = `${task.world_key}\u0000${task.job.variant_id}`;
    let model = models.get(key);
    if (!model) {
      model = compileModel(world, task.job.variant_id);
      keep(models, key, model, MODELS_KEPT_MAX);
    }
    return { ok: true, result: runReplication(world, task.job, model), wall_ms: performance.now() - started };
  } catch (error) {
    const failure = error as { name?: string; code?: string; message?: string; details?: unknown };
    return { ok: false, error: { name: failure.name ?? 'Error', code: failure.code, message: failure.message ?? String(error), details: failure.details } };
  }
}

export default async function run(task: ComputeTask): Promise<ReplicationOutcome | PdfShareResult | Uint8Array | ScreeningHit[] | WorldTextOutcome> {
  if (task.kind === 'replication') return replication(task);
  if (task.kind === 'export') {
    // The archive is copied back, not transferred: a detached buffer would cost this thread V8's ArrayBufferDetaching
    // protector, which the engine's typed arrays rely on (compute/pool.ts).
    return buildRunExport(task.input);
  }
  if (task.kind === 'screening') {
    // Loaded on a thread's first screening only: secretlint's rules stay out of threads that never screen.
    const { screenShare } = await import('./extraction/screen.ts');
    return screenShare(task.lines, task.started);
  }
  if (task.kind === 'world_validation') {
    const { checkWorldText } = await import('./worldValidation.ts');
    return checkWorldText(task.text);
  }
  return readPdfShare(task.bytes, task.progress);
}
