// A real Temporal Server on PostgreSQL (not the dev server): the production topology run on one machine, for operators
// who want it without Docker and for the topology test. `temporal-server` and `temporal-sql-tool` are
// built from go.temporal.io/server (the module the CLI embeds) with Go, once, into the user cache, like the CLI; the
// PostgreSQL schemas they need are copied from the same module beside them.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { accessSync, constants, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Connection, type TLSConfig } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time.js';
import { ensureJobSearchAttributes, freePort } from './temporal.ts';

const run = promisify(execFile);

export const TEMPORAL_SERVER_VERSION = '1.29.1';
/** A freshly started server must answer, and have its namespace usable, within this time. */
export const TEMPORAL_SERVER_START_TIMEOUT_MS = 120_000;
/** How long closed workflows are kept in the namespace the server creates. */
export const NAMESPACE_RETENTION_DAYS = 7;

export type TemporalServerTools = { server: string; sql_tool: string; schema_dir: string };

export function temporalServerCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(base, 'crucible', 'temporal-server', TEMPORAL_SERVER_VERSION);
}

function cachedTools(dir: string): TemporalServerTools | null {
  const tools = { server: join(dir, 'temporal-server'), sql_tool: join(dir, 'temporal-sql-tool'), schema_dir: join(dir, 'schema', 'postgresql', 'v12') };
  try {
    accessSync(tools.server, constants.X_OK);
    accessSync(tools.sql_tool, constants.X_OK);
    accessSync(join(tools.schema_dir, 'temporal', 'versioned'), constants.R_OK);
    accessSync(join(tools.schema_dir, 'visibility', 'versioned'), constants.R_OK);
    return tools;
  } catch {
    return null;
  }
}

/**
 * The cached server tools, or builds them with Go (minutes, once) when `build` is not false and Go is present.
 * Returns null when they are absent and cannot be built.
 */
export async function findTemporalServer(options: { build?: boolean; say?: (line: string) => void } = {}): Promise<TemporalServerTools | null> {
  const dir = temporalServerCacheDir();
  const cached = cachedTools(dir);
  if (cached || options.build === false) return cached;
  try {
    await run('go', ['version']);
  } catch {
    return null;
  }
  options.say?.(`building temporal-server and temporal-sql-tool v${TEMPORAL_SERVER_VERSION} with Go into ${dir} (first time only; takes minutes)…`);
  const module_dir = mkdtempSync(join(tmpdir(), 'crucible-temporal-server-'));
  try {
    writeFileSync(join(module_dir, 'go.mod'), 'module crucible.local/temporalserver\n\ngo 1.26\n');
    const go = (args: string[]) => run('go', args, { cwd: module_dir, env: { ...process.env, GOFLAGS: '-mod=mod' }, maxBuffer: 64 * 1024 * 1024 });
    await go(['get', `go.temporal.io/server@v${TEMPORAL_SERVER_VERSION}`]);
    mkdirSync(dir, { recursive: true });
    await go(['build', '-o', join(dir, 'temporal-server'), 'go.temporal.io/server/cmd/server']);
    await go(['build', '-o', join(dir, 'temporal-sql-tool'), 'go.temporal.io/server/cmd/tools/sql']);
    const { stdout } = await go(['list', '-m', '-f', '{{.Dir}}', 'go.temporal.io/server']);
    cpSync(join(stdout.trim(), 'schema', 'postgresql', 'v12'), join(dir, 'schema', 'postgresql', 'v12'), { recursive: true });
  } finally {
    rmSync(module_dir, { recursive: true, force: true });
  }
  return cachedTools(dir);
}

/** Where Temporal keeps its state: two databases (history and visibility) on one PostgreSQL server. */
export type TemporalDatabases = { host: string; port: number; user: string; password: string; database: string; visibility_database: string };

/** Temporal's databases on the PostgreSQL server of `database_url`, named `<prefix>` and `<prefix>_visibility`. */
export function temporalDatabases(database_url: string, prefix = 'temporal'): TemporalDatabases {
  const url = new URL(database_url);
  if (!/^postgres(ql)?:$/.test(url.protocol)) throw new Error(`expected a postgres:// URL for Temporal's databases, got ${url.protocol}`);
  return {
    host: url.hostname || '127.0.0.1',
    port: Number(url.port || 5432),
    user: decodeURIComponent(url.username || 'postgres'),
    password: decodeURIComponent(url.password),
    database: prefix,
    visibility_database: `${prefix}_visibility`,
  };
}

