// What reaches a person or a cache from the edge: names and titles refused with control characters or bidirectional
// overrides (422 naming the field and what to remove), answers carrying a secret, a token or source text sent with
// `Cache-Control: no-store`, an organization's API token seeing only that organization's tokens, and a token's
// `last_used_at` written at most once a minute.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forgetCredential } from '../../api/auth.ts';
import type { AppDeps } from '../../api/context.ts';
import { runOperator } from '../../runtime/operator.ts';
import { apiToken, eventually, http, signedInOwner, startTestService, type TestService, type TestUser } from '../support/harness.ts';

let service: TestService;
let owner: TestUser;
let project_id: string;

beforeAll(async () => {
  service = await startTestService({ mode: 'api' });
  owner = await signedInOwner(service, 'names');
  const project = await http(service, 'POST', '/v1/projects', { token: owner.session, body: { title: 'Names and secrets', org_id: owner.org_id } });
  expect(project.status).toBe(201);
  project_id = project.body.id;
});
afterAll(async () => {
  await service?.stop();
});

const CONTROLS = /control characters .*bidirectional overrides/;

describe('names and titles', () => {
  it.each([
    ['ESC and an OSC sequence', 'Plan\u001b]0;owned\u0007\u001b[2K'],
    ['CR and LF', 'Plan\r\nproj_fake  Forged'],
    ['a right-to-left override', 'Plan\u202egnp.exe'],
    ['a bidirectional isolate', 'Plan\u2066x\u2069'],
    ['a C1 control', 'Plan\u009b31m'],
  ])('refuses a project title holding %s with 422 naming /title and what to remove, creating nothing', async (_, title) => {
    const response = await http(service, 'POST', '/v1/projects', { token: owner.session, body: { title, org_id: owner.org_id } });
    expect(response.status).toBe(422);
    expect(response.body.code).toBe('VALIDATION_FAILED');
    expect(response.body.details).toEqual([{ path: '/title', message: expect.stringMatching(CONTROLS) }]);
    expect(response.body.message).toContain('/title');
    const listed = await http(service, 'GET', `/v1/projects?org_id=${owner.org_id}`, { token: owner.session });
    expect(listed.body.data.map((p: { title: string }) => p.title)).toEqual(['Names and secrets']);
  });

  it('refuses the same in a token name, a provider key label, a world name and a world label', async () => {
    const token = await http(service, 'POST', '/v1/me/api-tokens', {
      token: owner.session,
      body: { name: 'ci\u202e', org_id: owner.org_id, scopes: ['read'] },
    });
    expect(token.status).toBe(422);
    expect(token.body.details).toEqual([{ path: '/name', message: expect.stringMatching(CONTROLS) }]);
    const key = await http(service, 'POST', `/v1/orgs/${owner.org_id}/provider-keys`, {
      token: owner.session,
      body: { provider: 'openai', label: 'team\rkey', api_key: `sk-test-${'a'.repeat(40)}` },
    });
    expect(key.status).toBe(422);
    expect(key.body.details).toEqual([{ path: '/label', message: expect.stringMatching(CONTROLS) }]);
    const sample = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'samples', 'worlds', 'remote_monitoring_admissions.json'), 'utf8'));
    const validated = await http(service, 'POST', '/v1/world-specs/validate', { body: { ...sample, name: 'World\u001b[31m red' } });
    expect(validated.status).toBe(200);
    expect(validated.body.valid).toBe(false);
    expect(validated.body.problems).toContainEqual({ pointer: '/name', message: expect.stringMatching(CONTROLS) });
    const saved = await http(service, 'POST', `/v1/projects/${project_id}/worlds`, { token: owner.session, body: { ...sample, name: 'World\nTwo' } });
    expect(saved.status).toBe(422);
    expect(saved.body.details).toContainEqual({ path: '/name', message: expect.stringMatching(CONTROLS) });
  });

  it('refuses a file name holding a right-to-left override with 422 naming the file, and keeps an ordinary one', async () => {
    const form = new FormData();
    form.append('project_id', project_id);
    form.append('notes', new Blob(['An idea about triage.'], { type: 'text/plain' }), 'invoice\u202etxt.exe');
    const refused = await fetch(`${service.url}/v1/intakes/extract`, { method: 'POST', headers: { authorization: `Bearer ${owner.session}` }, body: form });
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as { details: unknown }).details).toEqual([{ path: '/files/0/filename', message: expect.stringMatching(CONTROLS) }]);
    const ordinary = new FormData();
    ordinary.append('project_id', project_id);
    ordinary.append('notes', new Blob(['An idea about triage.'], { type: 'text/plain' }), 'notes – draft 2.txt');
    const kept = await fetch(`${service.url}/v1/intakes/extract`, { method: 'POST', headers: { authorization: `Bearer ${owner.session}` }, body: ordinary });
    expect(kept.status).toBe(201);
  });

  it('refuses an organization name holding a control character in the operator commands too', async () => {
    await expect(runOperator(service.db, { command: 'bootstrap', flags: { email: 'ops-names@example.org', org: 'Clinic\u001b[2J' } })).rejects.toThrow(
      CONTROLS,
    );
  });
});

