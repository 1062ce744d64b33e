// One long-lived worker-thread pool per process (piscina), created once and shared by simulation replications, PDF
// reading and export building (ARCHITECTURE.md: compute/), each kind and organization held to its share of the threads
// (compute/scheduler.ts). Its threads start with the pool and stay until the process ends, so a run
// or an upload pays no thread start-up; the event loop only posts tasks and receives results.
import { mkdirSync, statSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { type ComputeEvent, type ComputeShares, computeShares, FairScheduler, type Queued, shareKind } from './scheduler.ts';
import type { ComputeTask } from './tasks.ts';

/** Upper bound on compute threads, whatever the machine reports. */
export const POOL_THREADS_MAX = 64;
/** How long the thread that fills the compile cache may take before the pool starts without waiting for it. */
export const COMPILE_CACHE_WARM_UP_MAX_MS = 30_000;

let configured_threads: number | null = null;

/** Sets the thread count of the pool not started yet (CRUCIBLE_COMPUTE_THREADS); null: one per core. */
export function configureComputeThreads(threads: number | null): void {
  configured_threads = threads;
}

export function defaultThreadCount(): number {
  return configured_threads ?? Math.max(1, Math.min(availableParallelism(), POOL_THREADS_MAX));
}

// Pool threads load their modules from Node's compile cache (docs/performance.md, "The compute pool").
// Node strips TypeScript with a WebAssembly module whose memory growth detaches an ArrayBuffer, and one detach makes V8
// drop its ArrayBufferDetaching protector for the rest of the thread: every typed-array access of the engine then checks
// the buffer's detached bit (6-8 % of its speed). A module read from the cache is not stripped again, so before the pool
// starts, a short-lived thread loads the pool thread's modules with the cache on (filling it on a fresh clone, finding it
// full otherwise); the pool threads then strip nothing. Without a usable cache the threads strip as before: slower, same
// results.

const workerPath = fileURLToPath(new URL('./worker.ts', import.meta.url));

/**
 * The compile cache directory for the pool threads, or null when it is not safe to use: code is loaded from it, so it
 * must be this user's alone (created 0700 here; one that exists must be owned by this user and writable by no one else).
 */
function compileCacheDirectory(): string | null {
  const directory = process.env.NODE_COMPILE_CACHE || join(tmpdir(), `crucible-compile-cache-${process.getuid?.() ?? 'user'}`);
  try {
    mkdirSync(directory, { recursive: true, mode: 0o700 });
    const stats = statSync(directory);
    if (!stats.isDirectory() || (process.getuid && stats.uid !== process.getuid()) || (stats.mode & 0o022) !== 0) return null;
    return directory;
  } catch {
    return null;
  }
}

/** Loads the pool thread's file in a short-lived thread with the cache on, and writes the cache. */
function fillCompileCache(env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve) => {
    // Loaded as piscina loads a thread's file (require of its path: the cache knows a module by the name it was loaded by).
    const loader = new Worker(`try { require(${JSON.stringify(workerPath)}); } finally { require('node:module').flushCompileCache(); }`, {
      eval: true,
      env,
      stdout: false,
      stderr: false,
    });
    const timer = setTimeout(() => void loader.terminate(), COMPILE_CACHE_WARM_UP_MAX_MS);
    loader.once('error', () => {}); // a module that fails to load fails the same way on the pool threads, where it is reported
    loader.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

let pool: Piscina | null = null;
let starting: Promise<Piscina> | null = null;
let pools_created = 0;
let threads_started = 0;
let pool_errors = 0;

/** The process's compute pool, created on first use (the API and the worker call it at start). */
export function computePool(): Promise<Piscina> {
  if (starting) return starting;
  const threads = defaultThreadCount();
  const cache = compileCacheDirectory();
  const { NODE_COMPILE_CACHE: _unsafe, ...inherited } = process.env;
  const threadEnv = cache ? { ...inherited, NODE_COMPILE_CACHE: cache } : inherited;
  starting = (cache ? fillCompileCache(threadEnv) : Promise.resolve()).then(() => {
    pool = new Piscina({
      filename: workerPath,
      minThreads: threads,
      maxThreads: threads,
      // Threads never retire: a pool that shrank would pay thread start-up again on the next run.
      idleTimeout: Number.POSITIVE_INFINITY,
      // Each thread takes one task at a time; the scheduler posts a task only when a thread is free, and queues the rest.
      concurrentTasksPerWorker: 1,
      env: threadEnv,
    });
    pools_created++;
    pool.on('workerCreate', () => {
      threads_started++;
    });
    // piscina emits 'error' when a thread answers a task the pool no longer holds ("Unexpected message from Worker",
    // seen once after many PDF reads back to back). Every task's caller has had its own answer or error,
    // and an EventEmitter 'error' with no listener would end the process, so it is counted and reported without the
    // message (it carries the task's result: a document's text).
    pool.on('error', (error: unknown) => {
      pool_errors++;
      const name = error instanceof Error ? error.message.split(':')[0] : 'unknown';
      process.emitWarning(`compute pool: ${name} (ignored; every task's caller had its answer)`, { code: 'CRUCIBLE_COMPUTE_POOL' });
    });
    return pool;
  });
  return starting;
}

export type ComputeTaskOptions = {
  transferList?: ArrayBuffer[];
  signal?: AbortSignal;
  /** the organization the work is for: its share of the threads is counted by it (compute/scheduler.ts) */
  org_id?: string | null;
};

let scheduler: FairScheduler | null = null;
let tasks_submitted = 0;
const listeners = new Set<(event: ComputeEvent) => void>();

/** Calls `listener` with every task's queued, started and finished event (in order); returns the unsubscribe. */
export function onComputeEvent(listener: (event: ComputeEvent) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function emit(event: ComputeEvent): void {
  for (const listener of listeners) listener(event);
}

/** The share limits of this process's pool (the pool's thread count is fixed when it starts). */
export function computeShareLimits(): ComputeShares {
  return scheduler?.limits ?? computeShares(defaultThreadCount());
}

function abortError(signal: AbortSignal): Error {
  const reason = signal.reason;
  if (reason instanceof Error) return reason;
  return Object.assign(new Error('The task was aborted before it started'), { name: 'AbortError' });
}

/**
 * Runs one task on the pool, once the scheduler gives it a thread (compute/scheduler.ts: per-kind and per-organization
 * shares). Aborting `signal` takes a queued task off the queue, and ends the thread of a running one (piscina terminates
 * it and starts another in its place): the way to stop work that will not end by itself.
 */
export async function runComputeTask<T>(task: ComputeTask, options: ComputeTaskOptions = {}): Promise<T> {
  const piscina = await computePool();
  scheduler ??= new FairScheduler(computeShares(defaultThreadCount()));
  const fair = scheduler;
  const { signal } = options;
  if (signal?.aborted) throw abortError(signal);
  const number = ++tasks_submitted;
  const kind = shareKind(task);
  const org_id = options.org_id ?? null;
  const report = (event: ComputeEvent['event']) => emit({ event, task: number, kind, task_kind: task.kind, org_id });
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      if (!fair.withdraw(entry)) return; // running: piscina ends its thread through the same signal
      report('finished');
      reject(abortError(signal!));
    };
    const entry: Queued = {
      task: number,
      kind,
      task_kind: task.kind,
      org: FairScheduler.orgKey(org_id),
      start: () => {
        report('started');
        const done = () => {
          signal?.removeEventListener('abort', onAbort);
          fair.release(entry);
          report('finished');
          fair.dispatch();
        };
        (piscina.run(task, { transferList: options.transferList as never, signal }) as Promise<T>).then(
          (value) => {
            done();
            resolve(value);
          },
          (error: unknown) => {
            done();
            reject(error);
          },
        );
      },
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    fair.enqueue(entry);
    report('queued');
    fair.dispatch();
  });
}

/** How many pools and threads this process has created (the pool is meant to be created once per process). */
export function computePoolStats(): { pools_created: number; threads_started: number; threads: number; errors: number } {
  return { pools_created, threads_started, threads: pool?.threads.length ?? 0, errors: pool_errors };
}

/** Ends the pool's threads (process shutdown); a later computePool() makes a new one. */
export async function closeComputePool(): Promise<void> {
  const current = starting;
  starting = null;
  pool = null;
  scheduler = null;
  await (await current)?.destroy();
}
