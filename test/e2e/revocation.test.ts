// A credential revoked through one API process is refused by another API process within AUTH_CACHE_TTL_MS, however
// often the second process had just accepted it (its cache holds it). PostgreSQL suite only: two API processes need
// a shared database.
import { execFileSync } from 'node:child_process';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { AUTH_CACHE_TTL_MS } from '../../api/auth.ts';
import { freePort } from '../../runtime/temporal.ts';
import { eventually, freshPostgresDatabase } from '../support/harness.ts';
import { deploymentEnv, killLaunched, launch } from '../support/processes.ts';

let dropDatabase: (() => Promise<void>) | null = null;
afterAll(async () => {
  killLaunched();
  await dropDatabase?.();
});

const launchApi = (env: NodeJS.ProcessEnv) => launch(['runtime/cli.ts', 'api'], env);

async function call(base: string, method: string, path: string, token: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

describe.runIf(process.env.DATABASE_URL)('revocation across API processes', () => {
  it('refuses a token revoked in one process in the other within the stated bound', async () => {
    const database = (await freshPostgresDatabase())!;
    dropDatabase = database.drop;
    const env = deploymentEnv(database.url, inject('temporal_address'), 'revoke');
    execFileSync(process.execPath, ['runtime/cli.ts', 'migrate'], { env });
    const user = JSON.parse(
      execFileSync(process.execPath, ['runtime/cli.ts', 'operator', 'bootstrap', '--email', 'revoke@example.org', '--org', 'Revoke', '--json'], {
        env,
      }).toString(),
    );
    const ports = [await freePort(), await freePort()];
    const apis = ports.map((port) => launchApi({ ...env, PORT: String(port) }));
    for (const api of apis) await eventually(async () => api.output().includes('API listening on') || api.child.exitCode !== null, 60_000, 'an API process');
    const [first, second] = ports.map((port) => `http://127.0.0.1:${port}`) as [string, string];

    const signIn = await fetch(`${first}/v1/auth/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'revoke@example.org', password: user.password }),
    });
    const { token: session } = (await signIn.json()) as { token: string };
    const created = await call(first, 'POST', '/v1/me/api-tokens', session, { name: 'cached', org_id: user.org_id, scopes: ['read'] });
    const secret = created.body.secret as string;
    // The second process verifies the token and keeps it.
    expect((await call(second, 'GET', '/v1/me', secret)).status).toBe(200);
    expect((await call(second, 'GET', '/v1/me', secret)).status).toBe(200);

    const revoked_at = Date.now();
    expect((await call(first, 'DELETE', `/v1/me/api-tokens/${created.body.token.id}`, session)).status).toBe(200);
    expect((await call(first, 'GET', '/v1/me', secret)).status).toBe(401);
    await eventually(
      async () => (await call(second, 'GET', '/v1/me', secret)).status === 401,
      AUTH_CACHE_TTL_MS + 5_000,
      'the second process to refuse the token',
    );
    // Within the stated bound (plus the time a request takes on a busy machine).
    expect(Date.now() - revoked_at).toBeLessThanOrEqual(AUTH_CACHE_TTL_MS + 2_000);
  }, 300_000);
});
