import { randomUUID } from 'node:crypto';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiToken, http, signedInMember, signedInOwner, startTestService, type TestService, type TestUser } from '../support/harness.ts';

let service: TestService;
let owner: TestUser;

beforeAll(async () => {
  service = await startTestService();
  owner = await signedInOwner(service, 'owner');
});
afterAll(async () => {
  await service?.stop();
});

function expectEnvelope(body: any, code: string) {
  expect(body).toMatchObject({ code, message: expect.any(String), request_id: expect.stringMatching(/^req_|^[A-Za-z0-9._:-]+$/) });
  expect(body).toHaveProperty('details');
}

describe('health', () => {
  it('reports the database, Temporal and a polling worker as ok', async () => {
    const response = await http(service, 'GET', '/v1/health');
    expect(response.status).toBe(200);
    expect(response.body.checks.database.ok).toBe(true);
    expect(response.body.checks.temporal.ok).toBe(true);
    expect(response.body.checks.worker.ok).toBe(true);
  });
});

describe('the error envelope', () => {
  it('answers an unknown route with 404 NOT_FOUND', async () => {
    const response = await http(service, 'GET', '/v1/no-such-thing');
    expect(response.status).toBe(404);
    expectEnvelope(response.body, 'NOT_FOUND');
  });

  it('answers a wrong method with 405 METHOD_NOT_ALLOWED and names the allowed ones', async () => {
    const response = await http(service, 'PUT', '/v1/projects', { token: owner.session, body: {} });
    expect(response.status).toBe(405);
    expectEnvelope(response.body, 'METHOD_NOT_ALLOWED');
    expect(response.body.details.allowed).toContain('POST');
  });

  it('answers malformed JSON with 422 VALIDATION_FAILED', async () => {
    const response = await http(service, 'POST', '/v1/projects', {
      token: owner.session,
      raw: '{"title": "x",',
      headers: { 'content-type': 'application/json' },
    });
    expect(response.status).toBe(422);
    expectEnvelope(response.body, 'VALIDATION_FAILED');
  });

  it('lists one detail per bad field', async () => {
    const response = await http(service, 'POST', '/v1/projects', { token: owner.session, body: { title: 5, extra: true } });
    expect(response.status).toBe(422);
    const paths = response.body.details.map((d: any) => d.path).sort();
    expect(paths).toEqual(['/extra', '/org_id', '/title']);
  });

  it('answers an oversized body with 413 PAYLOAD_TOO_LARGE', async () => {
    const big = JSON.stringify({ title: 'x'.repeat(1024 * 1024 + 10), org_id: owner.org_id });
    const response = await http(service, 'POST', '/v1/projects', { token: owner.session, raw: big, headers: { 'content-type': 'application/json' } });
    expect(response.status).toBe(413);
    expectEnvelope(response.body, 'PAYLOAD_TOO_LARGE');
  });

  it('answers a missing, an invalid and an expired token with 401', async () => {
    const missing = await http(service, 'GET', `/v1/projects?org_id=${owner.org_id}`);
    expect(missing.status).toBe(401);
    expectEnvelope(missing.body, 'UNAUTHENTICATED');
    const invalid = await http(service, 'GET', `/v1/projects?org_id=${owner.org_id}`, { token: 'cru.tok_abc.notavalidsecretatallreally' });
    expect(invalid.status).toBe(401);
    expectEnvelope(invalid.body, 'UNAUTHENTICATED');
    const token = await apiToken(service, owner, ['read']);
    const id = token.split('.')[1];
    await service.db.query(`update api_tokens set expires_at = now() - interval '1 minute' where id = ?`, [id]);
    const expired = await http(service, 'GET', `/v1/projects?org_id=${owner.org_id}`, { token });
    expect(expired.status).toBe(401);
    expect(expired.body.message).toMatch(/expired/);
  });

  it('answers a token without the needed scope with 403 FORBIDDEN', async () => {
    const token = await apiToken(service, owner, ['read']);
    const response = await http(service, 'POST', '/v1/projects', { token, body: { title: 'Nope', org_id: owner.org_id } });
    expect(response.status).toBe(403);
    expectEnvelope(response.body, 'FORBIDDEN');
    const count = await service.db.one<{ n: number }>('select count(*)::int as n from projects where title = ?', ['Nope']);
    expect(count!.n).toBe(0);
  });

  it("answers another organization's project with 404, for sessions and tokens alike", async () => {
    const other = await signedInOwner(service, 'other');
    const created = await http(service, 'POST', '/v1/projects', { token: other.session, body: { title: 'Secret idea', org_id: other.org_id } });
    expect(created.status).toBe(201);
    const bySession = await http(service, 'GET', `/v1/projects/${created.body.id}`, { token: owner.session });
    expect(bySession.status).toBe(404);
    expectEnvelope(bySession.body, 'NOT_FOUND');
    const token = await apiToken(service, owner, ['read', 'write']);
    const byToken = await http(service, 'GET', `/v1/projects/${created.body.id}`, { token });
    expect(byToken.status).toBe(404);
    const list = await http(service, 'GET', `/v1/projects?org_id=${other.org_id}`, { token });
    expect(list.status).toBe(404);
  });

  it('echoes a supplied X-Request-Id in the header and the envelope', async () => {
    const response = await http(service, 'GET', '/v1/nowhere', { headers: { 'x-request-id': 'client-req-42' } });
    expect(response.headers.get('x-request-id')).toBe('client-req-42');
    expect(response.body.request_id).toBe('client-req-42');
  });
});

