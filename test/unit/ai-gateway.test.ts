// The AI gateway against local fakes of each provider's HTTP API, driven through the official SDKs.
import type { ApplicationFailure } from '@temporalio/common';
import { Type } from 'typebox';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AI_FAILURE_TYPES, type AiProvider, callStructured, estimateTokens, type HostedAiProvider } from '../../integrations/ai/gateway.ts';
import { startFakeAnthropic } from '../fakes/anthropic.ts';
import { startFakeGoogle } from '../fakes/google.ts';
import type { AiFake, RecordedRequest } from '../fakes/http.ts';
import { startFakeOpenAi } from '../fakes/openai.ts';
import { applicationFailureOf } from '../support/failures.ts';
import { authoringToolDefinitions } from '../../domain/authoring/register.ts';
import { TOOL_NAMES } from '../../domain/authoring/tools.ts';

const Verdict = Type.Object(
  {
    verdict: Type.Union([Type.Literal('supports'), Type.Literal('does_not_support')]),
    reason: Type.String({ minLength: 1 }),
  },
  { $id: 'JudgeVerdict', additionalProperties: false },
);

const API_KEY = 'sk-test-4f1c9a7e2b8d6035-secret';
const SYSTEM = 'You judge whether a quote supports a claim.';
const PROMPT = 'Claim: remote monitoring reduces admissions. Quote: "admissions fell by 20%".';

/** Everything a failure would carry into Temporal history or a log line. */
function failureText(failure: ApplicationFailure): string {
  return `${failure.message} ${failure.type} ${JSON.stringify(failure.details)} ${String(failure.cause ?? '')}`;
}

type Harness = {
  provider: HostedAiProvider;
  /** The provider's name in a sentence. */
  name: string;
  model: string;
  start(): Promise<AiFake>;
  keyHeader: string;
  keyFrom(request: RecordedRequest): string | undefined;
  expectRequestShape(request: RecordedRequest): void;
  /** The tool registry's tools as this provider's request holds them (structured where the provider can). */
  expectTools(request: RecordedRequest, tools: Array<{ name: string; description: string }>): void;
};

