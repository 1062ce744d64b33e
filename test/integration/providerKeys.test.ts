// Provider keys over the real service: roles, listings that show four characters at most, revocation that destroys the
// ciphertext, BYOK calls through the callModel activity against fake providers, and the key in no log, error or request.
import { randomBytes } from 'node:crypto';
import type { Logger } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { Type } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aiActivities } from '../../activities/aiCall.ts';
import { withFailureBoundary } from '../../activities/index.ts';
import type { AiCallInput, AiCallResult } from '../../domain/ai/call.ts';
import { registerAiSchema } from '../../domain/ai/registry.ts';
import { ServiceError } from '../../domain/errors.ts';
import { runOperator } from '../../runtime/operator.ts';
import { assertAiAvailable } from '../../store/providerKeys/availability.ts';
import { startFakeAnthropic } from '../fakes/anthropic.ts';
import type { AiFake } from '../fakes/http.ts';
import { startFakeOpenAi } from '../fakes/openai.ts';
import { apiToken, http, signedInMember, signedInOwner, startTestService, type TestService, type TestUser } from '../support/harness.ts';
import { applicationFailureOf } from '../support/failures.ts';

const Verdict = Type.Object({ verdict: Type.String(), reason: Type.String() }, { additionalProperties: false });
registerAiSchema('ProviderKeysTestVerdict', Verdict);

const OPENAI_MODEL = 'gpt-test-byok';
let service: TestService;
let openai: AiFake;
let anthropic: AiFake;
let owner: TestUser;
/** Every key this file stores; none may appear anywhere but a fake's own authorization header. */
const keysUsed: string[] = [];

function newKey(prefix = 'sk-byok'): string {
  const key = `${prefix}-${randomBytes(24).toString('hex')}`;
  keysUsed.push(key);
  return key;
}

/** The key and long fragments of it: a leak of most of a key is still a leak. */
function fragments(key: string): string[] {
  return [key, key.slice(0, 16), key.slice(8, 24), key.slice(-12)];
}

function expectNoKeyIn(text: string, keys = keysUsed): void {
  for (const key of keys) for (const fragment of fragments(key)) expect(text).not.toContain(fragment);
}

/** Temporal's activity log lines go to the service's logger, so the secrecy test searches them too. */
function temporalLogger(): Logger {
  const pino = service.service.deps!.logger;
  const at = (level: 'debug' | 'info' | 'warn' | 'error') => (message: string, meta?: Record<string, unknown>) => pino[level]({ temporal: meta }, message);
  return {
    log: (level, message, meta) => at(level === 'ERROR' ? 'error' : level === 'WARN' ? 'warn' : 'info')(message, meta),
    trace: at('debug'),
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
  };
}

let callCounter = 0;
function activityEnv(overrides: { activityId?: string; workflowId?: string; runId?: string; attempt?: number } = {}) {
  callCounter += 1;
  return new MockActivityEnvironment(
    {
      workflowExecution: { workflowId: overrides.workflowId ?? `test-wf-${callCounter}`, runId: overrides.runId ?? `run-${callCounter}` },
      activityId: overrides.activityId ?? '1',
      attempt: overrides.attempt ?? 1,
      // as the worker would give them for the model profile (the mock's defaults are a 1-second step scheduled in 1970)
      scheduledTimestampMs: Date.now(),
      startToCloseTimeoutMs: 6 * 60_000,
      scheduleToCloseTimeoutMs: 10 * 60_000,
      retryPolicy: { maximumAttempts: 4, initialInterval: 2_000, backoffCoefficient: 2, maximumInterval: 60_000 },
    },
    { logger: temporalLogger() },
  );
}

function activities(master_key?: Buffer, master_keys_previous: Buffer[] = []): { callModel: (input: AiCallInput) => Promise<AiCallResult> } {
  const deps = service.service.deps!;
  const config = master_key ? { ...deps.config, master_key, master_keys_previous } : deps.config;
  // As the worker registers them: behind the failure boundary (activities/index.ts).
  return withFailureBoundary(aiActivities({ config, db: service.db, logger: deps.logger, jobs: null }));
}

