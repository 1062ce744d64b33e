// The composition root: database, migrations, Temporal (dev server or external), worker, API.
import { closeComputePool, configureComputeThreads, computePool } from '../compute/pool.ts';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Client, Connection, ScheduleAlreadyRunning, ScheduleOverlapPolicy } from '@temporalio/client';
import { Runtime, type WorkerOptions } from '@temporalio/worker';
import type { Logger } from 'pino';
import { createApp } from '../api/app.ts';
import { createApiServer } from '../api/server.ts';
import type { AppDeps } from '../api/context.ts';
import { openDatabase, type Db } from '../store/db.ts';
import { MAINTENANCE_INTERVAL_MINUTES, MAINTENANCE_SCHEDULE_ID, MAINTENANCE_WORKFLOW_TYPE } from '../domain/jobs.ts';
import { type Config, DEFAULT_TASK_QUEUE, temporalConnectOptions } from './config.ts';
import { serveOperatorSocket } from './operator.ts';
import { securePrivateDir } from './dataDir.ts';
import { devServerPidFile, downloadedDevServer, ensureJobSearchAttributes, findTemporalCli, startDevServer, type DevServer } from './temporal.ts';
import { createWorker, type ExtraActivities, type QueueWorkers, withConnectBackoff } from './worker.ts';
import { encryptedDataConverter } from '../integrations/temporal/codec.ts';

export type ServiceHandle = {
  api_url: string | null;
  ui_url: string | null;
  temporal_address: string;
  db: Db;
  client: Client;
  deps: AppDeps | null;
  /** Settles (with how it ended) when the embedded dev server dies on its own; never for an external Temporal. */
  dependency_died: Promise<string>;
  /** Resolves true once the worker polls (at once when Temporal answered at start), false when it stopped first or runs no worker. */
  worker_ready: Promise<boolean>;
  stop(): Promise<void>;
};

/**
 * gRPC's reconnect backoff grows to 120 s by default: a Temporal that comes back would go unnoticed that long. Capped
 * here so an API process reconnects within seconds.
 */
const TEMPORAL_CHANNEL_ARGS = { 'grpc.initial_reconnect_backoff_ms': 500, 'grpc.max_reconnect_backoff_ms': 5_000 };
/** How often an API process that started without Temporal tries again to register the jobs' search attributes. */
const SEARCH_ATTRIBUTE_RETRY_MS = [1_000, 2_000, 5_000, 10_000];

/**
 * An API or worker process does not need Temporal to start: its client connection is lazy (an API serves reads and
 * answers job starts with 503 while Temporal is unreachable: api/readiness.ts; a worker polls once it connects:
 * runWorker), and the jobs' search attributes are registered once Temporal answers, retried in the background until
 * then (said once in the log).
 */
function lazyTemporal(address: string, config: Config, logger: Logger, role: 'api' | 'worker'): { connection: Connection; stop(): Promise<void> } {
  const connection = Connection.lazy({ address, ...temporalConnectOptions(config), channelArgs: TEMPORAL_CHANNEL_ARGS });
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let in_flight: Promise<void> = Promise.resolve();
  const attempt = async (round: number): Promise<void> => {
    try {
      await connection.withDeadline(Date.now() + 5_000, () => ensureJobSearchAttributes(connection, config.temporal_namespace));
      if (round > 0) logger.info({ temporal_address: address }, 'Temporal is ready for job starts');
    } catch (error) {
      if (stopped) return;
      // Unreachable (job starts answer 503 meanwhile), or the namespace lacks the search attributes (err names the command).
      if (round === 0)
        logger.warn(
          { temporal_address: address, err: error },
          role === 'api' ? 'Temporal is not ready for job starts; serving reads and trying again' : 'Temporal is not ready; the worker tries again',
        );
      timer = setTimeout(
        () => {
          in_flight = attempt(round + 1);
        },
        SEARCH_ATTRIBUTE_RETRY_MS[Math.min(round, SEARCH_ATTRIBUTE_RETRY_MS.length - 1)],
      );
    }
  };
  in_flight = attempt(0);
  return {
    connection,
    // No new attempt, and the one in flight ended, before the connection closes: a call still retrying inside the
    // client would otherwise fire on a closed channel ("Channel has been shut down").
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await in_flight;
    },
  };
}

/** Starts the embedded dev server (the Temporal CLI, else @temporalio/testing's download) on the data directory. */
async function embeddedTemporal(config: Config, say: (line: string) => void): Promise<DevServer> {
  const cli = await findTemporalCli({ say });
  const db_file = join(config.data_dir, 'temporal.db');
  const port = Number(process.env.CRUCIBLE_TEMPORAL_PORT) || undefined;
  const ui_port = config.temporal_ui_port || undefined;
  if (!cli) return downloadedDevServer({ db_file, port, ui_port, say });
  // The UI port falls back to a free one when busy only while it is the default (CRUCIBLE_TEMPORAL_UI_PORT unset).
  const ui_port_fallback = !process.env.CRUCIBLE_TEMPORAL_UI_PORT;
  return startDevServer({ cli, db_file, pid_file: devServerPidFile(config.data_dir), port, ui_port, ui_port_fallback, say });
}

