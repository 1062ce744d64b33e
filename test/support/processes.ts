// Child processes of the e2e tests (`crucible-server start|api|worker`, the test worker process): launched with their
// output collected, stopped with SIGTERM or killed with SIGKILL, and every one still running killed after the file.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';

export type Launched = { child: ChildProcess; output: () => string };

const launched: ChildProcess[] = [];

/** `node <args…>` with `env`, stdout and stderr collected together. */
export function launch(args: string[], env: NodeJS.ProcessEnv, options: { cwd?: string } = {}): Launched {
  const child = spawn(process.execPath, args, { env, cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  launched.push(child);
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  return { child, output: () => output };
}

const running = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;

/** SIGTERM, resolved with the exit code once it exited. */
export function stopped(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (!running(child)) return resolve(child.exitCode);
    child.once('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}

/** SIGKILL: no shutdown, as a crash. */
export function killed(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (!running(child)) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

/** For afterAll: kills every launched process still running. */
export function killLaunched(): void {
  for (const child of launched) if (running(child)) child.kill('SIGKILL');
}

/** The environment of a split deployment's processes: one PostgreSQL database, one Temporal, one task queue, shared secrets. */
export function deploymentEnv(database_url: string, temporal_address: string, label: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    DATABASE_URL: database_url,
    TEMPORAL_ADDRESS: temporal_address,
    CRUCIBLE_TASK_QUEUE: `${label}-${randomBytes(4).toString('hex')}`,
    SERVICE_MASTER_KEY: randomBytes(32).toString('base64'),
    CRUCIBLE_SESSION_SECRET: randomBytes(32).toString('base64'),
  };
}