/** Creates both databases when missing and brings their schemas to this server version (safe to run again). */
export async function setupTemporalSchemas(tools: TemporalServerTools, databases: TemporalDatabases): Promise<void> {
  for (const [database, schema] of [
    [databases.database, 'temporal'],
    [databases.visibility_database, 'visibility'],
  ] as const) {
    const base = ['--plugin', 'postgres12', '--endpoint', databases.host, '--port', String(databases.port), '--user', databases.user, '--database', database];
    // the password goes through the environment, never the process list
    const env = { ...process.env, SQL_PASSWORD: databases.password };
    for (const command of [['create-database'], ['setup-schema', '-v', '0.0'], ['update-schema', '-d', join(tools.schema_dir, schema, 'versioned')]]) {
      await run(tools.sql_tool, [...base, ...command], { env, maxBuffer: 16 * 1024 * 1024 });
    }
  }
}

/** Temporal stores membership ports in a smallint column: they must lie below 32768, outside Linux's ephemeral range. */
const MEMBERSHIP_PORT_RANGE = [20_000, 32_000] as const;

async function freeMembershipPort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = randomInt(MEMBERSHIP_PORT_RANGE[0], MEMBERSHIP_PORT_RANGE[1]);
    const free = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
    if (free) return port;
  }
  throw new Error(`no free port between ${MEMBERSHIP_PORT_RANGE[0]} and ${MEMBERSHIP_PORT_RANGE[1]} for Temporal's membership`);
}

type Ports = {
  frontend: number;
  frontend_http: number;
  frontend_membership: number;
  history: number;
  history_membership: number;
  matching: number;
  matching_membership: number;
  worker: number;
  worker_membership: number;
  metrics: number;
};

/**
 * Mutual TLS on the frontend (the port clients and workers use): the server's certificate and key, and the CA whose
 * client certificates it accepts (every other client is refused). Temporal's own system workers present the server's
 * certificate, so it must also be valid for client authentication; `server_name` is the name in it.
 */
export type TemporalServerTls = { cert_file: string; key_file: string; ca_file: string; server_name: string };

function tlsConfig(tls: TemporalServerTls | undefined): string {
  if (!tls) return '';
  const client = `
        serverName: ${JSON.stringify(tls.server_name)}
        rootCaFiles: [${JSON.stringify(tls.ca_file)}]`;
  return `
  tls:
    frontend:
      server:
        certFile: ${JSON.stringify(tls.cert_file)}
        keyFile: ${JSON.stringify(tls.key_file)}
        requireClientAuth: true
        clientCaFiles: [${JSON.stringify(tls.ca_file)}]
      client:${client}
    systemWorker:
      certFile: ${JSON.stringify(tls.cert_file)}
      keyFile: ${JSON.stringify(tls.key_file)}
      client:${client}`;
}

/** PostgreSQL (the databases' names), or an in-memory SQLite store that ends with the process (tests). */
function persistenceConfig(databases: TemporalDatabases | 'memory'): string {
  if (databases === 'memory') {
    const store = `
      sql:
        pluginName: "sqlite"
        databaseName: "crucible"
        connectAddr: "localhost"
        connectProtocol: "tcp"
        connectAttributes:
          mode: "memory"
          cache: "private"
        maxConns: 1
        maxIdleConns: 1
        maxConnLifetime: "1h"`;
    return `persistence:
  defaultStore: sqlite-default
  visibilityStore: sqlite-visibility
  numHistoryShards: 1
  datastores:
    sqlite-default:${store}
    sqlite-visibility:${store}`;
  }
  const store = (database: string, connections: number) => `
      sql:
        pluginName: "postgres12"
        databaseName: ${JSON.stringify(database)}
        connectAddr: ${JSON.stringify(`${databases.host}:${databases.port}`)}
        connectProtocol: "tcp"
        user: ${JSON.stringify(databases.user)}
        password: ${JSON.stringify(databases.password)}
        maxConns: ${connections}
        maxIdleConns: ${connections}
        maxConnLifetime: "1h"`;
  return `persistence:
  defaultStore: postgres-default
  visibilityStore: postgres-visibility
  numHistoryShards: 4
  datastores:
    postgres-default:${store(databases.database, 20)}
    postgres-visibility:${store(databases.visibility_database, 4)}`;
}

