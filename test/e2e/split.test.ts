// `crucible-server api` and `crucible-server worker` as separate processes against PostgreSQL and one Temporal address:
// two APIs and a worker share the database, the session secret and the task queue. PostgreSQL suite only (the split
// halves refuse to run on the embedded PGlite, which belongs to one process).
import { execFileSync } from 'node:child_process';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '../../runtime/temporal.ts';
import { eventually, freshPostgresDatabase } from '../support/harness.ts';
import { deploymentEnv, killLaunched, launch, stopped } from '../support/processes.ts';

let dropDatabase: (() => Promise<void>) | null = null;
afterAll(async () => {
  killLaunched();
  await dropDatabase?.();
});

const launchCommand = (command: 'api' | 'worker', env: NodeJS.ProcessEnv) => launch(['runtime/cli.ts', command], env);

describe.runIf(process.env.DATABASE_URL)('crucible-server api and worker as separate processes', () => {
  it('serves one organization from two API processes with one worker polling', async () => {
    const database = (await freshPostgresDatabase())!;
    dropDatabase = database.drop;
    const env = deploymentEnv(database.url, inject('temporal_address'), 'split');
    expect(execFileSync(process.execPath, ['runtime/cli.ts', 'migrate'], { env }).toString()).toContain('applied');
    const user = JSON.parse(
      execFileSync(process.execPath, ['runtime/cli.ts', 'operator', 'bootstrap', '--email', 'split@example.org', '--org', 'Split', '--json'], {
        env,
      }).toString(),
    );

    const ports = [await freePort(), await freePort()];
    const apis = ports.map((port) => launchCommand('api', { ...env, PORT: String(port) }));
    const worker = launchCommand('worker', env);
    for (const api of apis) await eventually(async () => api.output().includes('API listening on') || api.child.exitCode !== null, 60_000, 'an API process');
    await eventually(async () => worker.output().includes('worker polling') || worker.child.exitCode !== null, 60_000, 'the worker');
    expect(apis.map((a) => a.child.exitCode)).toEqual([null, null]);
    expect(worker.child.exitCode).toBeNull();

    const [first, second] = ports.map((port) => `http://127.0.0.1:${port}`) as [string, string];
    const signIn = await fetch(`${first}/v1/auth/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'split@example.org', password: user.password }),
    });
    const { token } = (await signIn.json()) as { token: string };
    // A session signed by one API process is accepted by the other; both see the same database.
    const created = await fetch(`${second}/v1/projects`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ title: 'Split deployment', org_id: user.org_id }),
    });
    expect(created.status).toBe(201);
    const project = (await created.json()) as { id: string };
    const read = await fetch(`${first}/v1/projects/${project.id}`, { headers: { authorization: `Bearer ${token}` } });
    expect(read.status).toBe(200);
    const health = await eventually(
      async () => {
        const response = await fetch(`${second}/v1/health`);
        const body = (await response.json()) as { checks: Record<string, { ok: boolean }> };
        return body.checks.worker!.ok ? body : null;
      },
      30_000,
      'the worker to poll the task queue',
    );
    expect(health.checks.database!.ok).toBe(true);

    expect(await stopped(worker.child)).toBe(0);
    for (const api of apis) expect(await stopped(api.child)).toBe(0);
  }, 180_000);
});