function input(org_id: string, byok_provider: AiCallInput['byok_provider']): AiCallInput {
  return {
    org_id,
    subject: { project_id: null, kind: 'review', id: 'rev_test' },
    task: 'provider_keys_test',
    byok_provider,
    system: 'You judge whether a quote supports a claim.',
    prompt: 'Claim: X. Quote: "X happened".',
    schema_name: 'ProviderKeysTestVerdict',
  };
}

async function addKey(user: TestUser, body: Record<string, unknown>, token = user.session) {
  return http(service, 'POST', `/v1/orgs/${user.org_id}/provider-keys`, { token, body });
}

async function storedRow(key_id: string) {
  return service.db.one<Record<string, unknown>>('select ciphertext, nonce, auth_tag, revoked_at from provider_keys where id = ?', [key_id]);
}

beforeAll(async () => {
  openai = await startFakeOpenAi();
  anthropic = await startFakeAnthropic();
  openai.script.fallback = { object: { verdict: 'supports', reason: 'the quote states it' }, usage: { input_tokens: 120, output_tokens: 30 } };
  anthropic.script.fallback = openai.script.fallback;
  // openai has a model; anthropic has a base URL but no model: it must never be called.
  service = await startTestService({
    env: { CRUCIBLE_OPENAI_MODEL: OPENAI_MODEL, CRUCIBLE_OPENAI_BASE_URL: openai.base_url, CRUCIBLE_ANTHROPIC_BASE_URL: anthropic.base_url },
  });
  owner = await signedInOwner(service, 'keys-owner');
});

afterAll(async () => {
  await service?.stop();
  await openai?.close();
  await anthropic?.close();
});

