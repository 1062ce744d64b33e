// Finding (or fetching) the Temporal CLI and running its dev server (ARCHITECTURE.md: Testing).
// Order: TEMPORAL_CLI, `temporal` on PATH, the user cache, the release download into the cache (checksum verified;
// skipped quickly when the release host cannot be reached), `go install` into the cache, else null (callers may then
// let @temporalio/testing download it).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  accessSync,
  chmodSync,
  constants,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { homedir } from 'node:os';
import { arch as osArch, platform as osPlatform } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import * as tar from 'tar';
import { promisify } from 'node:util';
import { Connection } from '@temporalio/client';
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { encodeSearchAttributeIndexedValueType } from '@temporalio/common/lib/search-attributes.js';
import { JOB_SEARCH_ATTRIBUTES } from '../domain/jobs.ts';
import { ConfigError } from './config.ts';

/** The `--search-attribute Name=Keyword` flags that register the jobs' search attributes on a dev server (docs/operators.md). */
export function searchAttributeFlags(): string[] {
  return Object.values(JOB_SEARCH_ATTRIBUTES).flatMap((name) => ['--search-attribute', `${name}=Keyword`]);
}

export const TEMPORAL_CLI_VERSION = '1.5.1';
/** How long we wait for a freshly started dev server to answer. */
export const DEV_SERVER_START_TIMEOUT_MS = 60_000;

const run = promisify(execFile);

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export function temporalCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(base, 'crucible', 'temporal', TEMPORAL_CLI_VERSION);
}

/** Returns the path of a usable Temporal CLI, building it with Go into the cache when needed. */
export async function findTemporalCli(options: { build?: boolean; say?: (line: string) => void } = {}): Promise<string | null> {
  const env = process.env;
  if (env.TEMPORAL_CLI) {
    if (!executable(env.TEMPORAL_CLI)) throw new Error(`TEMPORAL_CLI=${env.TEMPORAL_CLI} is not an executable file`);
    return env.TEMPORAL_CLI;
  }
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir && executable(join(dir, 'temporal'))) return join(dir, 'temporal');
  }
  const cached = join(temporalCacheDir(env), 'temporal');
  if (executable(cached)) return cached;
  if (options.build === false) return null;
  const base_url = env.CRUCIBLE_TEMPORAL_DOWNLOAD_URL ?? TEMPORAL_RELEASES_URL;
  if (base_url !== 'off') {
    const fetched = await downloadTemporalRelease({ base_url, dir: temporalCacheDir(env), say: options.say });
    if (fetched) return fetched;
  }
  const go = ['go', '/usr/local/go/bin/go'].find((candidate) => candidate === 'go' || existsSync(candidate));
  try {
    await run(go ?? 'go', ['version']);
  } catch {
    return null;
  }
  const dir = temporalCacheDir(env);
  mkdirSync(dir, { recursive: true });
  return await singleBuild(dir, cached, options.say, async (bin) => {
    options.say?.(`building the Temporal CLI v${TEMPORAL_CLI_VERSION} with Go into ${dir} (first run only; takes minutes)…`);
    await run(go ?? 'go', ['install', `github.com/temporalio/cli/cmd/temporal@v${TEMPORAL_CLI_VERSION}`], {
      env: { ...env, GOBIN: bin },
      maxBuffer: 64 * 1024 * 1024,
    });
  });
}

/** A build lock still without a pid after this long was left by a process that died while taking it. */
export const BUILD_LOCK_UNWRITTEN_MS = 10_000;
/** How often a process that found another one building the CLI looks again. */
export const BUILD_WAIT_POLL_MS = 2_000;

/** The pid written in a build lock, NaN while the holder has not written it yet, or 'gone' when the lock was released. */
function lockHolder(lock: string): number | 'gone' {
  try {
    return Number.parseInt(readFileSync(lock, 'utf8'), 10);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'gone';
    throw error;
  }
}

/**
 * Builds the CLI once per machine however many processes ask at the same time (parallel test runs, a service and its
 * tests): the first takes `build.lock` (its pid inside) and builds into a private folder, then renames the binary into
 * place; the others wait for the binary or for the builder to die (its lock is then taken over). Three parallel first
 * runs each spent the machine's two cores on their own 20-minute build before this.
 */
