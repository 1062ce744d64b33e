// One long-lived worker-thread pool per process (piscina), created once and shared by simulation replications and
// PDF reading (ARCHITECTURE.md: compute/). Its threads start with the pool and stay until the process ends, so a run
// or an upload pays no thread start-up; the event loop only posts tasks and receives results.
import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import type { ComputeTask } from './worker.ts';

/** Upper bound on compute threads, whatever the machine reports. */
export const POOL_THREADS_MAX = 64;

export function defaultThreadCount(): number {
  return Math.max(1, Math.min(availableParallelism(), POOL_THREADS_MAX));
}

let pool: Piscina | null = null;
let pools_created = 0;
let threads_started = 0;

/** The process's compute pool, created on first use (the API and the worker call it at start). */
export function computePool(): Piscina {
  if (pool) return pool;
  const threads = defaultThreadCount();
  pool = new Piscina({
    filename: new URL('./worker.ts', import.meta.url).href,
    minThreads: threads,
    maxThreads: threads,
    // Threads never retire: a pool that shrank would pay thread start-up again on the next run.
    idleTimeout: Number.POSITIVE_INFINITY,
    // Each thread takes one task at a time; the queue holds the rest (callers bound what they submit).
    concurrentTasksPerWorker: 1,
  });
  pools_created++;
  pool.on('workerCreate', () => {
    threads_started++;
  });
  return pool;
}

export function runComputeTask<T>(task: ComputeTask, options: { transferList?: ArrayBuffer[] } = {}): Promise<T> {
  return computePool().run(task, { transferList: options.transferList as never }) as Promise<T>;
}

/** How many pools and threads this process has created (the pool is meant to be created once per process). */
export function computePoolStats(): { pools_created: number; threads_started: number; threads: number } {
  return { pools_created, threads_started, threads: pool?.threads.length ?? 0 };
}

/** Ends the pool's threads (process shutdown); a later computePool() makes a new one. */
export async function closeComputePool(): Promise<void> {
  const current = pool;
  pool = null;
  await current?.destroy();
}
