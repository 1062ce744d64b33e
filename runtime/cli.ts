#!/usr/bin/env node
// crucible-server: start | api | worker | migrate | operator <command>.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createLogger } from './logger.ts';
import type { Logger } from 'pino';
import { type Db, openDatabase } from '../store/db.ts';
import { ConfigError, ensureLocalSecrets, loadConfig, type Config, workQueues } from './config.ts';
import { workQueueName } from '../domain/jobs.ts';
import { runOperator, sendOperatorCommand, type OperatorArgs } from './operator.ts';
import { firstStart } from './firstStart.ts';
import { startService } from './service.ts';
import { applyV8Flags } from './v8Flags.ts';
import { securePrivateDir, setPrivateUmask } from './dataDir.ts';
import { operatorCodecToken } from '../integrations/temporal/codec.ts';
import { findTemporalServer, startTemporalServer, temporalDatabases, TEMPORAL_SERVER_VERSION } from './temporalServer.ts';

const say = (line: string) => process.stdout.write(`${line}\n`);
const USAGE = `usage: crucible-server <start|api|worker|migrate|operator> …
  start      the whole service on embedded defaults (PGlite under .data/, a local Temporal dev server, worker, API)
  api        the HTTP API only (needs DATABASE_URL and TEMPORAL_ADDRESS; starts and serves reads while Temporal is down)
  worker     the Temporal worker only (needs DATABASE_URL and TEMPORAL_ADDRESS; starts while Temporal is down)
             [--queues simulation,model,default (default: all; docs/deploy.md)]
  migrate    apply database migrations
  temporal-server  a real Temporal Server on PostgreSQL (built with Go once; docs/deploy.md)
             [--database-url URL (default DATABASE_URL)] [--prefix temporal] [--port 7233] [--dir .data/temporal-server]
  operator   operator commands (create-user, create-org, add-member, bootstrap, …)`;

function parseFlags(argv: string[]): Record<string, string | boolean> {
  const flags: Record<string, string | boolean> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--')) throw new ConfigError(`unexpected argument "${arg}"`);
    const [name, inline] = arg.slice(2).split('=', 2) as [string, string | undefined];
    if (inline !== undefined) flags[name] = inline;
    else if (argv[i + 1] !== undefined && !argv[i + 1]!.startsWith('--')) flags[name] = argv[++i]!;
    else flags[name] = true;
  }
  return flags;
}

async function readStdin(): Promise<string | undefined> {
  if (process.stdin.isTTY) return undefined;
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** SIGHUP too: a closed terminal would otherwise end the process without stopping the dev server. */
function waitForSignal(): Promise<string> {
  return new Promise((resolve) => {
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, () => resolve(signal));
  });
}