function serverConfig(databases: TemporalDatabases | 'memory', ports: Ports, tls?: TemporalServerTls): string {
  const service = (grpc: number, membership: number, http?: number) => `
    rpc:
      grpcPort: ${grpc}
      membershipPort: ${membership}
      bindOnLocalHost: true${http ? `\n      httpPort: ${http}` : ''}`;
  return `log:
  stdout: true
  level: warn
${persistenceConfig(databases)}
global:${tlsConfig(tls)}
  membership:
    maxJoinDuration: 30s
    broadcastAddress: "127.0.0.1"
  metrics:
    prometheus:
      framework: "tally"
      timerType: "histogram"
      listenAddress: "127.0.0.1:${ports.metrics}"
services:
  frontend:${service(ports.frontend, ports.frontend_membership, ports.frontend_http)}
  matching:${service(ports.matching, ports.matching_membership)}
  history:${service(ports.history, ports.history_membership)}
  worker:${service(ports.worker, ports.worker_membership)}
clusterMetadata:
  enableGlobalNamespace: false
  failoverVersionIncrement: 10
  masterClusterName: "active"
  currentClusterName: "active"
  clusterInformation:
    active:
      enabled: true
      initialFailoverVersion: 1
      rpcName: "frontend"
      rpcAddress: "127.0.0.1:${ports.frontend}"
dcRedirectionPolicy:
  policy: "noop"
`;
}

export type TemporalServer = { address: string; process: ChildProcess; output: () => string; stop(): Promise<void> };

/**
 * Starts `temporal-server` on PostgreSQL (schemas set up first; or in memory), optionally with mutual TLS on its
 * frontend, creates the namespace and the jobs' search attributes,
 * and resolves once a client can use the namespace. `dir` holds the generated configuration (it carries the database
 * password: mode 0600).
 */
export async function startTemporalServer(options: {
  tools: TemporalServerTools;
  /** PostgreSQL, or 'memory': an in-memory SQLite store that ends with the server (tests). */
  databases: TemporalDatabases | 'memory';
  dir: string;
  port?: number;
  namespace?: string;
  /** Mutual TLS on the frontend: only clients with a certificate of this CA get in. */
  tls?: TemporalServerTls;
}): Promise<TemporalServer> {
  const namespace = options.namespace ?? 'default';
  if (options.databases !== 'memory') await setupTemporalSchemas(options.tools, options.databases);
  const ports: Ports = {
    frontend: options.port || (await freePort()),
    frontend_http: await freePort(),
    frontend_membership: await freeMembershipPort(),
    history: await freePort(),
    history_membership: await freeMembershipPort(),
    matching: await freePort(),
    matching_membership: await freeMembershipPort(),
    worker: await freePort(),
    worker_membership: await freeMembershipPort(),
    metrics: await freePort(),
  };
  mkdirSync(join(options.dir, 'config'), { recursive: true, mode: 0o700 });
  writeFileSync(join(options.dir, 'config', 'crucible.yaml'), serverConfig(options.databases, ports, options.tls), { mode: 0o600 });
  const child = spawn(options.tools.server, ['--root', options.dir, '--config', 'config', '--env', 'crucible', '--allow-no-auth', 'start'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-16_000);
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const address = `127.0.0.1:${ports.frontend}`;
  const server: TemporalServer = {
    address,
    process: child,
    output: () => output,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await gone;
      clearTimeout(timer);
    },
  };
  try {
    await untilNamespaceUsable(address, namespace, child, () => output, serverClientTls(options.tls));
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  return server;
}

/** The server's own certificate opens its mTLS frontend for the namespace set-up (it is valid for client authentication). */
function serverClientTls(tls: TemporalServerTls | undefined): TLSConfig | undefined {
  if (!tls) return undefined;
  return {
    clientCertPair: { crt: readFileSync(tls.cert_file), key: readFileSync(tls.key_file) },
    serverRootCACertificate: readFileSync(tls.ca_file),
    serverNameOverride: tls.server_name,
  };
}

async function untilNamespaceUsable(address: string, namespace: string, child: ChildProcess, output: () => string, tls?: TLSConfig): Promise<void> {
  const deadline = Date.now() + TEMPORAL_SERVER_START_TIMEOUT_MS;
  let registered = false;
  let searchable = false;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`temporal-server exited with code ${child.exitCode} before it was ready:\n${output().slice(-4000)}`);
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1000, tls });
      try {
        if (!registered) {
          await connection.workflowService
            .registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs(NAMESPACE_RETENTION_DAYS * 86_400_000) })
            .catch((error) => {
              if (!/already exists|AlreadyExists/i.test(String((error as Error).message))) throw error;
            });
          registered = true;
        }
        // a new namespace reaches the frontend's cache after a refresh: list until it is found
        await connection.workflowService.listWorkflowExecutions({ namespace, pageSize: 1 });
        if (!searchable) {
          await ensureJobSearchAttributes(connection, namespace);
          searchable = true;
        }
        return;
      } finally {
        await connection.close();
      }
    } catch (error) {
      if (Date.now() > deadline)
        throw new Error(
          `temporal-server did not become usable within ${TEMPORAL_SERVER_START_TIMEOUT_MS} ms: ${(error as Error).message}\n${output().slice(-4000)}`,
        );
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}