describe('answers that carry a secret, a token or source text', () => {
  it('are sent with Cache-Control: no-store (sign-in, token creation, source text, extraction, provider keys); others are not', async () => {
    const session = await http(service, 'POST', '/v1/auth/sessions', { body: { email: owner.email, password: owner.password } });
    expect(session.status).toBe(201);
    expect(session.headers.get('cache-control')).toBe('no-store');
    const token = await http(service, 'POST', '/v1/me/api-tokens', { token: owner.session, body: { name: 'cache', org_id: owner.org_id, scopes: ['read'] } });
    expect(token.status).toBe(201);
    expect(token.headers.get('cache-control')).toBe('no-store');
    const extracted = await http(service, 'POST', '/v1/intakes/extract', { token: owner.session, body: { text: 'A ward wants fewer falls.', project_id } });
    expect(extracted.status).toBe(201);
    expect(extracted.headers.get('cache-control')).toBe('no-store');
    const text = await http(service, 'GET', `/v1/intake-sources/${extracted.body.sources[0].id}/text`, { token: owner.session });
    expect(text.status).toBe(200);
    expect(text.headers.get('cache-control')).toBe('no-store');
    const key = await http(service, 'POST', `/v1/orgs/${owner.org_id}/provider-keys`, {
      token: owner.session,
      body: { provider: 'openai', label: 'team key', api_key: `sk-test-${'b'.repeat(40)}` },
    });
    expect(key.status).toBe(201);
    expect(key.headers.get('cache-control')).toBe('no-store');
    const keys = await http(service, 'GET', `/v1/orgs/${owner.org_id}/provider-keys`, { token: owner.session });
    expect(keys.headers.get('cache-control')).toBe('no-store');
    // a failed sign-in is no-store too (the header is the route's, whatever the outcome)
    const wrong = await http(service, 'POST', '/v1/auth/sessions', { body: { email: owner.email, password: 'not the password' } });
    expect(wrong.status).toBe(401);
    // a project carries none of these: it may be cached privately like any read
    const project = await http(service, 'GET', `/v1/projects/${project_id}`, { token: owner.session });
    expect(project.status).toBe(200);
    expect(project.headers.get('cache-control')).not.toBe('no-store');
  });
});

describe('API tokens', () => {
  it("lists only its own organization's tokens to an organization's API token; the session sees them all", async () => {
    const other_org = (await runOperator(service.db, { command: 'create-org', flags: { name: `Second of ${owner.email}`, owner: owner.email } })) as {
      org_id: string;
    };
    const in_first = await apiToken(service, owner, ['read']);
    const in_second = await apiToken(service, owner, ['read'], other_org.org_id);
    const first_listing = await http(service, 'GET', '/v1/me/api-tokens?limit=200', { token: in_first });
    expect(first_listing.status).toBe(200);
    expect(new Set(first_listing.body.data.map((t: { org_id: string }) => t.org_id))).toEqual(new Set([owner.org_id]));
    const second_listing = await http(service, 'GET', '/v1/me/api-tokens?limit=200', { token: in_second });
    expect(second_listing.body.data.map((t: { org_id: string }) => t.org_id)).toEqual([other_org.org_id]);
    const all = await http(service, 'GET', '/v1/me/api-tokens?limit=200', { token: owner.session });
    expect(new Set(all.body.data.map((t: { org_id: string }) => t.org_id))).toEqual(new Set([owner.org_id, other_org.org_id]));
  });

  it('writes last_used_at on use, then at most once a minute', async () => {
    const secret = await apiToken(service, owner, ['read']);
    const token_id = secret.split('.')[1]!;
    const deps = { db: service.db } as AppDeps;
    const lastUsed = async () =>
      (await service.db.one<{ ms: number | null }>('select extract(epoch from last_used_at) * 1000 as ms from api_tokens where id = ?', [token_id]))!.ms;
    const use = async () => {
      // a fresh lookup each time: the credential cache would otherwise answer without reading the row
      forgetCredential(deps, { token_id });
      expect((await http(service, 'GET', `/v1/projects?org_id=${owner.org_id}`, { token: secret })).status).toBe(200);
    };
    expect(await lastUsed()).toBeNull();
    await use();
    await eventually(lastUsed, 10_000, 'the first use to be written');
    // used 30 s ago: several uses now write nothing
    await service.db.query("update api_tokens set last_used_at = now() - interval '30 seconds' where id = ?", [token_id]);
    const thirty_ago = Number(await lastUsed());
    for (let i = 0; i < 5; i++) await use();
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(Number(await lastUsed())).toBe(thirty_ago);
    // used 61 s ago: the next use is written
    await service.db.query("update api_tokens set last_used_at = now() - interval '61 seconds' where id = ?", [token_id]);
    await use();
    await eventually(async () => Number(await lastUsed()) > Date.now() - 30_000, 10_000, 'the use after a minute to be written');
    const listed = await http(service, 'GET', '/v1/me/api-tokens?limit=200', { token: owner.session });
    expect(listed.body.data.find((t: { id: string }) => t.id === token_id).last_used_at).toEqual(expect.any(String));
  });
});