const harnesses: Harness[] = [
  {
    provider: 'openai',
    name: 'OpenAI',
    model: 'gpt-test-1',
    start: () => startFakeOpenAi({ expected_api_key: API_KEY }),
    keyHeader: 'authorization',
    keyFrom: (request) => request.headers['authorization']?.replace(/^Bearer /, ''),
    expectRequestShape(request) {
      expect(request.path).toBe('/v1/chat/completions');
      const body = request.body as any;
      expect(body.model).toBe('gpt-test-1');
      expect(body.messages).toEqual([
        { role: 'system', content: SYSTEM },
        { role: 'user', content: PROMPT },
      ]);
      expect(body.response_format.type).toBe('json_schema');
      expect(body.response_format.json_schema.name).toBe('JudgeVerdict');
      expect(body.response_format.json_schema.strict).toBe(true);
      expect(body.response_format.json_schema.schema.required).toEqual(['verdict', 'reason']);
      expect(body.response_format.json_schema.schema.$id).toBeUndefined();
      expect(body.max_completion_tokens).toBe(500);
      expect(body.tools).toBeUndefined();
    },
    expectTools(request, tools) {
      const body = request.body as any;
      expect(body.tools).toEqual(
        tools.map((tool) => ({
          type: 'function',
          function: { name: tool.name, description: tool.description, parameters: { type: 'object', properties: {}, additionalProperties: false } },
        })),
      );
      // the model sees the tools and still answers with the schema
      expect(body.tool_choice).toBe('none');
      expect(body.response_format.json_schema.name).toBe('JudgeVerdict');
      expect(body.messages[0].content).toBe(SYSTEM);
    },
  },
  {
    provider: 'anthropic',
    name: 'Anthropic',
    model: 'claude-test-1',
    start: () => startFakeAnthropic({ expected_api_key: API_KEY }),
    keyHeader: 'authorization',
    keyFrom: (request) => request.headers['x-api-key'] ?? request.headers['authorization']?.replace(/^Bearer /, ''),
    expectRequestShape(request) {
      expect(request.path).toBe('/v1/messages');
      expect(request.headers['anthropic-version']).toBeTruthy();
      const body = request.body as any;
      expect(body.model).toBe('claude-test-1');
      expect(body.system).toBe(SYSTEM);
      expect(body.messages).toEqual([{ role: 'user', content: PROMPT }]);
      expect(body.tools).toHaveLength(1);
      expect(body.tools[0].name).toBe('JudgeVerdict');
      expect(body.tools[0].input_schema.properties.verdict.anyOf).toHaveLength(2);
      expect(body.tool_choice).toEqual({ type: 'tool', name: 'JudgeVerdict', disable_parallel_tool_use: true });
      expect(body.max_tokens).toBe(500);
    },
    expectTools(request, tools) {
      const body = request.body as any;
      expect(body.tools.map((tool: { name: string }) => tool.name)).toEqual(['JudgeVerdict', ...tools.map((tool) => tool.name)]);
      for (const tool of tools) {
        const sent = body.tools.find((each: { name: string }) => each.name === tool.name);
        expect(sent).toEqual({ name: tool.name, description: tool.description, input_schema: { type: 'object', properties: {}, additionalProperties: false } });
      }
      expect(body.tool_choice).toEqual({ type: 'tool', name: 'JudgeVerdict', disable_parallel_tool_use: true });
    },
  },
  {
    provider: 'google',
    name: 'Google',
    model: 'gemini-test-1',
    start: () => startFakeGoogle({ expected_api_key: API_KEY }),
    keyHeader: 'x-goog-api-key',
    keyFrom: (request) => request.headers['x-goog-api-key'],
    expectRequestShape(request) {
      expect(request.path).toMatch(/^\/v1(beta)?\/models\/gemini-test-1:generateContent$/);
      const body = request.body as any;
      expect(body.contents).toEqual([{ role: 'user', parts: [{ text: PROMPT }] }]);
      expect(JSON.stringify(body.systemInstruction)).toContain(SYSTEM);
      expect(body.generationConfig.responseMimeType).toBe('application/json');
      expect(body.generationConfig.responseJsonSchema.required).toEqual(['verdict', 'reason']);
      expect(body.generationConfig.maxOutputTokens).toBe(500);
    },
    expectTools(request, tools) {
      // Gemini refuses function declarations beside a JSON response schema: the tools travel in the system instruction
      const body = request.body as any;
      expect(body.tools).toBeUndefined();
      const system = JSON.stringify(body.systemInstruction);
      for (const tool of tools) {
        expect(system).toContain(tool.name);
        expect(system).toContain(JSON.stringify(tool.description).slice(1, 60));
      }
      expect(body.generationConfig.responseMimeType).toBe('application/json');
    },
  },
];