async function announceFirstStart(config: Config, db: Db): Promise<void> {
  const result = await firstStart(db, config);
  if (!result) return;
  say('');
  say('First start: created a user and an organization. Sign in with (shown once):');
  say(`  email:    ${result.email}`);
  say(`  password: ${result.password}`);
  say(`  org_id:   ${result.org_id}`);
  say(`  curl -s -X POST ${config.public_url ?? `http://127.0.0.1:${config.port}`}/v1/auth/sessions -H 'content-type: application/json' \\`);
  say(`       -d '{"email":"${result.email}","password":"<the password above>"}'`);
  if (result.welcome_credits > 0) say(`  welcome credits: ${result.welcome_credits} (CRUCIBLE_WELCOME_CREDITS; 0 turns them off)`);
  say('');
}

/** `crucible-server temporal-server`: Temporal's own databases on the PostgreSQL server of DATABASE_URL, then the server. */
async function temporalServerCommand(config: Config, flags: Record<string, string | boolean>): Promise<number> {
  const database_url = typeof flags['database-url'] === 'string' ? flags['database-url'] : config.database_url;
  if (!database_url) throw new ConfigError('temporal-server keeps its state in PostgreSQL: set DATABASE_URL or pass --database-url postgres://…');
  const tools = await findTemporalServer({ say });
  if (!tools)
    throw new ConfigError(
      `temporal-server v${TEMPORAL_SERVER_VERSION} is not built and Go is not available to build it (install Go, or run a Temporal cluster and set TEMPORAL_ADDRESS)`,
    );
  const databases = temporalDatabases(database_url, typeof flags.prefix === 'string' ? flags.prefix : 'temporal');
  const port = typeof flags.port === 'string' ? Number(flags.port) : 7233;
  if (!Number.isInteger(port) || port < 1 || port > 65_535) throw new ConfigError(`--port must be a TCP port (1-65535), got ${flags.port}`);
  const dir = typeof flags.dir === 'string' ? flags.dir : join(config.data_dir, 'temporal-server');
  const server = await startTemporalServer({ tools, databases, dir, port });
  say(
    `Temporal Server ${TEMPORAL_SERVER_VERSION} at ${server.address}, state in PostgreSQL databases ${databases.database} and ${databases.visibility_database}.`,
  );
  say(`Start API and worker processes with TEMPORAL_ADDRESS=${server.address}. Press Ctrl+C to stop.`);
  const exited = new Promise<string>((resolve) => server.process.once('exit', (code) => resolve(`temporal-server exited with code ${code}`)));
  const why = await Promise.race([waitForSignal(), exited]);
  say(`${why}: stopping…`);
  await server.stop();
  return why.startsWith('temporal-server') ? 1 : 0;
}

/** `crucible-server start`: the whole service on embedded defaults, until a signal or the dev server's own death. */
async function startCommand(config: Config, logger: Logger): Promise<number> {
  const local = ensureLocalSecrets(config, say);
  const service = await startService({ config: local, logger, mode: 'all', operator_socket: true, say });
  await announceFirstStart(local, service.db);
  say(`Crucible is running.`);
  say(`  API:         ${service.api_url}   (health: ${service.api_url}/v1/health)`);
  say(`  Temporal UI: ${service.ui_url ?? `(external Temporal at ${service.temporal_address})`}`);
  say(`  Data:        ${local.database_url ? 'PostgreSQL (DATABASE_URL)' : join(local.data_dir, 'pg')}  (secrets and Temporal state in ${local.data_dir})`);
  say('Press Ctrl+C to stop.');
  // A dead dev server is not restarted in place: the service stops and exits 1, so a supervisor (or the person)
  // starts it again, and the runs it held resume from temporal.db (docs/decisions.md).
  const ended = await Promise.race([waitForSignal().then((signal) => ({ signal })), service.dependency_died.then((how) => ({ died: how }))]);
  if ('died' in ended) {
    process.stderr.write(
      `the Temporal dev server stopped on its own (${ended.died}); stopping the service, exit code 1. Start it again (npm start); running jobs resume.\n`,
    );
    await service.stop();
    return 1;
  }
  say(`${ended.signal}: draining the worker, closing the database, stopping Temporal…`);
  await service.stop();
  say('stopped.');
  return 0;
}

/** `crucible-server worker --queues simulation,model,default`: the task queues this worker serves (default: all). */
function withQueueFlag(config: Config, rest: string[]): Config {
  const flags = parseFlags(rest);
  const unknown = Object.keys(flags).filter((name) => name !== 'queues');
  if (unknown.length) throw new ConfigError(`crucible-server worker takes only --queues simulation,model,default (got --${unknown[0]})`);
  if (flags.queues === undefined) return config;
  const problems: string[] = [];
  const worker_queues = workQueues(typeof flags.queues === 'string' ? flags.queues : '', '--queues', problems);
  if (flags.queues === true || problems.length)
    throw new ConfigError(problems[0] ?? '--queues needs a list: simulation,model,default (any of them, comma-separated)');
  return { ...config, worker_queues };
}

/** `crucible-server api|worker`: one role against PostgreSQL and an external Temporal, until a signal. */
async function roleCommand(mode: 'api' | 'worker', config: Config, logger: Logger): Promise<number> {
  if (!config.database_url || !config.temporal_address) {
    throw new ConfigError(
      `crucible-server ${mode} runs against PostgreSQL and an external Temporal: set DATABASE_URL and TEMPORAL_ADDRESS (use "start" for the embedded default).`,
    );
  }
  const checked = ensureLocalSecrets(config);
  // Before the compute pool starts: its threads inherit the process's V8 flags (runtime/v8Flags.ts).
  const flags = applyV8Flags(mode);
  const service = await startService({ config: checked, logger, mode });
  const v8 = flags.length ? ` (V8 ${flags.join(' ')})` : '';
  if (mode === 'api') say(`API listening on ${service.api_url}`);
  else {
    const queues = config.worker_queues.map((queue) => workQueueName(config.temporal_task_queue, queue)).join(', ');
    const polling = () => say(`worker polling task queue${config.worker_queues.length > 1 ? 's' : ''} ${queues} at ${config.temporal_address}${v8}`);
    // Without Temporal the worker starts anyway and connects with backoff (the log says why it waits).
    const ready = await Promise.race([service.worker_ready, Promise.resolve(null)]);
    if (ready === null) {
      say(`worker started; waiting for Temporal at ${config.temporal_address}`);
      void service.worker_ready.then((polls) => polls && polling());
    } else if (ready) polling();
  }
  await waitForSignal();
  await service.stop();
  return 0;
}

/** The database of the configuration (PGlite under the data directory without DATABASE_URL), closed after `use`. */
async function withDatabase<T>(config: Config, use: (db: Db) => Promise<T>): Promise<T> {
  const db = await openDatabase({ database_url: config.database_url, pglite_dir: join(config.data_dir, 'pg') });
  try {
    return await use(db);
  } finally {
    await db.close();
  }
}

/** `crucible-server migrate`. */
async function migrateCommand(config: Config): Promise<number> {
  if (!config.database_url) securePrivateDir(config.data_dir);
  const applied = await withDatabase(config, (db) => db.migrate());
  say(applied.length ? `applied: ${applied.join(', ')}` : 'the database is up to date');
  return 0;
}

/** `crucible-server operator <command>`: through the running service's socket when there is one, else on the database. */
async function operatorCommand(config: Config, rest: string[]): Promise<number> {
  // A command is one word or two (`institution create`): the words before the first flag.
  const words: string[] = [];
  while (words.length < 2 && rest[words.length] !== undefined && !rest[words.length]!.startsWith('--')) words.push(rest[words.length]!);
  const name = words.join(' ');
  const flagArgs = rest.slice(words.length);
  if (!name) throw new ConfigError('operator needs a command: create-user, create-org, add-member, bootstrap, institution create, …');
  const args: OperatorArgs = { command: name, flags: parseFlags(flagArgs) };
  if (name === CODEC_TOKEN_COMMAND) return codecTokenCommand(config, args);
  if (name === 'create-user') args.stdin = await readStdin();
  let result = config.database_url ? null : await sendOperatorCommand(config.data_dir, args);
  if (result === null) {
    if (!config.database_url && !existsSync(config.data_dir)) {
      process.stderr.write(`(creating a new embedded database in ${config.data_dir})\n`);
    }
    if (!config.database_url) securePrivateDir(config.data_dir);
    result = await withDatabase(config, async (db) => {
      await db.migrate();
      return runOperator(db, { ...args, config });
    });
  }
  if (args.flags.json) say(JSON.stringify(result));
  else for (const [key, value] of Object.entries(result)) say(`${key}: ${value}`);
  return 0;
}

const CODEC_TOKEN_COMMAND = 'temporal-codec-token';

/**
 * `crucible-server operator temporal-codec-token`: the credential of the codec endpoint, derived from SERVICE_MASTER_KEY
 * (the same on every process of a deployment; docs/operators.md), and the codec endpoint to give the Temporal UI or CLI.
 */
function codecTokenCommand(config: Config, args: OperatorArgs): number {
  const { master_key } = ensureLocalSecrets(config);
  const token = operatorCodecToken(master_key!);
  const base = `${config.public_url ?? `http://127.0.0.1:${config.port}`}/v1/operator/temporal-codec`;
  const result = { token, cli_codec_endpoint: base, ui_codec_endpoint: `${base}/t/${token}` };
  if (args.flags.json) say(JSON.stringify(result));
  else for (const [key, value] of Object.entries(result)) say(`${key}: ${value}`);
  return 0;
}

type Command = (context: { config: Config; logger: Logger; rest: string[] }) => Promise<number>;

/** Every crucible-server command (USAGE lists them). */
const COMMANDS: Record<string, Command> = {
  start: ({ config, logger }) => startCommand(config, logger),
  api: ({ config, logger }) => roleCommand('api', config, logger),
  worker: ({ config, logger, rest }) => roleCommand('worker', withQueueFlag(config, rest), logger),
  'temporal-server': ({ config, rest }) => temporalServerCommand(config, parseFlags(rest)),
  migrate: ({ config }) => migrateCommand(config),
  operator: ({ config, rest }) => operatorCommand(config, rest),
};

async function main(argv: string[]): Promise<number> {
  // Before anything is written: the service's files, PGlite's and the dev server's are the service user's alone.
  setPrivateUmask();
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === 'help') {
    say(USAGE);
    return command ? 0 : 2;
  }
  const config = loadConfig();
  const logger = createLogger({ level: config.log_level });
  const run = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
  if (!run) {
    say(USAGE);
    return 2;
  }
  return run({ config, logger, rest });
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    if (error instanceof ConfigError) process.stderr.write(`${error.message}\n`);
    else if ((error as { name?: string }).name === 'ServiceError') process.stderr.write(`error: ${(error as Error).message}\n`);
    else process.stderr.write(`crucible-server failed: ${(error as Error).stack ?? error}\n`);
    process.exit(1);
  },
);
