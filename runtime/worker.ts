// The Temporal workers of a process: one per task queue it serves (domain/jobs.ts WORK_QUEUES), every activity on each.
import { fileURLToPath } from 'node:url';
import { NativeConnection, Worker, bundleWorkflowCode, type WorkflowBundle, type WorkerOptions } from '@temporalio/worker';
import type { Logger } from 'pino';
import type { Client } from '@temporalio/client';
import type { ActivityDeps } from '../activities/deps.ts';
import type { JobTemporal } from '../integrations/temporal/jobs.ts';
import { createActivities, withFailureBoundary } from '../activities/index.ts';
import type { Db } from '../store/db.ts';
import { type WorkQueue, workQueueName } from '../domain/jobs.ts';
import { type Config, temporalConnectOptions } from './config.ts';
import { encryptedDataConverter } from '../integrations/temporal/codec.ts';

export const WORKFLOWS_PATH = fileURLToPath(new URL('../workflows/index.ts', import.meta.url));

/** Bundles the workflow code once; tests share one bundle (theirs adds the test-only workflows) across workers. */
export async function bundleWorkflows(workflows_path: string = WORKFLOWS_PATH): Promise<WorkflowBundle> {
  return bundleWorkflowCode({ workflowsPath: workflows_path, logger: quietLogger() });
}

/** Activities a test adds beside the production ones (test/support/activities.ts); production passes none. */
export type ExtraActivities = (deps: ActivityDeps) => Record<string, (...args: never[]) => Promise<unknown>>;

function quietLogger() {
  const noop = () => {};
  return { log: noop, trace: noop, debug: noop, info: noop, warn: noop, error: noop };
}

export type WorkerStart = {
  config: Config;
  db: Db;
  logger: Logger;
  address: string;
  task_queue?: string;
  /** The kinds of work this process serves (default: the configuration's, CRUCIBLE_WORKER_QUEUES or --queues). */
  queues?: readonly WorkQueue[];
  bundle?: WorkerOptions['workflowBundle'];
  extra_activities?: ExtraActivities;
  /** The client the maintenance reconcilers start jobs with. */
  client?: Client;
};

/**
 * One process's workers, one per task queue it serves (Temporal: a worker polls one task queue), on one connection:
 * run, shut down and read together as one worker.
 */
export class QueueWorkers {
  readonly workers: ReadonlyMap<WorkQueue, Worker>;

  constructor(workers: ReadonlyMap<WorkQueue, Worker>) {
    this.workers = workers;
  }

  run(): Promise<void> {
    return Promise.all([...this.workers.values()].map((worker) => worker.run())).then(() => undefined);
  }

  shutdown(): void {
    for (const worker of this.workers.values()) if (worker.getState() === 'RUNNING') worker.shutdown();
  }

  /** RUNNING while any of them runs. */
  getState(): ReturnType<Worker['getState']> {
    const states = [...this.workers.values()].map((worker) => worker.getState());
    return states.includes('RUNNING') ? 'RUNNING' : (states[0] ?? 'STOPPED');
  }
}

/**
 * The workers of the queues this process serves (docs/deploy.md "Task queues"): the default queue's worker runs every
 * workflow (and their local activities) and the short activities; the model and simulation queues' workers run
 * activities only. Every worker registers every activity (the workflows route each to its queue), each with the
 * queue's own concurrency limit.
 */
export async function createWorker(options: WorkerStart): Promise<{ worker: QueueWorkers; connection: NativeConnection }> {
  const base = options.task_queue ?? options.config.temporal_task_queue;
  const deps = activityDeps(options.config, options.db, options.logger, options.client ? { client: options.client, task_queue: base } : null);
  const connection = await NativeConnection.connect({ address: options.address, ...temporalConnectOptions(options.config) });
  try {
    const workers = new Map<WorkQueue, Worker>();
    for (const queue of options.queues ?? options.config.worker_queues) workers.set(queue, await createOn(connection, options, base, queue, deps));
    return { worker: new QueueWorkers(workers), connection };
  } catch (error) {
    await connection.close(); // a failed attempt (the namespace missing) leaves no connection open behind it
    throw error;
  }
}

