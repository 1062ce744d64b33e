// An https public URL: the service listens on plain HTTP, so it needs a trusted TLS-terminating proxy. With
// CRUCIBLE_TRUST_PROXY the Secure session cookie works behind it; without, the service refuses to start, naming the
// setting, instead of answering every sign-in 500.
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOperator } from '../../runtime/operator.ts';
import { killLaunched, launch } from '../support/processes.ts';
import { http, startTestService, type TestService } from '../support/harness.ts';

const PUBLIC_URL = 'https://crucible.example.org';
const CLI = fileURLToPath(new URL('../../runtime/cli.ts', import.meta.url));

let service: TestService;
let email: string;
let password: string;

beforeAll(async () => {
  service = await startTestService({ mode: 'api', env: { CRUCIBLE_PUBLIC_URL: PUBLIC_URL, CRUCIBLE_TRUST_PROXY: 'true' } });
  email = `https-${randomBytes(3).toString('hex')}@example.org`;
  password = ((await runOperator(service.db, { command: 'create-user', flags: { email } })) as { password: string }).password;
});
afterAll(async () => {
  killLaunched();
  await service?.stop();
});

const signIn = (headers: Record<string, string>) => http(service, 'POST', '/v1/auth/sessions', { body: { email, password }, headers });

describe('an https public URL', () => {
  it('refuses to start without CRUCIBLE_TRUST_PROXY, naming the settings, before anything listens', async () => {
    const data_dir = `/tmp/crucible-https-${randomBytes(4).toString('hex')}`;
    const launched = launch([CLI, 'start'], {
      ...process.env,
      CRUCIBLE_PUBLIC_URL: PUBLIC_URL,
      CRUCIBLE_TRUST_PROXY: '',
      CRUCIBLE_DATA_DIR: data_dir,
      PORT: '0',
    });
    const code = await new Promise<number | null>((resolve) => launched.child.once('exit', resolve));
    rmSync(data_dir, { recursive: true, force: true });
    expect(code).toBe(1);
    expect(launched.output()).toContain('CRUCIBLE_PUBLIC_URL is https:// but CRUCIBLE_TRUST_PROXY is not true');
    expect(launched.output()).not.toContain('Crucible is running');
  });

  it('sets the Secure, HttpOnly session cookie behind the proxy, and the cookie authenticates', async () => {
    const response = await signIn({ 'x-forwarded-proto': 'https', 'x-forwarded-for': '203.0.113.7' });
    expect(response.status).toBe(201);
    const cookie = response.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^crucible_session=[^;]+;/);
    expect(cookie.toLowerCase()).toContain('; secure');
    expect(cookie.toLowerCase()).toContain('; httponly');
    const me = await http(service, 'GET', '/v1/me', { headers: { cookie: cookie.split(';')[0]!, 'x-forwarded-proto': 'https' } });
    expect(me.status).toBe(200);
    const signedOut = await http(service, 'DELETE', '/v1/auth/sessions/current', { token: response.body.token, headers: { 'x-forwarded-proto': 'https' } });
    expect(signedOut.status).toBe(204);
    expect((signedOut.headers.get('set-cookie') ?? '').toLowerCase()).toContain('; secure');
  });

  it('answers a sign-in that reached the plain port without X-Forwarded-Proto 201 with the same Secure cookie, never 500', async () => {
    const response = await signIn({});
    expect(response.status).toBe(201);
    expect((response.headers.get('set-cookie') ?? '').toLowerCase()).toContain('; secure');
    expect(service.logs.filter((line) => JSON.parse(line).level >= 50)).toEqual([]);
  });
});