for (const harness of harnesses) {
  describe(`${harness.provider} adapter`, () => {
    let fake: AiFake;
    beforeAll(async () => {
      fake = await harness.start();
    });
    afterAll(async () => {
      await fake.close();
    });

    const call = (overrides: { api_key?: string; tools?: Array<{ name: string; description: string }>; timeout_ms?: number } = {}) =>
      callStructured({
        tools: overrides.tools,
        timeout_ms: overrides.timeout_ms,
        provider: harness.provider,
        model: harness.model,
        api_key: overrides.api_key ?? API_KEY,
        base_url: fake.base_url,
        system: SYSTEM,
        prompt: PROMPT,
        schema: Verdict,
        schema_name: 'JudgeVerdict',
        max_output_tokens: 500,
      });

    it('sends the model, prompts and schema with the key in the auth header, and returns the parsed object and token usage', async () => {
      const before = fake.requests.length;
      fake.script.enqueue({ object: { verdict: 'supports', reason: 'the quote reports the fall' }, usage: { input_tokens: 123, output_tokens: 45 } });
      const result = await call();
      expect(result.object).toEqual({ verdict: 'supports', reason: 'the quote reports the fall' });
      expect(result.usage).toEqual({ input_tokens: 123, output_tokens: 45 });
      expect(result.provider).toBe(harness.provider);
      expect(result.model).toBe(harness.model);
      expect(result.heuristic).toBe(false);
      expect(result.duration_ms).toBeGreaterThanOrEqual(0);
      expect(fake.requests).toHaveLength(before + 1);
      const request = fake.requests.at(-1)!;
      expect(request.method).toBe('POST');
      harness.expectRequestShape(request);
      expect(harness.keyFrom(request)).toBe(API_KEY);
      // the key travels only in its own auth header: never in the body or another header
      expect(request.body_text).not.toContain(API_KEY);
      for (const [name, value] of Object.entries(request.headers)) {
        if (name !== harness.keyHeader) expect(value, name).not.toContain(API_KEY);
      }
    });

    it('sends the tool registry’s tools with the request, and the answer is still the schema', async () => {
      const tools = authoringToolDefinitions();
      expect(tools.map((tool) => tool.name)).toEqual(TOOL_NAMES);
      fake.script.enqueue({ object: { verdict: 'supports', reason: 'named a tool' }, usage: { input_tokens: 10, output_tokens: 5 } });
      const result = await call({ tools });
      expect(result.object).toEqual({ verdict: 'supports', reason: 'named a tool' });
      harness.expectTools(fake.requests.at(-1)!, tools);
    });

    it('turns a rejected key into a non-retryable failure naming the provider and never the key', async () => {
      const wrong_key = 'sk-wrong-9b7e5c3a1f2d4e6a-secret';
      const before = fake.requests.length;
      const failure = await applicationFailureOf(call({ api_key: wrong_key }));
      expect(failure.nonRetryable).toBe(true);
      expect(failure.type).toBe(AI_FAILURE_TYPES.auth_rejected);
      expect(failure.message).toContain(`${harness.name} rejected the API key (HTTP 401). Check the key stored for ${harness.name} in Settings`);
      expect(failureText(failure)).not.toContain(wrong_key);
      expect(failureText(failure)).not.toContain(wrong_key.slice(0, 12));
      expect(fake.requests).toHaveLength(before + 1);
    });

    for (const status of [429, 500]) {
      it(`turns ${status} into a retryable ProviderUnavailable failure after exactly one attempt (Temporal retries, not the SDK)`, async () => {
        const before = fake.requests.length;
        fake.script.enqueue({ error_status: status, message: `busy, key was ${API_KEY}` });
        const failure = await applicationFailureOf(call());
        expect(failure.nonRetryable).toBe(false);
        expect(failure.type).toBe(AI_FAILURE_TYPES.unavailable);
        expect(failure.message).toBe(
          status === 429
            ? `${harness.name} was too busy to answer (rate limited, HTTP 429): busy, key was [redacted].`
            : `${harness.name} failed on its side (HTTP 500): busy, key was [redacted].`,
        );
        expect(failureText(failure)).not.toContain(API_KEY);
        expect(fake.requests).toHaveLength(before + 1);
      });
    }

    for (const no_answer of ['before_headers', 'mid_body'] as const) {
      it(`ends a call whose answer does not come (${no_answer.replace('_', ' ')}) at its timeout, as a retryable failure in words`, async () => {
        const before = fake.requests.length;
        fake.script.enqueue({ no_answer });
        const failure = await applicationFailureOf(call({ timeout_ms: 1_000 }));
        expect(failure.nonRetryable).toBe(false);
        expect(failure.type).toBe(AI_FAILURE_TYPES.unavailable);
        expect(failure.message).toBe(`${harness.name} did not answer within 1 second.`);
        expect(fake.requests).toHaveLength(before + 1);
      });
    }

    it('rejects an object that does not match the schema as non-retryable invalid output', async () => {
      fake.script.enqueue({ object: { verdict: 'maybe', reason: '' } });
      const failure = await applicationFailureOf(call());
      expect(failure.nonRetryable).toBe(true);
      expect(failure.type).toBe(AI_FAILURE_TYPES.output_invalid);
      expect(failure.message).toContain(`${harness.name} returned output that does not match the schema`);
      expect(failure.message).toContain('/reason');
    });
  });
}

