// `crucible-server start` on embedded defaults: serves health with database and Temporal ok, stops cleanly on SIGTERM
// leaving nothing running, and a second start reuses the data and the cached Temporal binary (and grants no second
// welcome credits).
import { execFileSync, type ChildProcess } from 'node:child_process';
import { chmodSync, lstatSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../runtime/temporal.ts';
import { eventually } from '../support/harness.ts';
import { launch, stopped } from '../support/processes.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'crucible-start-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

function postOnFreshConnection(url: string, token: string, body: string): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) };
    const sent = request(url, { method: 'POST', agent: false, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
    });
    sent.on('error', reject);
    sent.end(body);
  });
}

/** Every entry under `dir` (itself included) that its group or others may read, write or enter. */
function notPrivate(dir: string): string[] {
  const stat = lstatSync(dir);
  if (stat.isSymbolicLink()) return [];
  const own = (stat.mode & 0o077) !== 0 ? [`${dir} ${(stat.mode & 0o777).toString(8)}`] : [];
  return stat.isDirectory() ? [...own, ...readdirSync(dir).flatMap((name) => notPrivate(join(dir, name)))] : own;
}

type Started = { child: ChildProcess; output: () => string; url: string };

async function start(): Promise<Started> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, CRUCIBLE_DATA_DIR: dataDir, PORT: String(port), CRUCIBLE_TEMPORAL_UI_PORT: String(await freePort()) };
  delete env.DATABASE_URL;
  delete env.TEMPORAL_ADDRESS;
  const { child, output } = launch(['runtime/cli.ts', 'start'], env);
  await eventually(async () => output().includes('Press Ctrl+C to stop.') || child.exitCode !== null, 180_000, 'the service to start');
  expect(child.exitCode, output()).toBeNull();
  return { child, output, url: `http://127.0.0.1:${port}` };
}

const stop = (started: Started) => stopped(started.child);

function devServersFor(dir: string): string {
  try {
    return execFileSync('pgrep', ['-af', join(dir, 'temporal.db')]).toString();
  } catch {
    return '';
  }
}

function operator(args: string[]): string {
  const env: NodeJS.ProcessEnv = { ...process.env, CRUCIBLE_DATA_DIR: dataDir };
  delete env.DATABASE_URL;
  return execFileSync(process.execPath, ['runtime/cli.ts', 'operator', ...args], { env }).toString();
}

describe('crucible-server start', () => {
  it('runs everything on embedded defaults and stops cleanly, then starts again on the same data', async () => {
    // A data directory an earlier version left readable by others is made private at start.
    chmodSync(dataDir, 0o755);
    writeFileSync(join(dataDir, 'left-by-an-older-version.txt'), 'x', { mode: 0o644 });
    const first = await start();
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    // PGlite's files, the dev server's database and the secrets: none readable by group or others.
    expect(notPrivate(dataDir)).toEqual([]);
    expect(first.output()).toContain('First start');
    expect(first.output()).toContain('Temporal UI: http://127.0.0.1:');
    expect(first.output()).toContain(join(dataDir, 'pg'));
    const password = /password: (\S+)/.exec(first.output())![1]!;
    expect(first.output()).toContain('welcome credits: 500');
    const health = await eventually(async () => {
      const response = await fetch(`${first.url}/v1/health`);
      const body = (await response.json()) as { checks: Record<string, { ok: boolean }> };
      return response.status === 200 && body.checks.worker!.ok ? body : null;
    });
    expect(health.checks.database!.ok).toBe(true);
    expect(health.checks.temporal!.ok).toBe(true);
    // the web app (built by `prestart`, here by the test global setup) is served at / beside the API
    const app = await fetch(`${first.url}/`);
    expect(app.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await app.text()).toContain('<div id="root"></div>');
    expect(devServersFor(dataDir)).not.toBe('');
    // Operator commands reach the running service's PGlite over its local socket…
    const whileRunning = JSON.parse(operator(['bootstrap', '--email', 'ops@example.org', '--org', 'Ops', '--json']));
    expect(whileRunning).toMatchObject({ email: 'ops@example.org', user_id: expect.stringMatching(/^usr_/), org_id: expect.stringMatching(/^org_/) });
    expect(whileRunning.password).toEqual(expect.any(String));
    // The operator codec token, printed by the operator command, opens the running service's codec endpoint.
    const codec = JSON.parse(operator(['temporal-codec-token', '--json'])) as { token: string; ui_codec_endpoint: string };
    expect(codec.ui_codec_endpoint).toContain(`/v1/operator/temporal-codec/t/${codec.token}`);
    // On a connection of its own: the operator commands above held this process for seconds, long enough for the
    // service to close the idle pooled one, and a POST is not retried on a closed connection.
    const decoded = await postOnFreshConnection(`${first.url}/v1/operator/temporal-codec/decode`, codec.token, JSON.stringify({ payloads: [] }));
    expect(decoded).toEqual({ status: 200, body: { payloads: [] } });
    expect(await stop(first)).toBe(0);
    expect(first.output()).toContain('stopped.');
    expect(devServersFor(dataDir)).toBe('');

    // …and open the database directly while it is stopped; bootstrap creates only what is missing.
    const whileStopped = JSON.parse(operator(['bootstrap', '--email', 'ops@example.org', '--org', 'Ops', '--json']));
    expect(whileStopped).toEqual({ user_id: whileRunning.user_id, email: 'ops@example.org', org_id: whileRunning.org_id });

    const second = await start();
    expect(second.output()).not.toContain('First start');
    expect(second.output()).not.toContain('building the Temporal CLI');
    const signIn = await fetch(`${second.url}/v1/auth/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'admin@localhost.localdomain', password }),
    });
    expect(signIn.status).toBe(201);
    // the first organization's welcome credits were granted once: the second start granted nothing more
    const token = ((await signIn.json()) as { token: string }).token;
    const headers = { authorization: `Bearer ${token}` };
    const me = (await (await fetch(`${second.url}/v1/me`, { headers })).json()) as { memberships: { org_id: string }[] };
    const org_id = me.memberships[0]!.org_id;
    const ledger = (await (await fetch(`${second.url}/v1/orgs/${org_id}/ledger`, { headers })).json()) as { data: unknown[] };
    expect(ledger.data).toEqual([expect.objectContaining({ kind: 'grant', credits: 500, reason: 'welcome credits' })]);
    const credits = (await (await fetch(`${second.url}/v1/orgs/${org_id}/credits`, { headers })).json()) as { available_credits: number };
    expect(credits.available_credits).toBe(500);
    expect(await stop(second)).toBe(0);
    expect(devServersFor(dataDir)).toBe('');
    expect(notPrivate(dataDir)).toEqual([]);
  }, 300_000);
});