let runtimeInstalled = false;
/** Temporal's core logs go through pino at warn level, so they are redacted like ours. */
export function installTemporalRuntime(logger: Logger): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  const forward = (level: 'debug' | 'info' | 'warn' | 'error') => (message: string, meta?: Record<string, unknown>) =>
    logger[level]({ temporal: meta }, message);
  Runtime.install({
    logger: {
      log: (level, message, meta) => forward(level === 'ERROR' ? 'error' : level === 'WARN' ? 'warn' : 'debug')(message, meta),
      trace: () => {},
      debug: () => {},
      info: forward('debug'),
      warn: forward('warn'),
      error: forward('error'),
    },
    telemetryOptions: { logging: { forward: {}, filter: 'WARN' } },
    // Our own signal handler drains the worker, closes the database and stops the dev server in order.
    shutdownSignals: [],
  });
}

/** The maintenance schedule of a task queue: `crucible-maintenance` for the deployment's, one of its own for a test's. */
export function maintenanceScheduleId(config: Config): string {
  return config.temporal_task_queue === DEFAULT_TASK_QUEUE ? MAINTENANCE_SCHEDULE_ID : `${MAINTENANCE_SCHEDULE_ID}-${config.temporal_task_queue}`;
}

/**
 * One schedule (visible under Schedules in the Temporal UI) starts one maintenance workflow every
 * MAINTENANCE_INTERVAL_MINUTES; its reconcilers are activities, so an idle hour adds 60 / interval executions.
 */
async function ensureMaintenanceSchedule(client: Client, config: Config): Promise<void> {
  const options = {
    spec: { intervals: [{ every: `${MAINTENANCE_INTERVAL_MINUTES} minutes` as const }] },
    policies: { overlap: ScheduleOverlapPolicy.SKIP },
    action: {
      type: 'startWorkflow' as const,
      workflowType: MAINTENANCE_WORKFLOW_TYPE,
      workflowId: `maintenance-${config.temporal_task_queue}`,
      taskQueue: config.temporal_task_queue,
      args: [],
    },
  };
  try {
    await client.schedule.create({ scheduleId: maintenanceScheduleId(config), ...options });
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
    // A schedule made by an earlier version (e.g. another cadence) takes this version's spec and action.
    await client.schedule.getHandle(maintenanceScheduleId(config)).update((previous) => ({ ...previous, ...options }));
  }
}

type StartOptions = {
  config: Config;
  logger: Logger;
  mode: 'all' | 'api' | 'worker';
  /** Overrides for tests: an existing Temporal address, a shared workflow bundle, an in-memory database. */
  temporal_address?: string;
  bundle?: WorkerOptions['workflowBundle'];
  /** Test-only activities registered beside the production ones (test/support/activities.ts). */
  extra_activities?: ExtraActivities;
  pglite_dir?: string;
  operator_socket?: boolean;
  say?: (line: string) => void;
};

/** Registers how to undo a phase that succeeded; the service undoes them in reverse order on stop or on a failed start. */
type Defer = (cleanup: () => Promise<void>) => void;

/** The database, migrated (a worker on PostgreSQL leaves migrations to the API or `migrate`). */
async function openStore(options: StartOptions, say: (line: string) => void, defer: Defer): Promise<Db> {
  const { config } = options;
  // Secrets, the Temporal dev server's database and (without DATABASE_URL) PGlite all live here: 0700, nothing under it
  // readable by others (runtime/dataDir.ts).
  const tightened = securePrivateDir(config.data_dir);
  if (tightened > 0) say(`made ${tightened} entries under ${config.data_dir} private to the service user (directories 0700, files 0600)`);
  const db = await openDatabase({ database_url: config.database_url, pglite_dir: options.pglite_dir ?? join(config.data_dir, 'pg') });
  defer(() => db.close());
  if (options.mode !== 'worker' || !config.database_url) {
    const applied = await db.migrate();
    if (applied.length) say(`applied migrations: ${applied.join(', ')}`);
  }
  return db;
}

/** Temporal: the given address or the embedded dev server, connected lazily for an API process and eagerly otherwise. */
async function connectTemporal(
  options: StartOptions,
  say: (line: string) => void,
  defer: Defer,
): Promise<{ address: string; devServer: DevServer | null; client: Client }> {
  const { config, logger } = options;
  let address = options.temporal_address ?? config.temporal_address;
  let devServer: DevServer | null = null;
  if (!address) {
    const started = await embeddedTemporal(config, say);
    defer(() => started.stop());
    devServer = started;
    address = started.address;
  }
  let connection: Connection;
  if (options.mode !== 'all') {
    const lazy = lazyTemporal(address, config, logger, options.mode);
    connection = lazy.connection;
    // cleanups run last first: the retries stop, then the connection closes
    defer(() => connection.close());
    defer(() => lazy.stop());
  } else {
    connection = await Connection.connect({ address, ...temporalConnectOptions(config), channelArgs: TEMPORAL_CHANNEL_ARGS });
    await ensureJobSearchAttributes(connection, config.temporal_namespace);
    defer(() => connection.close());
  }
  // Every payload the client sends or reads passes the encryption codec (integrations/temporal/codec.ts).
  const dataConverter = encryptedDataConverter(config.master_key, config.master_keys_previous);
  return { address, devServer, client: new Client({ connection, namespace: config.temporal_namespace, dataConverter }) };
}