function createOn(connection: NativeConnection, options: WorkerStart, base: string, queue: WorkQueue, deps: ActivityDeps): Promise<Worker> {
  const workflows = queue !== 'default' ? {} : options.bundle ? { workflowBundle: options.bundle } : { workflowsPath: WORKFLOWS_PATH };
  return Worker.create({
    connection,
    namespace: options.config.temporal_namespace,
    taskQueue: workQueueName(base, queue),
    // The same codec as the service's client: workflow inputs, activity results and signals are stored encrypted.
    dataConverter: encryptedDataConverter(options.config.master_key, options.config.master_keys_previous),
    ...workflows,
    activities: { ...createActivities(deps), ...(options.extra_activities ? withFailureBoundary(options.extra_activities(deps)) : {}) },
    maxConcurrentActivityTaskExecutions: options.config.worker_concurrency[queue],
    shutdownGraceTime: '10 seconds',
  });
}

/** Waits between a worker's attempts to reach Temporal; the last repeats until it answers (or the process stops). */
export const WORKER_CONNECT_BACKOFF_MS = [500, 1_000, 2_000, 5_000, 10_000];

/**
 * The kind of failure a connection attempt met, so the log says each kind once rather than every attempt: Temporal not
 * answering, its refusal of the credentials (API key or client certificate), a TLS handshake that failed, the namespace
 * missing, or anything else (by the error's name).
 */
export function connectFailureClass(error: unknown): string {
  const message = String((error as Error)?.message ?? error);
  const code = (error as { code?: unknown })?.code;
  if (code === 16 || code === 7 || /unauthenticated|permission ?denied|unauthori[sz]ed|api key|authoriz/i.test(message)) return 'credentials refused';
  if (/certificate|handshake|tls|ssl|x509|unknown ca|alert/i.test(message)) return 'TLS failed';
  if (/namespace/i.test(message) && (code === 5 || /not ?found/i.test(message))) return 'namespace not found';
  if (code === 14 || code === 4 || /connect|unavailable|refused|timed? ?out|deadline|dns|resolve|transport|reset|closed|unreachable/i.test(message))
    return 'unreachable';
  return (error as Error)?.name || 'Error';
}

/**
 * Runs `attempt` until it succeeds, waiting WORKER_CONNECT_BACKOFF_MS between tries; each kind of failure
 * (connectFailureClass) is logged once, and the success after failures once. Resolves null when `signal` aborts first
 * (the process stops before Temporal answered). `onWaiting` is called after the first failure.
 */
export async function withConnectBackoff<T>(
  attempt: () => Promise<T>,
  options: { logger: Logger; log: Record<string, unknown>; signal: AbortSignal; delays_ms?: readonly number[]; onWaiting?: () => void },
): Promise<T | null> {
  const delays = options.delays_ms ?? WORKER_CONNECT_BACKOFF_MS;
  const said = new Set<string>();
  for (let round = 0; !options.signal.aborted; round++) {
    try {
      const value = await attempt();
      if (round > 0) options.logger.info({ ...options.log, attempts: round + 1 }, 'the worker reached Temporal and is polling');
      return value;
    } catch (error) {
      if (options.signal.aborted) return null;
      const kind = connectFailureClass(error);
      if (!said.has(kind)) {
        said.add(kind);
        options.logger.warn({ ...options.log, attempt_class: kind, err: error }, `the worker cannot start polling (${kind}); trying again with backoff`);
      }
      if (round === 0) options.onWaiting?.();
    }
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, delays[Math.min(round, delays.length - 1)]);
      options.signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
    });
  }
  return null;
}

/** What activities need, taken from the configuration here so activities never read it themselves. */
export function activityDeps(config: Config, db: Db, logger: Logger, jobs: JobTemporal | null): ActivityDeps {
  const { models, provider_base_urls, hosted_provider, hosted_api_key, master_key, ai_credits_per_1k_tokens, ai_call_timeout_seconds, europe_pmc_base_url } =
    config;
  const { stripe_secret_key, stripe_api_base, stripe_webhook_secret, billing_reconcile_after_seconds, authoring_steps_per_run_max } = config;
  const { quarantine_retention_days, run_shards, master_keys_previous } = config;
  return {
    config: {
      models,
      provider_base_urls,
      hosted_provider,
      hosted_api_key,
      master_key,
      master_keys_previous,
      ai_credits_per_1k_tokens,
      ai_call_timeout_seconds,
      europe_pmc_base_url,
      stripe_secret_key,
      stripe_api_base,
      stripe_webhook_secret,
      billing_reconcile_after_seconds,
      authoring_steps_per_run_max,
      quarantine_retention_days,
      run_shards,
    },
    db,
    logger,
    jobs,
  };
}