export async function singleBuild(
  dir: string,
  cached: string,
  say: ((line: string) => void) | undefined,
  build: (bin: string) => Promise<void>,
): Promise<string | null> {
  const lock = join(dir, 'build.lock');
  let waiting_said = false;
  for (;;) {
    if (executable(cached)) return cached;
    try {
      writeFileSync(lock, String(process.pid), { flag: 'wx' });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = lockHolder(lock);
    if (holder === 'gone') continue; // the builder finished between our attempt and this read
    // an empty lock is a builder between creating the file and writing its pid, unless it has stayed empty a while
    const unwritten = Number.isNaN(holder);
    const stale = unwritten ? Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? 0) > BUILD_LOCK_UNWRITTEN_MS : !alive(holder);
    if (stale) {
      rmSync(lock, { force: true });
      continue;
    }
    if (unwritten) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      continue;
    }
    if (!waiting_said) say?.(`waiting for process ${holder}, which is building the Temporal CLI into ${dir}…`);
    waiting_said = true;
    await new Promise((resolve) => setTimeout(resolve, BUILD_WAIT_POLL_MS));
  }
  const bin = mkdtempSync(join(dir, 'build-'));
  try {
    if (executable(cached)) return cached;
    await build(bin);
    renameSync(join(bin, 'temporal'), cached);
    return executable(cached) ? cached : null;
  } finally {
    rmSync(bin, { recursive: true, force: true });
    rmSync(lock, { force: true });
  }
}

/** Where the Temporal CLI's release archives and their checksums are published; `CRUCIBLE_TEMPORAL_DOWNLOAD_URL` overrides it (`off` skips it). */
export const TEMPORAL_RELEASES_URL = 'https://github.com/temporalio/cli/releases/download';
/** The checksum list must answer within this time, or the release host is taken as unreachable and Go builds the CLI. */
export const RELEASE_REACH_TIMEOUT_MS = 10_000;
/** The archive itself (about 30 MB) must arrive within this time. */
export const RELEASE_DOWNLOAD_TIMEOUT_MS = 180_000;

/** The release archive's name for this machine, or null where no release is published. */
export function temporalReleaseAsset(version = TEMPORAL_CLI_VERSION, platform: string = osPlatform(), arch: string = osArch()): string | null {
  const os = { linux: 'linux', darwin: 'darwin', win32: 'windows' }[platform];
  const cpu = { x64: 'amd64', arm64: 'arm64' }[arch];
  if (!os || !cpu) return null;
  return `temporal_cli_${version}_${os}_${cpu}.${os === 'windows' ? 'zip' : 'tar.gz'}`;
}

/**
 * Downloads the release archive of the pinned version, checks its SHA-256 against the release's checksum list, and
 * unpacks the `temporal` binary into `dir`. Returns its path, or null (saying why) when the host is unreachable, the
 * archive does not match its checksum, or no archive exists for this machine; nothing is left half-written.
 */