/**
 * The worker, polling until stop (which drains it), and the maintenance schedule it serves. When Temporal answers, it
 * polls before this returns; when it does not, the process starts anyway and the worker connects in the background with
 * backoff (runtime/worker.ts withConnectBackoff, each kind of failure said once). Resolves `ready` once it polls.
 */
async function runWorker(options: StartOptions, db: Db, temporal: { address: string; client: Client }, defer: Defer): Promise<{ ready: Promise<boolean> }> {
  const { config, logger } = options;
  const { address, client } = temporal;
  const stopping = new AbortController();
  let worker: QueueWorkers | null = null;
  let running: Promise<void> = Promise.resolve();
  let connection: { close(): Promise<void> } | null = null;
  defer(async () => {
    stopping.abort();
    await ready;
    if (worker?.getState() === 'RUNNING') worker.shutdown();
    await running;
    await connection?.close();
  });
  let waiting: () => void = () => {};
  const first_failure = new Promise<void>((resolve) => (waiting = resolve));
  const attempt = () => createWorker({ config, db, logger, address, bundle: options.bundle, extra_activities: options.extra_activities, client });
  const log = { temporal_address: address, task_queue: config.temporal_task_queue };
  const ready = withConnectBackoff(attempt, { logger, log, signal: stopping.signal, onWaiting: waiting }).then(async (created) => {
    if (!created) return false;
    ({ worker, connection } = created);
    running = created.worker.run();
    // The schedule's workflows run on the default queue: a worker of other queues only leaves it alone.
    if (config.worker_queues.includes('default'))
      await ensureMaintenanceSchedule(client, config).catch((error) => logger.error({ err: error }, 'the maintenance schedule could not be created'));
    return true;
  });
  await Promise.race([ready, first_failure]);
  return { ready };
}

/** The HTTP API on the configured port; answers with its URL and the dependencies its handlers use. */
async function listenApi(options: StartOptions, db: Db, client: Client, defer: Defer): Promise<{ api_url: string; deps: AppDeps }> {
  const { config, logger } = options;
  const deps: AppDeps = { config, db, logger, temporal: { client, task_queue: config.temporal_task_queue, namespace: config.temporal_namespace } };
  const { app } = createApp(deps);
  const server: Server = createApiServer(app, { logger, request_timeout_seconds: config.request_timeout_seconds });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  defer(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  );
  return { api_url: `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${port}`, deps };
}

/**
 * The composition root: database, Temporal, worker, compute pool, API, operator socket, each phase in this order and
 * each undone in reverse (on stop, or when a later phase fails to start).
 */
export async function startService(options: StartOptions): Promise<ServiceHandle> {
  const { config, logger } = options;
  const say = options.say ?? (() => {});
  installTemporalRuntime(logger);
  const cleanups: Array<() => Promise<void>> = [];
  const defer: Defer = (cleanup) => cleanups.push(cleanup);
  const stop = async () => {
    for (const cleanup of cleanups.splice(0).reverse()) {
      try {
        await cleanup();
      } catch (error) {
        logger.error({ err: error }, 'error during shutdown');
      }
    }
  };
  try {
    const db = await openStore(options, say, defer);
    const { address, devServer, client } = await connectTemporal(options, say, defer);
    const worker_ready = options.mode === 'api' ? Promise.resolve(false) : (await runWorker(options, db, { address, client }, defer)).ready;
    // One compute pool per process, its threads started now (simulation replications and PDF reading share it). Not
    // awaited: its threads start after the compile cache is filled (compute/pool.ts, about a second), and a task that
    // arrives before then waits for the pool; the service answers meanwhile.
    configureComputeThreads(config.compute_threads);
    computePool().catch((error) => logger.error({ err: error }, 'the compute pool did not start'));
    defer(() => closeComputePool());
    const api = options.mode === 'worker' ? null : await listenApi(options, db, client, defer);
    if (options.operator_socket && !config.database_url) {
      const socket = await serveOperatorSocket(db, config.data_dir);
      defer(() => new Promise<void>((resolve) => socket.close(() => resolve())));
    }
    const dependency_died = devServer?.died ?? new Promise<string>(() => {});
    const ui_url = devServer?.ui_url ?? null;
    const api_url = api?.api_url ?? null;
    return { api_url, ui_url, temporal_address: address, db, client, deps: api?.deps ?? null, dependency_died, worker_ready, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
