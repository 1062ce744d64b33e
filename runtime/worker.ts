// The Temporal worker: registers every workflow and activity on the task queue.
import { fileURLToPath } from 'node:url';
import { NativeConnection, Worker, bundleWorkflowCode, type WorkflowBundle, type WorkerOptions } from '@temporalio/worker';
import type { Logger } from 'pino';
import type { Client } from '@temporalio/client';
import type { ActivityDeps } from '../activities/deps.ts';
import type { JobTemporal } from '../integrations/temporal/jobs.ts';
import { createActivities, withFailureBoundary } from '../activities/index.ts';
import type { Db } from '../store/db.ts';
import type { Config } from './config.ts';
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

export async function createWorker(options: {
  config: Config;
  db: Db;
  logger: Logger;
  address: string;
  task_queue?: string;
  bundle?: WorkerOptions['workflowBundle'];
  extra_activities?: ExtraActivities;
  /** The client the maintenance reconcilers start jobs with. */
  client?: Client;
}): Promise<{ worker: Worker; connection: NativeConnection }> {
  const taskQueue = options.task_queue ?? options.config.temporal_task_queue;
  const deps = activityDeps(options.config, options.db, options.logger, options.client ? { client: options.client, task_queue: taskQueue } : null);
  const connection = await NativeConnection.connect({ address: options.address, tls: options.config.temporal_tls || undefined });
  const worker = await Worker.create({
    connection,
    namespace: options.config.temporal_namespace,
    taskQueue,
    // The same codec as the service's client: workflow inputs, activity results and signals are stored encrypted.
    dataConverter: encryptedDataConverter(options.config.master_key, options.config.master_keys_previous),
    ...(options.bundle ? { workflowBundle: options.bundle } : { workflowsPath: WORKFLOWS_PATH }),
    activities: { ...createActivities(deps), ...(options.extra_activities ? withFailureBoundary(options.extra_activities(deps)) : {}) },
    shutdownGraceTime: '10 seconds',
  });
  return { worker, connection };
}

/** What activities need, taken from the configuration here so activities never read it themselves. */
export function activityDeps(config: Config, db: Db, logger: Logger, jobs: JobTemporal | null): ActivityDeps {
  const { models, provider_base_urls, hosted_provider, hosted_api_key, master_key, ai_credits_per_1k_tokens, ai_call_timeout_seconds, europe_pmc_base_url } =
    config;
  const { stripe_secret_key, stripe_api_base, stripe_webhook_secret, billing_reconcile_after_seconds, authoring_steps_per_run_max } = config;
  const { quarantine_retention_days } = config;
  return {
    config: {
      models,
      provider_base_urls,
      hosted_provider,
      hosted_api_key,
      master_key,
      ai_credits_per_1k_tokens,
      ai_call_timeout_seconds,
      europe_pmc_base_url,
      stripe_secret_key,
      stripe_api_base,
      stripe_webhook_secret,
      billing_reconcile_after_seconds,
      authoring_steps_per_run_max,
      quarantine_retention_days,
    },
    db,
    logger,
    jobs,
  };
}