describe('gateway edge cases', () => {
  it('rejects a reply that is not JSON', async () => {
    const fake = await startFakeOpenAi();
    try {
      fake.script.enqueue({ raw_text: 'Sure! Here is your JSON: {' });
      const failure = await applicationFailureOf(
        callStructured({
          provider: 'openai',
          model: 'gpt-test-1',
          api_key: API_KEY,
          base_url: fake.base_url,
          system: SYSTEM,
          prompt: PROMPT,
          schema: Verdict,
          schema_name: 'JudgeVerdict',
        }),
      );
      expect(failure.type).toBe(AI_FAILURE_TYPES.output_invalid);
      expect(failure.message).toContain('not JSON');
    } finally {
      await fake.close();
    }
  });

  it('treats Gemini’s 400 API_KEY_INVALID as a rejected key', async () => {
    const fake = await startFakeGoogle({ expected_api_key: API_KEY, invalid_key_status: 400 });
    try {
      const failure = await applicationFailureOf(
        callStructured({
          provider: 'google',
          model: 'gemini-test-1',
          api_key: 'AIza-wrong-key-123456',
          base_url: fake.base_url,
          system: SYSTEM,
          prompt: PROMPT,
          schema: Verdict,
          schema_name: 'JudgeVerdict',
        }),
      );
      expect(failure.nonRetryable).toBe(true);
      expect(failure.type).toBe(AI_FAILURE_TYPES.auth_rejected);
      expect(failure.message).toContain('Google rejected the API key');
      expect(failureText(failure)).not.toContain('AIza-wrong-key-123456');
    } finally {
      await fake.close();
    }
  });

  it('treats a provider that cannot be reached as retryable', async () => {
    const fake = await startFakeAnthropic();
    const base_url = fake.base_url;
    await fake.close();
    const failure = await applicationFailureOf(
      callStructured({
        provider: 'anthropic',
        model: 'claude-test-1',
        api_key: API_KEY,
        base_url,
        system: SYSTEM,
        prompt: PROMPT,
        schema: Verdict,
        schema_name: 'JudgeVerdict',
      }),
    );
    expect(failure.nonRetryable).toBe(false);
    expect(failure.type).toBe(AI_FAILURE_TYPES.unavailable);
    expect(failure.message).toBe('Anthropic could not be reached from this server: the connection was refused.');
  });

  it('refuses before any call when no model is configured or no key is available', async () => {
    const fake = await startFakeOpenAi();
    try {
      const base = { provider: 'openai' as const, base_url: fake.base_url, system: SYSTEM, prompt: PROMPT, schema: Verdict, schema_name: 'JudgeVerdict' };
      const noModel = await applicationFailureOf(callStructured({ ...base, model: '', api_key: API_KEY }));
      expect(noModel.type).toBe(AI_FAILURE_TYPES.not_configured);
      expect(noModel.message).toContain('no model is configured for openai');
      const noKey = await applicationFailureOf(callStructured({ ...base, model: 'gpt-test-1' }));
      expect(noKey.type).toBe(AI_FAILURE_TYPES.not_configured);
      expect(noKey.nonRetryable).toBe(true);
      expect(fake.requests).toHaveLength(0);
    } finally {
      await fake.close();
    }
  });
});

describe('offline provider', () => {
  const heuristic = () => ({
    verdict: PROMPT.includes('fell') ? ('supports' as const) : ('does_not_support' as const),
    reason: 'lexical overlap between claim and quote',
  });

  it('is deterministic, labelled a heuristic, estimates usage from characters and makes no network call', async () => {
    const fakes = await Promise.all([startFakeOpenAi(), startFakeAnthropic(), startFakeGoogle()]);
    const fetchSpy = vi.fn(() => {
      throw new Error('the offline provider must not use the network');
    });
    vi.stubGlobal('fetch', fetchSpy);
    try {
      const results = [];
      for (const fake of fakes) {
        results.push(
          await callStructured({
            provider: 'offline' as AiProvider,
            model: 'offline-heuristic',
            api_key: API_KEY,
            base_url: fake.base_url,
            system: SYSTEM,
            prompt: PROMPT,
            schema: Verdict,
            schema_name: 'JudgeVerdict',
            offline: heuristic,
          }),
        );
      }
      const expected = heuristic();
      for (const result of results) {
        expect(result.object).toEqual(expected);
        expect(result.heuristic).toBe(true);
        expect(result.provider).toBe('offline');
        expect(result.usage).toEqual({
          input_tokens: Math.ceil(SYSTEM.length / 4) + Math.ceil(PROMPT.length / 4),
          output_tokens: Math.ceil(JSON.stringify(expected).length / 4),
        });
      }
      expect(estimateTokens('abcde')).toBe(2);
      expect(fetchSpy).not.toHaveBeenCalled();
      for (const fake of fakes) expect(fake.requests).toHaveLength(0);
    } finally {
      vi.unstubAllGlobals();
      await Promise.all(fakes.map((fake) => fake.close()));
    }
  });

  it('validates the heuristic’s result against the schema', async () => {
    const failure = await applicationFailureOf(
      callStructured({
        provider: 'offline',
        model: 'offline-heuristic',
        system: SYSTEM,
        prompt: PROMPT,
        schema: Verdict,
        schema_name: 'JudgeVerdict',
        offline: () => ({ verdict: 'unsure', reason: 'x' }) as never,
      }),
    );
    expect(failure.type).toBe(AI_FAILURE_TYPES.output_invalid);
    expect(failure.message).toContain('The offline heuristic returned output that does not match the schema');
  });
});