export async function downloadTemporalRelease(options: {
  base_url: string;
  dir: string;
  version?: string;
  say?: (line: string) => void;
  reach_timeout_ms?: number;
}): Promise<string | null> {
  const version = options.version ?? TEMPORAL_CLI_VERSION;
  const asset = temporalReleaseAsset(version);
  if (!asset || asset.endsWith('.zip')) return null;
  const release = `${options.base_url.replace(/\/+$/, '')}/v${version}`;
  let expected: string | undefined;
  try {
    const response = await fetch(`${release}/temporal_cli_${version}_checksums.txt`, {
      signal: AbortSignal.timeout(options.reach_timeout_ms ?? RELEASE_REACH_TIMEOUT_MS),
    });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    expected = (await response.text())
      .split('\n')
      .map((line) => line.trim().split(/\s+/))
      .find((parts) => parts[1] === asset)?.[0]
      ?.toLowerCase();
    if (!expected) throw new Error(`the checksum list names no ${asset}`);
  } catch (error) {
    options.say?.(`the Temporal CLI release is not reachable (${(error as Error).message}); building it with Go instead`);
    return null;
  }
  options.say?.(`downloading the Temporal CLI v${version} (${asset}) into ${options.dir}…`);
  mkdirSync(options.dir, { recursive: true });
  const scratch = mkdtempSync(join(options.dir, '.download-'));
  try {
    const response = await fetch(`${release}/${asset}`, { signal: AbortSignal.timeout(RELEASE_DOWNLOAD_TIMEOUT_MS) });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    const archive = Buffer.from(await response.arrayBuffer());
    const actual = createHash('sha256').update(archive).digest('hex');
    if (actual !== expected) throw new Error(`the archive's SHA-256 ${actual} is not the published ${expected}`);
    const archive_path = join(scratch, asset);
    writeFileSync(archive_path, archive);
    await tar.x({ file: archive_path, cwd: scratch, filter: (path) => path === 'temporal' || path === './temporal' });
    const binary = join(scratch, 'temporal');
    if (!existsSync(binary)) throw new Error(`the archive holds no temporal binary`);
    chmodSync(binary, 0o755);
    const target = join(options.dir, 'temporal');
    renameSync(binary, target);
    return target;
  } catch (error) {
    options.say?.(`the Temporal CLI download failed (${(error as Error).message}); building it with Go instead`);
    return null;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

export async function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export type DevServer = {
  address: string;
  ui_url: string | null;
  process: ChildProcess | null;
  /** Settles when the dev server ends without stop() having been called: its exit code or signal. */
  died: Promise<string>;
  stop(): Promise<void>;
};

/** Where `crucible-server start` records its dev server, beside `temporal.db`, so a later start can stop a leftover. */
export function devServerPidFile(data_dir: string): string {
  return join(data_dir, 'temporal.pid');
}

/**
 * The database file a running dev server was started with (Linux /proc: its `--db-filename` argument, resolved against
 * its working directory), or null when the process is gone, unreadable or no dev server.
 */
function devServerDatabase(pid: number): string | null {
  try {
    const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    const at = args.indexOf('--db-filename');
    if (!args.includes('start-dev') || at < 0 || !args[at + 1]) return null;
    return resolve(readlinkSync(`/proc/${pid}/cwd`), args[at + 1]!);
  } catch {
    return null;
  }
}

/** Whether pid runs; a zombie (dead, not yet reaped, e.g. under an init that never reaps) counts as gone. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z';
  } catch {
    return !existsSync('/proc/self/stat');
  }
}

/** The dev servers (still running) whose database is db_file: the pid file's, and on Linux any other found in /proc. */
export function leftoverDevServers(db_file: string, pid_file: string): number[] {
  const pids = new Set<number>();
  const recorded = existsSync(pid_file) ? Number(readFileSync(pid_file, 'utf8').trim()) : Number.NaN;
  // Without /proc (macOS) the pid file's process is trusted while it is alive; on Linux its database must be db_file.
  const proc = existsSync('/proc/self/cmdline');
  const ours = (pid: number) => (proc ? devServerDatabase(pid) === resolve(db_file) : alive(pid));
  if (Number.isInteger(recorded) && recorded > 0 && recorded !== process.pid && ours(recorded)) pids.add(recorded);
  if (proc) {
    for (const entry of readdirSync('/proc')) {
      const pid = Number(entry);
      if (Number.isInteger(pid) && pid !== process.pid && ours(pid)) pids.add(pid);
    }
  }
  return [...pids];
}

/** The pid of a running crucible-server that is pid's parent (Linux /proc), or null: a leftover's parent is gone. */
function livingServiceParent(pid: number): number | null {
  try {
    const ppid = Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
    const line = readFileSync(`/proc/${ppid}/cmdline`, 'utf8');
    return ppid !== process.pid && /runtime\/cli\.ts|crucible-server/.test(line) ? ppid : null;
  } catch {
    return null;
  }
}

/**
 * Stops (SIGTERM, then SIGKILL after 5 s) each leftover dev server of db_file; returns the pids stopped. One whose
 * service still runs is not a leftover: the start is refused instead (two services on one data directory).
 */
export async function stopLeftoverDevServers(db_file: string, pid_file: string): Promise<number[]> {
  const pids = leftoverDevServers(db_file, pid_file);
  for (const pid of pids) {
    const service = livingServiceParent(pid);
    if (service !== null)
      throw new ConfigError(`another crucible-server (pid ${service}) is running on ${db_file}; stop it first, or set CRUCIBLE_DATA_DIR to another directory`);
  }
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      continue;
    }
    const deadline = Date.now() + 5_000;
    while (alive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    if (alive(pid)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {}
      const last = Date.now() + 5_000;
      while (alive(pid) && Date.now() < last) await new Promise((r) => setTimeout(r, 50));
    }
  }
  rmSync(pid_file, { force: true });
  return pids;
}

/** Whether nothing listens on host:port (a listen attempt succeeds). */
export async function portFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

/**
 * The UI port to use: the one asked for when it is free; when it is busy, a free one if `fallback` (the default port,
 * not one the operator chose), said in one line; else an error naming the variable.
 */
async function uiPort(wanted: number | undefined, fallback: boolean, say: (line: string) => void): Promise<number> {
  if (!wanted) return freePort();
  if (await portFree(wanted)) return wanted;
  if (!fallback) throw new ConfigError(`the Temporal UI port ${wanted} (CRUCIBLE_TEMPORAL_UI_PORT) is in use; choose another or stop what holds it`);
  const port = await freePort();
  say(`the Temporal UI's default port ${wanted} is in use; using ${port} instead`);
  return port;
}

/** An existing dev-server database (from before this rule) is made 0600; a new one is created so (see spawnPrivate). */
function privateDatabaseFile(db_file: string): void {
  for (const suffix of ['', '-wal', '-shm', '-journal']) if (existsSync(db_file + suffix)) chmodSync(db_file + suffix, 0o600);
}

/** SQLite creates its files with the umask's mode (0644 by default): the child starts under umask 077 (files 0600). */
function spawnPrivate(...args: Parameters<typeof spawn>): ChildProcess {
  const previous = process.umask(0o077);
  try {
    return spawn(...args);
  } finally {
    process.umask(previous);
  }
}

/**
 * SQLite pragmas of a dev server with a database file: write-ahead logging, synchronous FULL. Every workflow transition
 * commits there; in the default rollback-journal mode each commit syncs the journal, the database and the directory,
 * in WAL mode it syncs the log once, and FULL keeps each commit durable across a power loss as before. Measured: a
 * workflow start 58–63 ms against 87–120 ms (median of 40, two rounds each, load 11 on 2 cores). The mode is kept in
 * the file, so an existing temporal.db is switched at its next start (with `-wal` and `-shm` beside it).
 */
export const DEV_SERVER_SQLITE_PRAGMAS = ['--sqlite-pragma', 'journal_mode=wal', '--sqlite-pragma', 'synchronous=FULL'];

async function devServerArgs(options: { port: number; db_file?: string; ui_port?: number | null; ui_port_fallback?: boolean; say: (line: string) => void }) {
  const args = [
    'server',
    'start-dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(options.port),
    '--log-level',
    'error',
    '--namespace',
    'default',
    ...searchAttributeFlags(),
  ];
  // Absolute, so a leftover is told apart from another checkout's dev server by its arguments alone.
  if (options.db_file) args.push('--db-filename', resolve(options.db_file), ...DEV_SERVER_SQLITE_PRAGMAS);
  let ui_url: string | null = null;
  if (options.ui_port === null) args.push('--headless');
  else {
    const ui_port = await uiPort(options.ui_port, options.ui_port_fallback === true, options.say);
    args.push('--ui-port', String(ui_port));
    ui_url = `http://127.0.0.1:${ui_port}`;
  }
  args.push('--http-port', String(await freePort()), '--metrics-port', String(await freePort()));
  return { args, ui_url };
}

/** Polls the frontend until it answers, or fails after DEV_SERVER_START_TIMEOUT_MS. */
async function untilAnswering(address: string): Promise<void> {
  const deadline = Date.now() + DEV_SERVER_START_TIMEOUT_MS;
  for (;;) {
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1000 });
      await connection.workflowService.getSystemInfo({});
      await connection.close();
      return;
    } catch (error) {
      if (Date.now() > deadline)
        throw new Error(`the Temporal dev server did not answer within ${DEV_SERVER_START_TIMEOUT_MS} ms: ${(error as Error).message}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

/**
 * Starts `temporal server start-dev` on free ports (or those given) and waits until it answers. With `pid_file`
 * (crucible-server start): a leftover dev server of the same database is stopped first (said in one line), the new
 * one's pid is written there, and it runs in a process group of its own, so a terminal's Ctrl+C reaches only the
 * service, which drains its worker before stopping it; it is also killed when this process exits any other way it can
 * notice. A SIGKILL of this process leaves it running until the next start stops it.
 */
export async function startDevServer(options: {
  cli: string;
  db_file?: string;
  pid_file?: string;
  port?: number;
  ui_port?: number | null;
  /** The UI port is the default, not the operator's: when busy, fall back to a free port. */
  ui_port_fallback?: boolean;
  say?: (line: string) => void;
}): Promise<DevServer> {
  const say = options.say ?? (() => {});
  if (options.db_file && options.pid_file) {
    const stopped = await stopLeftoverDevServers(options.db_file, options.pid_file);
    if (stopped.length) say(`stopped a Temporal dev server left running on ${options.db_file} by an earlier start (pid ${stopped.join(', ')})`);
  }
  if (options.db_file) privateDatabaseFile(options.db_file);
  const port = options.port || (await freePort());
  const { args, ui_url } = await devServerArgs({ ...options, port, say });
  const spawnIt = options.db_file ? spawnPrivate : spawn;
  const child = spawnIt(options.cli, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: options.pid_file !== undefined });
  const killOnExit = () => child.kill('SIGKILL');
  if (options.pid_file) {
    writeFileSync(options.pid_file, `${child.pid}\n`, { mode: 0o600 });
    process.once('exit', killOnExit);
  }
  let output = '';
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-8000);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const address = `127.0.0.1:${port}`;
  let stopping = false;
  const ended = new Promise<string>((resolve) => child.once('exit', (code, signal) => resolve(signal ? `signal ${signal}` : `code ${code}`)));
  const exitedEarly = ended.then((how) => Promise.reject(new Error(`the Temporal dev server exited with ${how} before it was ready:\n${output}`)));
  try {
    await Promise.race([untilAnswering(address), exitedEarly]);
  } catch (error) {
    child.kill('SIGKILL');
    if (options.pid_file) rmSync(options.pid_file, { force: true });
    throw error;
  }
  exitedEarly.catch(() => {});
  const died = ended.then((how) => (stopping ? new Promise<string>(() => {}) : how));
  return {
    address,
    ui_url,
    process: child,
    died,
    async stop() {
      stopping = true;
      process.removeListener('exit', killOnExit);
      if (child.exitCode === null && child.signalCode === null) {
        const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await gone;
        clearTimeout(timer);
      }
      if (options.pid_file) rmSync(options.pid_file, { force: true });
    },
  };
}

/**
 * Last resort when no CLI is found and Go cannot build one: let @temporalio/testing download the dev server into the
 * same cache directory and run it (ARCHITECTURE.md: Testing). It is a development dependency, so it is loaded only here.
 */
export async function downloadedDevServer(options: { db_file: string; port?: number; ui_port?: number; say?: (line: string) => void }): Promise<DevServer> {
  options.say?.('no Temporal CLI and no Go: downloading the Temporal dev server with @temporalio/testing…');
  const { TestWorkflowEnvironment } = await import('@temporalio/testing');
  const ui_port = options.ui_port || (await freePort());
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'cached-download', downloadDir: temporalCacheDir() },
      ip: '127.0.0.1',
      port: options.port,
      dbFilename: options.db_file,
      extraArgs: DEV_SERVER_SQLITE_PRAGMAS,
      ui: true,
      uiPort: ui_port,
      namespace: 'default',
      searchAttributes: Object.values(JOB_SEARCH_ATTRIBUTES).map((name) => defineSearchAttributeKey(name, SearchAttributeType.KEYWORD)),
    },
  });
  return {
    address: env.address,
    ui_url: `http://127.0.0.1:${ui_port}`,
    process: null,
    // @temporalio/testing owns this process; its death shows as Temporal unreachable in /v1/health.
    died: new Promise<string>(() => {}),
    stop: () => env.teardown(),
  };
}

/**
 * Makes sure the namespace knows the jobs' search attributes (a job start naming an unknown one is refused): registers
 * the missing ones, or fails with the command an operator runs when this connection may not (docs/operators.md).
 */
export async function ensureJobSearchAttributes(connection: Connection, namespace: string): Promise<void> {
  const names = Object.values(JOB_SEARCH_ATTRIBUTES);
  const known = await connection.operatorService.listSearchAttributes({ namespace });
  const missing = names.filter((name) => !(name in (known.customAttributes ?? {})));
  if (missing.length === 0) return;
  try {
    await connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(missing.map((name) => [name, encodeSearchAttributeIndexedValueType('KEYWORD')!])),
    });
  } catch (error) {
    const flags = missing.map((name) => `--name ${name} --type Keyword`).join(' ');
    throw new Error(
      `the Temporal namespace ${namespace} lacks the search attributes ${missing.join(', ')} and they could not be added (${(error as Error).message}); run: temporal operator search-attribute create --namespace ${namespace} ${flags}`,
    );
  }
}