describe('accounts and tokens', () => {
  it('gives the same 401 for a wrong password and an unknown email', async () => {
    const wrong = await http(service, 'POST', '/v1/auth/sessions', { body: { email: owner.email, password: 'wrong-password-123' } });
    const unknown = await http(service, 'POST', '/v1/auth/sessions', { body: { email: 'nobody@example.org', password: 'wrong-password-123' } });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body.message).toBe(unknown.body.message);
    expect(wrong.body.code).toBe(unknown.body.code);
  });

  it('sets an HttpOnly SameSite=Lax cookie on sign-in and ends the session on sign-out', async () => {
    const response = await http(service, 'POST', '/v1/auth/sessions', { body: { email: owner.email, password: owner.password } });
    expect(response.status).toBe(201);
    const cookie = response.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/crucible_session=/);
    expect(cookie.toLowerCase()).toContain('httponly');
    expect(cookie.toLowerCase()).toContain('samesite=lax');
    const session = response.body.token as string;
    expect((await http(service, 'GET', '/v1/me', { token: session })).status).toBe(200);
    expect((await http(service, 'DELETE', '/v1/auth/sessions/current', { token: session })).status).toBe(204);
    expect((await http(service, 'GET', '/v1/me', { token: session })).status).toBe(401);
  });

  it('refuses to mint a token with an API token, and a token acts only inside its organization', async () => {
    const token = await apiToken(service, owner, ['read', 'write', 'run']);
    const minted = await http(service, 'POST', '/v1/me/api-tokens', { token, body: { name: 'x', org_id: owner.org_id, scopes: ['read'] } });
    expect(minted.status).toBe(403);
    const me = await http(service, 'GET', '/v1/me', { token });
    expect(me.body.memberships.map((m: any) => m.org_id)).toEqual([owner.org_id]);
  });

  it('validates scopes as a non-empty subset of read, write, run', async () => {
    const empty = await http(service, 'POST', '/v1/me/api-tokens', { token: owner.session, body: { name: 'x', org_id: owner.org_id, scopes: [] } });
    expect(empty.status).toBe(422);
    const bad = await http(service, 'POST', '/v1/me/api-tokens', { token: owner.session, body: { name: 'x', org_id: owner.org_id, scopes: ['admin'] } });
    expect(bad.status).toBe(422);
  });

  it('never writes a token secret to the logs over a whole token life cycle', async () => {
    const before = service.logs.length;
    const created = await http(service, 'POST', '/v1/me/api-tokens', {
      token: owner.session,
      body: { name: 'log check', org_id: owner.org_id, scopes: ['read'] },
    });
    expect(created.status).toBe(201);
    const secret = created.body.secret as string;
    const randomPart = secret.split('.')[2]!;
    expect(created.body.token.expires_at).toBeTruthy();
    const days = (Date.parse(created.body.token.expires_at) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(89.9);
    expect(days).toBeLessThanOrEqual(90);
    expect((await http(service, 'GET', '/v1/me', { token: secret })).status).toBe(200);
    expect((await http(service, 'GET', `/v1/projects?org_id=${owner.org_id}&token=${randomPart}`, { token: secret })).status).toBe(200);
    const listed = await http(service, 'GET', '/v1/me/api-tokens', { token: owner.session });
    expect(JSON.stringify(listed.body)).not.toContain(randomPart);
    expect((await http(service, 'DELETE', `/v1/me/api-tokens/${created.body.token.id}`, { token: owner.session })).status).toBe(200);
    expect((await http(service, 'GET', '/v1/me', { token: secret })).status).toBe(401);
    const stored = await service.db.query('select * from api_tokens where id = ?', [created.body.token.id]);
    expect(JSON.stringify(stored)).not.toContain(randomPart);
    const lines = service.logs.slice(before);
    expect(lines.length).toBeGreaterThan(4);
    for (const line of lines) {
      expect(line).not.toContain(randomPart);
      expect(line).not.toContain(owner.session);
    }
  });
});

