// The AI-call activity on the real worker and service: hosted calls are priced per thousand tokens, the offline
// heuristic (the embedded default's hosted provider) is metered like a hosted call, and Temporal's retries of a 429
// record the call once.
import { randomBytes } from 'node:crypto';
import { WorkflowFailedError } from '@temporalio/client';
import { Type } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AiCallInput, AiCallResult } from '../../domain/ai/call.ts';
import { registerAiSchema, registerOfflineTask } from '../../domain/ai/registry.ts';
import { estimateTokens } from '../../integrations/ai/gateway.ts';
import type { AiFake } from '../fakes/http.ts';
import { startFakeOpenAi } from '../fakes/openai.ts';
import { http, signedInOwner, startTestService, type TestService, type TestUser } from '../support/harness.ts';

const Summary = Type.Object({ summary: Type.String() }, { additionalProperties: false });
registerAiSchema('AiCallTestSummary', Summary);
// A deterministic stand-in heuristic: the first sentence of the material.
registerOfflineTask('ai_call_test_summary', (input) => ({ summary: String((input as { text: string }).text).split('.')[0]! }));

const HOSTED_KEY = `sk-hosted-${randomBytes(20).toString('hex')}`;
const PRICE_PER_1K = 3;

function input(org_id: string, overrides: Partial<AiCallInput> = {}): AiCallInput {
  return {
    org_id,
    subject: { project_id: null, kind: 'intake', id: 'drf_test' },
    task: 'ai_call_test_summary',
    byok_provider: null,
    system: 'Summarize the material in one sentence.',
    prompt: 'Remote monitoring reduced admissions. Patients liked it.',
    schema_name: 'AiCallTestSummary',
    offline_input: { text: 'Remote monitoring reduced admissions. Patients liked it.' },
    ...overrides,
  };
}

async function runCall(service: TestService, call: AiCallInput, workflowId = `ai-test-${randomBytes(6).toString('hex')}`): Promise<AiCallResult> {
  return service.service.client.workflow.execute('aiCallTestWorkflow', { taskQueue: service.task_queue, workflowId, args: [call] });
}

