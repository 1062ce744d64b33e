// `crucible-server start` after a crash: a SIGKILL of the service leaves its dev server running, and the next
// start on the same data directory stops that leftover (said in one line) and starts; a busy default Temporal UI port
// falls back to a free one; the dev server's database is 0600; and when the dev server itself dies, the service stops
// and exits 1 for its supervisor, leaving nothing running, and starts again on the same data; a second service on a
// data directory in use is refused.
import { execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../runtime/temporal.ts';
import { eventually } from '../support/harness.ts';
import { killed, killLaunched, launch, stopped } from '../support/processes.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'crucible-crash-'));
const DEFAULT_UI_PORT = 8233;
let holder: Server | null = null;
afterAll(async () => {
  killLaunched();
  for (const pid of devServersFor(dataDir)) process.kill(pid, 'SIGKILL');
  await new Promise<void>((resolve) => (holder ? holder.close(() => resolve()) : resolve()));
  rmSync(dataDir, { recursive: true, force: true });
});

type Started = { child: ChildProcess; output: () => string; url: string };

async function start(env_extra: NodeJS.ProcessEnv = {}): Promise<Started> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, CRUCIBLE_DATA_DIR: dataDir, PORT: String(port), ...env_extra };
  delete env.DATABASE_URL;
  delete env.TEMPORAL_ADDRESS;
  if (!env_extra.CRUCIBLE_TEMPORAL_UI_PORT) delete env.CRUCIBLE_TEMPORAL_UI_PORT;
  const { child, output } = launch(['runtime/cli.ts', 'start'], env);
  await eventually(async () => output().includes('Press Ctrl+C to stop.') || child.exitCode !== null, 180_000, 'the service to start');
  expect(child.exitCode, output()).toBeNull();
  return { child, output, url: `http://127.0.0.1:${port}` };
}

/** The running dev servers whose database is in dir (their command line names it). */
function devServersFor(dir: string): number[] {
  try {
    return execFileSync('pgrep', ['-f', join(dir, 'temporal.db')])
      .toString()
      .trim()
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

const pidFile = () => Number(readFileSync(join(dataDir, 'temporal.pid'), 'utf8').trim());

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function ready(url: string): Promise<void> {
  await eventually(
    async () => {
      const response = await fetch(`${url}/v1/health`);
      const body = (await response.json()) as { checks: Record<string, { ok: boolean }> };
      return response.status === 200 && body.checks.worker!.ok;
    },
    60_000,
    'the service to be ready',
  );
}

/** Holds the default UI port (unless something else already does), so the service must fall back. */
async function holdDefaultUiPort(): Promise<void> {
  await new Promise<void>((resolve) => {
    const server = createServer();
    server.once('error', () => resolve());
    server.listen(DEFAULT_UI_PORT, '127.0.0.1', () => {
      holder = server;
      resolve();
    });
  });
}

describe('crucible-server start after a crash', () => {
  it('starts again on the same data after a SIGKILL of the service, stopping the leftover dev server', async () => {
    await holdDefaultUiPort();
    const first = await start();
    const ui = /the Temporal UI's default port 8233 is in use; using (\d+) instead/.exec(first.output());
    expect(ui, first.output()).not.toBeNull();
    expect(first.output()).toContain(`Temporal UI: http://127.0.0.1:${ui![1]}`);
    await ready(first.url);
    expect(statSync(join(dataDir, 'temporal.db')).mode & 0o777).toBe(0o600);
    const orphan = pidFile();
    expect(devServersFor(dataDir)).toEqual([orphan]);

    await killed(first.child);
    // The crash leaves the dev server running (nothing can catch a SIGKILL)…
    expect(isRunning(orphan)).toBe(true);
    // …and the next start stops it, says so in one line, and starts its own.
    const second = await start();
    expect(second.output()).toContain(`stopped a Temporal dev server left running on ${join(dataDir, 'temporal.db')} by an earlier start (pid ${orphan})`);
    expect(isRunning(orphan)).toBe(false);
    await ready(second.url);
    expect(devServersFor(dataDir)).toEqual([pidFile()]);
    expect(await stopped(second.child)).toBe(0);
    expect(devServersFor(dataDir)).toEqual([]);
  }, 400_000);

  it('exits 1 when its dev server dies, leaving nothing running, and starts again on the same data, alone', async () => {
    const ui_port = String(await freePort());
    const first = await start({ CRUCIBLE_TEMPORAL_UI_PORT: ui_port });
    await ready(first.url);
    const exited = new Promise<number | null>((resolve) => first.child.once('exit', (code) => resolve(code)));
    process.kill(pidFile(), 'SIGKILL');
    expect(await exited).toBe(1);
    expect(first.output()).toContain('the Temporal dev server stopped on its own (signal SIGKILL); stopping the service, exit code 1.');
    expect(devServersFor(dataDir)).toEqual([]);

    const second = await start({ CRUCIBLE_TEMPORAL_UI_PORT: ui_port });
    expect(second.output()).not.toContain('stopped a Temporal dev server');
    await ready(second.url);
    // A running service's dev server is no leftover: a second service on the same data directory is refused.
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      CRUCIBLE_DATA_DIR: dataDir,
      PORT: String(await freePort()),
      CRUCIBLE_TEMPORAL_UI_PORT: String(await freePort()),
    };
    delete env.DATABASE_URL;
    delete env.TEMPORAL_ADDRESS;
    const third = launch(['runtime/cli.ts', 'start'], env);
    const refused = await new Promise<number | null>((resolve) => third.child.once('exit', (code) => resolve(code)));
    expect(refused, third.output()).toBe(1);
    expect(third.output()).toContain(`another crucible-server (pid ${second.child.pid}) is running on ${join(dataDir, 'temporal.db')}; stop it first`);
    await ready(second.url);
    expect(await stopped(second.child)).toBe(0);
    expect(devServersFor(dataDir)).toEqual([]);
  }, 400_000);
});
