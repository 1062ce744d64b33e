// `crucible-server api` started while Temporal is unreachable: it starts instead of exiting, serves reads,
// answers readiness within 2 s and liveness at once, and a job start is 503 TEMPORARILY_UNAVAILABLE within 5 s.
// PostgreSQL suite only (the API process alone refuses the embedded PGlite, which belongs to one process).
import { execFileSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../runtime/temporal.ts';
import { eventually, freshPostgresDatabase } from '../support/harness.ts';
import { deploymentEnv, killLaunched, launch, stopped } from '../support/processes.ts';

let dropDatabase: (() => Promise<void>) | null = null;
afterAll(async () => {
  killLaunched();
  await dropDatabase?.();
});

async function timed(url: string, init?: RequestInit): Promise<{ response: Response; body: any; ms: number }> {
  const started = performance.now();
  const response = await fetch(url, init);
  const body = await response.json();
  return { response, body, ms: performance.now() - started };
}

describe.runIf(process.env.DATABASE_URL)('crucible-server api while Temporal is unreachable', () => {
  it('starts, serves reads and answers job starts with 503 at once', async () => {
    const database = (await freshPostgresDatabase())!;
    dropDatabase = database.drop;
    // Nothing listens on this port: Temporal is down for the whole test.
    const env = deploymentEnv(database.url, `127.0.0.1:${await freePort()}`, 'no-temporal');
    execFileSync(process.execPath, ['runtime/cli.ts', 'migrate'], { env });
    const user = JSON.parse(
      execFileSync(process.execPath, ['runtime/cli.ts', 'operator', 'bootstrap', '--email', 'down@example.org', '--org', 'Down', '--json'], { env }).toString(),
    );
    const port = await freePort();
    const api = launch(['runtime/cli.ts', 'api'], { ...env, PORT: String(port) });
    await eventually(async () => api.output().includes('API listening on') || api.child.exitCode !== null, 60_000, 'the API process');
    expect(api.child.exitCode, api.output()).toBeNull();
    const url = `http://127.0.0.1:${port}`;

    const health = await timed(`${url}/v1/health`);
    expect(health.ms).toBeLessThan(2_000);
    expect(health.response.status).toBe(503);
    expect(health.body.checks.database.ok).toBe(true);
    expect(health.body.checks.temporal.ok).toBe(false);
    expect((await timed(`${url}/v1/health/live`)).response.status).toBe(200);

    const signIn = await timed(`${url}/v1/auth/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'down@example.org', password: user.password }),
    });
    expect(signIn.response.status).toBe(201);
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${signIn.body.token}` };
    const project = await timed(`${url}/v1/projects`, { method: 'POST', headers, body: JSON.stringify({ title: 'Down', org_id: user.org_id }) });
    expect(project.response.status).toBe(201);
    expect((await timed(`${url}/v1/projects/${project.body.id}`, { headers })).response.status).toBe(200);

    const review = await timed(`${url}/v1/projects/${project.body.id}/reviews`, { method: 'POST', headers, body: JSON.stringify({ plan_id: 'plan_unknown' }) });
    expect(review.ms).toBeLessThan(5_000);
    expect(review.response.status).toBe(503);
    expect(review.body.code).toBe('TEMPORARILY_UNAVAILABLE');
    expect(review.response.headers.get('retry-after')).toBe('5');
    expect(api.output()).not.toContain('Failed to connect');

    expect(await stopped(api.child)).toBe(0);
  }, 180_000);
});
