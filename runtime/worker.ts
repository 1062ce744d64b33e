// The Temporal worker: registers every workflow and activity on the task queue.
import { fileURLToPath } from 'node:url';
import { NativeConnection, Worker, bundleWorkflowCode, type WorkflowBundle, type WorkerOptions } from '@temporalio/worker';
import type { Logger } from 'pino';
import { createActivities } from '../activities/index.ts';
import type { Db } from '../store/db.ts';
import type { Config } from './config.ts';

export const WORKFLOWS_PATH = fileURLToPath(new URL('../workflows/index.ts', import.meta.url));

/** Bundles the workflow code once; tests share one bundle across workers. */
export async function bundleWorkflows(): Promise<WorkflowBundle> {
  return bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger: quietLogger() });
}

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
}): Promise<{ worker: Worker; connection: NativeConnection }> {
  const connection = await NativeConnection.connect({ address: options.address, tls: options.config.temporal_tls || undefined });
  const worker = await Worker.create({
    connection,
    namespace: options.config.temporal_namespace,
    taskQueue: options.task_queue ?? options.config.temporal_task_queue,
    ...(options.bundle ? { workflowBundle: options.bundle } : { workflowsPath: WORKFLOWS_PATH }),
    activities: createActivities({ config: options.config, db: options.db, logger: options.logger }),
    shutdownGraceTime: '10 seconds',
  });
  return { worker, connection };
}