describe('storing and listing provider keys', () => {
  it('stores a key and shows only provider, label and the last four characters', async () => {
    const key = newKey();
    const created = await addKey(owner, { provider: 'openai', label: 'Team key', api_key: key });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body).sort()).toEqual(['created_at', 'id', 'label', 'last4', 'provider']);
    expect(created.body).toMatchObject({ provider: 'openai', label: 'Team key', last4: key.slice(-4) });
    expect(created.body.id).toMatch(/^key_/);

    const listed = await http(service, 'GET', `/v1/orgs/${owner.org_id}/provider-keys`, { token: owner.session });
    expect(listed.status).toBe(200);
    const item = listed.body.data.find((k: any) => k.id === created.body.id);
    expect(item).toEqual({ ...created.body, revoked_at: null });
    // No more than the last four characters, anywhere in the listing.
    const text = JSON.stringify(listed.body);
    for (let i = 0; i + 5 <= key.length; i++) expect(text).not.toContain(key.slice(i, i + 5));
    expect(item.last4).toHaveLength(4);
  });

  it('keeps the key sealed at rest: the row holds ciphertext, a 96-bit nonce and a tag, never the key', async () => {
    const key = newKey();
    const created = await addKey(owner, { provider: 'google', label: 'g', api_key: key });
    const row = await service.db.one<Record<string, unknown>>('select * from provider_keys where id = ?', [created.body.id]);
    expect(Buffer.from(row!.nonce as Uint8Array)).toHaveLength(12);
    expect(Buffer.from(row!.auth_tag as Uint8Array)).toHaveLength(16);
    expectNoKeyIn(
      JSON.stringify(row, (_k, v) => (v instanceof Uint8Array ? Buffer.from(v).toString('latin1') : v)),
      [key],
    );
  });

  it('replaces the live key for a provider: the previous one is revoked and its ciphertext destroyed', async () => {
    const first = await addKey(owner, { provider: 'anthropic', label: 'old', api_key: newKey() });
    const second = await addKey(owner, { provider: 'anthropic', label: 'new', api_key: newKey() });
    expect(second.status).toBe(201);
    expect(await storedRow(first.body.id)).toMatchObject({ ciphertext: null, nonce: null, auth_tag: null, revoked_at: expect.anything() });
    const live = await service.db.query('select id from provider_keys where org_id = ? and provider = ? and revoked_at is null', [owner.org_id, 'anthropic']);
    expect(live).toEqual([{ id: second.body.id }]);
  });

  it('keeps one live key per provider when keys are added concurrently', async () => {
    const org = await signedInOwner(service, 'concurrent');
    const responses = await Promise.all(Array.from({ length: 6 }, (_, i) => addKey(org, { provider: 'openai', label: `k${i}`, api_key: newKey() })));
    expect(responses.map((r) => r.status)).toEqual([201, 201, 201, 201, 201, 201]);
    const live = await service.db.query('select id from provider_keys where org_id = ? and revoked_at is null', [org.org_id]);
    expect(live).toHaveLength(1);
    const destroyed = await service.db.query('select id from provider_keys where org_id = ? and revoked_at is not null and ciphertext is null', [org.org_id]);
    expect(destroyed).toHaveLength(5);
  });

  it('refuses a malformed key with 422 without echoing it', async () => {
    const key = `sk-has space-${randomBytes(12).toString('hex')}`;
    keysUsed.push(key);
    const response = await addKey(owner, { provider: 'openai', label: 'bad', api_key: key });
    expect(response.status).toBe(422);
    expect(response.body.code).toBe('VALIDATION_FAILED');
    expect(response.body.details[0].path).toBe('/api_key');
    expectNoKeyIn(JSON.stringify(response.body), [key]);
    const unknown = await addKey(owner, { provider: 'mistral', label: 'x', api_key: newKey() });
    expect(unknown.status).toBe(422);
    expect(unknown.body.details.map((d: any) => d.path)).toContain('/provider');
    expectNoKeyIn(JSON.stringify(unknown.body));
  });

  it('lets only owners and admins add or revoke; members may list; another organization gets 404', async () => {
    const member = await signedInMember(service, owner.org_id, 'member');
    const denied = await addKey(member, { provider: 'openai', label: 'm', api_key: newKey() });
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe('FORBIDDEN');
    expectNoKeyIn(JSON.stringify(denied.body));
    expect((await http(service, 'GET', `/v1/orgs/${owner.org_id}/provider-keys`, { token: member.session })).status).toBe(200);

    const admin = await signedInMember(service, owner.org_id, 'admin');
    const byAdmin = await addKey(admin, { provider: 'google', label: 'by admin', api_key: newKey() });
    expect(byAdmin.status).toBe(201);
    expect((await http(service, 'DELETE', `/v1/orgs/${owner.org_id}/provider-keys/${byAdmin.body.id}`, { token: member.session })).status).toBe(403);

    const stranger = await signedInOwner(service, 'stranger');
    const list = await http(service, 'GET', `/v1/orgs/${owner.org_id}/provider-keys`, { token: stranger.session });
    expect(list.status).toBe(404);
    const add = await http(service, 'POST', `/v1/orgs/${owner.org_id}/provider-keys`, {
      token: stranger.session,
      body: { provider: 'openai', label: 'x', api_key: newKey() },
    });
    expect(add.status).toBe(404);
    // Their own organization path with our key id: the key is not theirs.
    const revoke = await http(service, 'DELETE', `/v1/orgs/${stranger.org_id}/provider-keys/${byAdmin.body.id}`, { token: stranger.session });
    expect(revoke.status).toBe(404);
    expect((await storedRow(byAdmin.body.id))!.revoked_at).toBeNull();

    const readOnly = await apiToken(service, owner, ['read']);
    const scoped = await addKey(owner, { provider: 'openai', label: 'ro', api_key: newKey() }, readOnly);
    expect(scoped.status).toBe(403);
  });
});

