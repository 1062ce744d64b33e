// Worker thread of the simulation pool: compiles the world once per variant and runs the replications it is sent.
import { parentPort, workerData } from 'node:worker_threads';
import type { WorldSpec } from '../../domain/contracts/worldSpec.ts';
// Only the engine and the model compiler: the room's index also loads validation, results and export code (and
// TypeBox), which every thread would otherwise parse at start-up for nothing.
import { runReplication } from '../../domain/simulation/engine.ts';
import { type CompiledModel, compileModel } from '../../domain/simulation/model.ts';
import type { ReplicationJob } from '../../domain/simulation/run.ts';

export type WorkerRequest = { id: number; job: ReplicationJob };
export type WorkerResponse = { id: number; ok: true; result: ReturnType<typeof runReplication>; wall_ms: number } | { id: number; ok: false; error: { name: string; code?: string; message: string; details?: unknown } };

const world = (workerData as { world: WorldSpec }).world;
const models = new Map<string, CompiledModel>();

parentPort!.on('message', (request: WorkerRequest) => {
  const started = performance.now();
  try {
    let model = models.get(request.job.variant_id);
    if (!model) {
      model = compileModel(world, request.job.variant_id);
      models.set(request.job.variant_id, model);
    }
    const result = runReplication(world, request.job, model);
    parentPort!.postMessage({ id: request.id, ok: true, result, wall_ms: performance.now() - started } satisfies WorkerResponse);
  } catch (error) {
    const failure = error as { name?: string; code?: string; message?: string; details?: unknown };
    parentPort!.postMessage({ id: request.id, ok: false, error: { name: failure.name ?? 'Error', code: failure.code, message: failure.message ?? String(error), details: failure.details } } satisfies WorkerResponse);
  }
});