describe('hosted provider calls (openai as the deployment provider)', () => {
  let service: TestService;
  let openai: AiFake;
  let owner: TestUser;

  beforeAll(async () => {
    openai = await startFakeOpenAi({ expected_api_key: HOSTED_KEY });
    openai.script.fallback = { object: { summary: 'It worked.' }, usage: { input_tokens: 1500, output_tokens: 501 } };
    service = await startTestService({
      env: {
        CRUCIBLE_HOSTED_AI_PROVIDER: 'openai',
        CRUCIBLE_HOSTED_AI_API_KEY: HOSTED_KEY,
        CRUCIBLE_OPENAI_MODEL: 'gpt-hosted-test',
        CRUCIBLE_OPENAI_BASE_URL: openai.base_url,
        CRUCIBLE_AI_CREDITS_PER_1K_TOKENS: String(PRICE_PER_1K),
      },
    });
    owner = await signedInOwner(service, 'hosted');
  });
  afterAll(async () => {
    await service?.stop();
    await openai?.close();
  });

  it('charges ceil(tokens × price / 1000) credits and records the call', async () => {
    const result = await runCall(service, input(owner.org_id));
    // (1500 + 501) × 3 / 1000 = 6.003 → 7
    expect(result).toMatchObject({ provider: 'openai', model: 'gpt-hosted-test', byok: false, input_tokens: 1500, output_tokens: 501, credits_charged: 7 });
    expect(result.object).toEqual({ summary: 'It worked.' });
    const usage = await http(service, 'GET', `/v1/orgs/${owner.org_id}/usage`, { token: owner.session });
    expect(usage.body.data[0]).toMatchObject({ id: result.usage_id, credits_charged: 7, byok: false, provider: 'openai' });
    expect(openai.requests.at(-1)!.headers.authorization).toBe(`Bearer ${HOSTED_KEY}`);
    expect(service.logs.join('\n')).not.toContain(HOSTED_KEY.slice(-16));
  });

  it('retries a 429 through Temporal and records and prices the call once', async () => {
    openai.script.enqueue({ error_status: 429 }, { error_status: 503 }, { object: { summary: 'third time' }, usage: { input_tokens: 10, output_tokens: 10 } });
    const before = openai.requests.length;
    const result = await runCall(service, input(owner.org_id, { subject: { project_id: null, kind: 'intake', id: 'drf_retry' } }));
    expect(openai.requests.length - before).toBe(3);
    expect(result).toMatchObject({ object: { summary: 'third time' }, credits_charged: 1 });
    const rows = await service.db.query('select credits_charged from ai_usage where subject_id = ?', ['drf_retry']);
    expect(rows.map((r) => Number(r.credits_charged))).toEqual([1]);
  });

  it('pages the usage listing newest first', async () => {
    for (let i = 0; i < 3; i++) await runCall(service, input(owner.org_id, { subject: { project_id: null, kind: 'intake', id: `drf_page_${i}` } }));
    const first = await http(service, 'GET', `/v1/orgs/${owner.org_id}/usage?limit=2`, { token: owner.session });
    expect(first.status).toBe(200);
    expect(first.body.data).toHaveLength(2);
    expect(first.body.data[0].subject.id).toBe('drf_page_2');
    expect(first.body.next_offset).toBe(2);
    const second = await http(service, 'GET', `/v1/orgs/${owner.org_id}/usage?offset=2&limit=200`, { token: owner.session });
    expect(second.body.next_offset).toBeNull();
    expect(first.body.data.length + second.body.data.length).toBe(5);
    const stranger = await signedInOwner(service, 'usage-stranger');
    expect((await http(service, 'GET', `/v1/orgs/${owner.org_id}/usage`, { token: stranger.session })).status).toBe(404);
  });

  it('fails without retrying when the schema name is not registered', async () => {
    const before = openai.requests.length;
    const error = await runCall(service, input(owner.org_id, { schema_name: 'NoSuchSchema' })).catch((e) => e);
    expect(error).toBeInstanceOf(WorkflowFailedError);
    expect(String(error.cause?.cause?.message)).toMatch(/no AI schema is registered as "NoSuchSchema"/);
    expect(openai.requests.length).toBe(before);
  });
});

describe('the offline heuristic as the hosted provider (embedded default)', () => {
  let service: TestService;
  let owner: TestUser;

  beforeAll(async () => {
    service = await startTestService({ env: { CRUCIBLE_AI_CREDITS_PER_1K_TOKENS: '1000' } });
    owner = await signedInOwner(service, 'offline');
  });
  afterAll(async () => {
    await service?.stop();
  });

  it('answers with the registered heuristic, labelled, and meters it like a hosted call', async () => {
    const call = input(owner.org_id);
    const result = await runCall(service, call);
    expect(result).toMatchObject({
      provider: 'offline',
      model: 'offline-heuristic',
      heuristic: true,
      byok: false,
      object: { summary: 'Remote monitoring reduced admissions' },
    });
    const input_tokens = estimateTokens(call.system) + estimateTokens(call.prompt);
    const output_tokens = estimateTokens(JSON.stringify(result.object));
    expect(result).toMatchObject({ input_tokens, output_tokens, credits_charged: input_tokens + output_tokens });
  });

  it('refuses a task without an offline heuristic, naming it', async () => {
    const error = await runCall(service, input(owner.org_id, { task: 'no_such_task' })).catch((e) => e);
    expect(error).toBeInstanceOf(WorkflowFailedError);
    expect(String(error.cause?.cause?.message)).toMatch(/no offline heuristic is registered for task "no_such_task"/);
    expect(await service.db.query('select id from ai_usage where org_id = ?', [owner.org_id])).toHaveLength(1);
  });
});