describe('BYOK calls through callModel', () => {
  it('calls the provider with the stored key, records the tokens and charges 0 credits', async () => {
    const org = await signedInOwner(service, 'byok');
    const key = newKey();
    expect((await addKey(org, { provider: 'openai', label: 'mine', api_key: key })).status).toBe(201);
    openai.expected_api_key = key;
    const before = openai.requests.length;
    const result = (await activityEnv().run(activities().callModel, input(org.org_id, 'openai'))) as AiCallResult;
    expect(result).toMatchObject({
      object: { verdict: 'supports', reason: 'the quote states it' },
      provider: 'openai',
      model: OPENAI_MODEL,
      byok: true,
      heuristic: false,
      input_tokens: 120,
      output_tokens: 30,
      credits_charged: 0,
    });
    const sent = openai.requests.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.headers.authorization).toBe(`Bearer ${key}`);
    const usage = await http(service, 'GET', `/v1/orgs/${org.org_id}/usage`, { token: org.session });
    expect(usage.status).toBe(200);
    expect(usage.body.data).toEqual([
      expect.objectContaining({
        id: result.usage_id,
        provider: 'openai',
        model: OPENAI_MODEL,
        byok: true,
        input_tokens: 120,
        output_tokens: 30,
        credits_charged: 0,
        task: 'provider_keys_test',
      }),
    ]);
    expect(usage.body.data[0].subject).toEqual({ project_id: null, kind: 'review', id: 'rev_test' });
  });

  it('fails with a clear error naming the provider after the key is revoked, and the row holds no ciphertext', async () => {
    const org = await signedInOwner(service, 'revoke');
    const created = await addKey(org, { provider: 'openai', label: 'soon gone', api_key: newKey() });
    const revoked = await http(service, 'DELETE', `/v1/orgs/${org.org_id}/provider-keys/${created.body.id}`, { token: org.session });
    expect(revoked.status).toBe(200);
    expect(revoked.body.revoked_at).toEqual(expect.any(String));
    expect(await storedRow(created.body.id)).toMatchObject({ ciphertext: null, nonce: null, auth_tag: null });

    const before = openai.requests.length;
    const error = await applicationFailureOf(activityEnv().run(activities().callModel, input(org.org_id, 'openai')));
    expect(error.type).toBe('ProviderKeyMissing');
    expect(error.nonRetryable).toBe(true);
    expect(error.message).toMatch(/no live openai key/);
    expect(openai.requests.length).toBe(before);

    const check = await assertAiAvailable({ config: service.config, db: service.db }, org.org_id, 'openai').catch((e) => e);
    expect(check).toBeInstanceOf(ServiceError);
    expect(check).toMatchObject({ code: 'VALIDATION_FAILED', status: 422 });
    expect(check.message).toMatch(/openai/);
  });

  it('answers PROVIDER_NOT_CONFIGURED for a provider without a model, before any request reaches it', async () => {
    const org = await signedInOwner(service, 'unconfigured');
    expect((await addKey(org, { provider: 'anthropic', label: 'a', api_key: newKey() })).status).toBe(201);
    const error = await applicationFailureOf(activityEnv().run(activities().callModel, input(org.org_id, 'anthropic')));
    expect(error.type).toBe('PROVIDER_NOT_CONFIGURED');
    expect(error.nonRetryable).toBe(true);
    expect(error.message).toMatch(/anthropic/);
    expect(anthropic.requests).toHaveLength(0);
    const check = await assertAiAvailable({ config: service.config, db: service.db }, org.org_id, 'anthropic').catch((e) => e);
    expect(check).toMatchObject({ code: 'PROVIDER_NOT_CONFIGURED', status: 503 });
    await expect(assertAiAvailable({ config: service.config, db: service.db }, org.org_id, null)).resolves.toBeUndefined();
  });

  it('fails loudly when the master key is not the one the key was stored under', async () => {
    const org = await signedInOwner(service, 'masterkey');
    const key = newKey();
    expect((await addKey(org, { provider: 'openai', label: 'k', api_key: key })).status).toBe(201);
    const before = openai.requests.length;
    const error = await applicationFailureOf(activityEnv().run(activities(randomBytes(32)).callModel, input(org.org_id, 'openai')));
    expect(error.type).toBe('ProviderKeyUndecryptable');
    expect(error.nonRetryable).toBe(true);
    expect(error.message).toMatch(/could not be decrypted: neither SERVICE_MASTER_KEY nor a key in SERVICE_MASTER_KEY_PREVIOUS is the key it was stored under/);
    expectNoKeyIn(`${error.message} ${JSON.stringify(error.details)}`, [key]);
    expect(openai.requests.length).toBe(before);
  });

  it('after a master key rotation, opens a key stored under the previous master key and seals it again under the new one', async () => {
    const org = await signedInOwner(service, 'rotation');
    const key = newKey();
    const added = await addKey(org, { provider: 'openai', label: 'k', api_key: key });
    expect(added.status).toBe(201);
    const old_master = service.config.master_key!;
    const new_master = randomBytes(32);
    const sealedNonce = async () =>
      Buffer.from(
        (await service.db.one<{ nonce: Uint8Array }>('select nonce from provider_keys where org_id = ? and revoked_at is null', [org.org_id]))!.nonce,
      ).toString('hex');
    const stored_under_old = await sealedNonce();
    // The new key alone does not open it; with the old one listed as previous the call goes through with the key.
    const refused = await applicationFailureOf(activityEnv().run(activities(new_master).callModel, input(org.org_id, 'openai')));
    expect(refused.type).toBe('ProviderKeyUndecryptable');
    openai.expected_api_key = key;
    const result = (await activityEnv().run(activities(new_master, [old_master]).callModel, input(org.org_id, 'openai'))) as AiCallResult;
    expect(result).toMatchObject({ provider: 'openai', byok: true });
    // Sealed again on the way: the new master key alone now opens it, and the old one no longer does.
    expect(await sealedNonce()).not.toBe(stored_under_old);
    const again = (await activityEnv().run(activities(new_master).callModel, input(org.org_id, 'openai'))) as AiCallResult;
    expect(again).toMatchObject({ provider: 'openai', byok: true });
    const old_only = await applicationFailureOf(activityEnv().run(activities(old_master).callModel, input(org.org_id, 'openai')));
    expect(old_only.type).toBe('ProviderKeyUndecryptable');
    // Revoked, so the keys left live are all under the service's own master key again.
    expect((await http(service, 'DELETE', `/v1/orgs/${org.org_id}/provider-keys/${added.body.id}`, { token: org.session })).status).toBe(200);
  });

  it('seals every live key again under the new master key with the operator command, printing no key material', async () => {
    const org = await signedInOwner(service, 'reseal');
    const key = newKey();
    expect((await addKey(org, { provider: 'openai', label: 'k', api_key: key })).status).toBe(201);
    const old_master = service.config.master_key!;
    const new_master = randomBytes(32);
    const live = await service.db.query('select id from provider_keys where revoked_at is null');
    const reseal = (master_key: Buffer, master_keys_previous: Buffer[]) =>
      runOperator(service.db, { command: 'provider-keys reseal', flags: {}, config: { ...service.config, master_key, master_keys_previous } });
    const rotated = await reseal(new_master, [old_master]);
    expect(rotated).toEqual({ resealed: live.length, already_current: 0, unreadable: 0 });
    expectNoKeyIn(JSON.stringify(rotated), [key]);
    // The new key alone opens the organization's key; a second pass finds nothing left to do.
    openai.expected_api_key = key;
    const call = (await activityEnv().run(activities(new_master).callModel, input(org.org_id, 'openai'))) as AiCallResult;
    expect(call).toMatchObject({ provider: 'openai', byok: true });
    expect(await reseal(new_master, [old_master])).toEqual({ resealed: 0, already_current: live.length, unreadable: 0 });
    // Without the old key, the keys sealed under it would be named as unreadable, not changed.
    const stranger = await reseal(randomBytes(32), []);
    expect(stranger).toMatchObject({ resealed: 0, already_current: 0, unreadable: live.length });
    expect(String(stranger.unreadable_keys)).toContain(org.org_id);
    expect(String(stranger.note)).toMatch(/SERVICE_MASTER_KEY_PREVIOUS/);
    // Back under the service's own key for the tests that follow.
    expect(await reseal(old_master, [new_master])).toMatchObject({ resealed: live.length, unreadable: 0 });
  });

  it('reports a key the provider rejects (401) as a non-retryable error naming the provider, without the key', async () => {
    const org = await signedInOwner(service, 'rejected');
    const key = newKey();
    expect((await addKey(org, { provider: 'openai', label: 'wrong', api_key: key })).status).toBe(201);
    openai.expected_api_key = `${key}-not-this-one`;
    const error = await applicationFailureOf(activityEnv().run(activities().callModel, input(org.org_id, 'openai')));
    expect(error.type).toBe('ProviderAuthRejected');
    expect(error.nonRetryable).toBe(true);
    expect(error.message).toMatch(/OpenAI rejected the API key/);
    expectNoKeyIn(`${error.message} ${JSON.stringify(error.details)}`, [key]);
    const rows = await service.db.query('select id from ai_usage where org_id = ?', [org.org_id]);
    expect(rows).toHaveLength(0);
  });

  it('records a retried activity execution once and returns the first figures', async () => {
    const org = await signedInOwner(service, 'retry');
    const key = newKey();
    expect((await addKey(org, { provider: 'openai', label: 'k', api_key: key })).status).toBe(201);
    openai.expected_api_key = key;
    // Attempt 1: 429 (retryable, nothing recorded); attempt 2 succeeds; attempt 3 re-runs after a lost completion.
    openai.script.enqueue({ error_status: 429 }, { object: { verdict: 'supports', reason: 'r' }, usage: { input_tokens: 40, output_tokens: 2 } });
    openai.script.enqueue({ object: { verdict: 'supports', reason: 'r' }, usage: { input_tokens: 999, output_tokens: 999 } });
    const ids = { workflowId: `retry-${org.org_id}`, runId: 'run-retry', activityId: '7' };
    const first = await applicationFailureOf(activityEnv({ ...ids, attempt: 1 }).run(activities().callModel, input(org.org_id, 'openai')));
    expect(first.type).toBe('ProviderUnavailable');
    expect(first.nonRetryable).toBe(false);
    expect(await service.db.query('select id from ai_usage where org_id = ?', [org.org_id])).toHaveLength(0);
    const second = (await activityEnv({ ...ids, attempt: 2 }).run(activities().callModel, input(org.org_id, 'openai'))) as AiCallResult;
    const third = (await activityEnv({ ...ids, attempt: 3 }).run(activities().callModel, input(org.org_id, 'openai'))) as AiCallResult;
    expect(third.usage_id).toBe(second.usage_id);
    expect(third.input_tokens).toBe(40);
    const rows = await service.db.query('select input_tokens from ai_usage where org_id = ?', [org.org_id]);
    expect(rows).toEqual([{ input_tokens: 40 }]);
  });
});

describe('the key stays secret', () => {
  it('appears in no log line and in no request a fake received, other than its own authorization header', async () => {
    expect(keysUsed.length).toBeGreaterThan(5);
    // The logs did capture the failures above (so this search looks at real material).
    expect(service.logs.some((line) => line.includes('ProviderAuthRejected') || line.includes('rejected the API key'))).toBe(true);
    expectNoKeyIn(service.logs.join('\n'));
    for (const fake of [openai, anthropic]) {
      for (const request of fake.requests) {
        const { authorization: _auth, 'x-api-key': _xkey, ...headers } = request.headers;
        expectNoKeyIn(`${request.method} ${request.path}?${request.query} ${JSON.stringify(headers)} ${request.body_text}`);
      }
    }
  });
});