describe('projects', () => {
  it('creates with a trimmed title, reads, and pages the list with next_offset', async () => {
    const member = await signedInMember(service, owner.org_id, 'member');
    const titles = ['  Alpha  ', 'Beta', 'Gamma'];
    for (const title of titles) {
      const created = await http(service, 'POST', '/v1/projects', { token: member.session, body: { title, org_id: owner.org_id } });
      expect(created.status).toBe(201);
      expect(created.body.id).toMatch(/^proj_/);
      expect(created.body.created_at).toMatch(/Z$/);
    }
    const first = await http(service, 'GET', `/v1/projects?org_id=${owner.org_id}&limit=2`, { token: member.session });
    expect(first.body.data).toHaveLength(2);
    expect(first.body.next_offset).toBe(2);
    const all: string[] = [];
    let offset: number | null = 0;
    while (offset !== null) {
      const pageResult: any = await http(service, 'GET', `/v1/projects?org_id=${owner.org_id}&limit=1&offset=${offset}`, { token: member.session });
      all.push(...pageResult.body.data.map((p: any) => p.title));
      offset = pageResult.body.next_offset;
    }
    expect(all).toContain('Alpha');
    expect(new Set(all).size).toBe(all.length);
    const badLimit = await http(service, 'GET', `/v1/projects?org_id=${owner.org_id}&limit=201`, { token: member.session });
    expect(badLimit.status).toBe(422);
    const blank = await http(service, 'POST', '/v1/projects', { token: member.session, body: { title: '   ', org_id: owner.org_id } });
    expect(blank.status).toBe(422);
    const long = await http(service, 'POST', '/v1/projects', { token: member.session, body: { title: 'x'.repeat(201), org_id: owner.org_id } });
    expect(long.status).toBe(422);
  });

  it('makes one project from 50 concurrent creates with one key, and refuses the key with another body', async () => {
    const key = randomUUID();
    const body = { title: 'Concurrent idea', org_id: owner.org_id };
    const responses = await Promise.all(
      Array.from({ length: 50 }, () => http(service, 'POST', '/v1/projects', { token: owner.session, body, headers: { 'idempotency-key': key } })),
    );
    const ids = new Set(responses.map((r) => r.body.id));
    expect(responses.every((r) => r.status === 201)).toBe(true);
    expect(ids.size).toBe(1);
    expect(responses.filter((r) => r.headers.get('idempotent-replayed') === 'true')).toHaveLength(49);
    const rows = await service.db.query('select id from projects where title = ?', ['Concurrent idea']);
    expect(rows).toHaveLength(1);
    const reused = await http(service, 'POST', '/v1/projects', {
      token: owner.session,
      body: { title: 'Another idea', org_id: owner.org_id },
      headers: { 'idempotency-key': key },
    });
    expect(reused.status).toBe(422);
    expect(reused.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
    const tooLong = await http(service, 'POST', '/v1/projects', { token: owner.session, body, headers: { 'idempotency-key': 'k'.repeat(256) } });
    expect(tooLong.status).toBe(422);
  });
});

describe('public discovery', () => {
  it('serves an OpenAPI 3.1 document that a validator accepts and that lists exactly the served routes', async () => {
    const response = await http(service, 'GET', '/v1/openapi.json');
    expect(response.status).toBe(200);
    const validator = new Validator();
    const result = await validator.validate(response.body);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    const { createApp } = await import('../../api/app.ts');
    const { app } = createApp(service.service.deps!);
    const served: string[] = [];
    for (const layer of (app.middleware as any[]).flatMap((m) => (m.router ? m.router.stack : []))) {
      for (const method of layer.methods) if (method !== 'HEAD') served.push(`${method} ${layer.path}`);
    }
    const documented: string[] = [];
    for (const [path, operations] of Object.entries(response.body.paths as Record<string, Record<string, unknown>>)) {
      for (const method of Object.keys(operations)) documented.push(`${method.toUpperCase()} ${path.replace(/\{([a-z_]+)\}/g, ':$1')}`);
    }
    expect(documented.sort()).toEqual(served.sort());
  });

  it('lists the model catalog with the offline provider labelled a heuristic', async () => {
    const response = await http(service, 'GET', '/v1/models');
    expect(response.status).toBe(200);
    const offline = response.body.providers.find((p: any) => p.provider === 'offline');
    expect(offline.kind).toBe('heuristic');
    expect(offline.description).toMatch(/not AI/);
    const openai = response.body.providers.find((p: any) => p.provider === 'openai');
    expect(openai.configured).toBe(false);
    expect(openai.model).toBeNull();
  });

  it('serves schemas and prompts without a token', async () => {
    expect((await http(service, 'GET', '/v1/schemas')).status).toBe(200);
    expect((await http(service, 'GET', '/v1/prompts')).status).toBe(200);
    const missing = await http(service, 'GET', '/v1/schemas/Nope');
    expect(missing.status).toBe(404);
    expectEnvelope(missing.body, 'NOT_FOUND');
  });
});

describe('maintenance workflow', () => {
  it('runs on the real Temporal dev server and purges idempotency records past retention only', async () => {
    await service.db.query(
      `insert into idempotency_records (namespace, owner_id, key, request_hash, status_code, response_body, created_at)
       values ('organization', 'org_old', 'old', 'h', 201, '{}'::jsonb, now() - interval '5 days'),
              ('organization', 'org_old', 'fresh', 'h', 201, '{}'::jsonb, now() - interval '2 hours')`,
    );
    const result = await service.service.client.workflow.execute('maintenanceWorkflow', {
      taskQueue: service.task_queue,
      workflowId: `maintenance-test-${randomUUID()}`,
      args: [],
    });
    expect(result.idempotency_records_purged).toBeGreaterThanOrEqual(1);
    const left = await service.db.query(`select key from idempotency_records where owner_id = 'org_old'`);
    expect(left.map((r: any) => r.key)).toEqual(['fresh']);
  });
});
