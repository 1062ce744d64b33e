// The AI gateway: one structured-output call against a TypeBox schema, returning the checked object and
// token usage (ARCHITECTURE.md: AI and literature). Keys are passed in, used only in the
// SDK's auth header, and never logged, put in prompts or echoed in errors (spec: Provider key).
import type { Static, TSchema } from 'typebox';
import { callAnthropic } from './anthropic.ts';
import {
  AI_FAILURE_TYPES,
  AI_PROVIDERS,
  type AdapterRequest,
  DEFAULT_AI_TIMEOUT_MS,
  DEFAULT_OUTPUT_TOKENS_MAX,
  failureForTimeout,
  type HostedAiProvider,
  OUTPUT_TOKENS_MAX,
  PROMPT_CHARS_MAX,
  nonRetryable,
  type RawStructuredReply,
  type StructuredCallRequest,
  type StructuredCallResult,
} from './common.ts';
import { callGoogle } from './google.ts';
import { callOffline } from './offline.ts';
import { callOpenAi } from './openai.ts';
import { checkAgainstSchema, toProviderJsonSchema } from './schema.ts';

export {
  AI_FAILURE_TYPES,
  AI_PROVIDERS,
  DEFAULT_OUTPUT_TOKENS_MAX,
  HOSTED_AI_PROVIDERS,
  OUTPUT_TOKENS_MAX,
  PROMPT_CHARS_MAX,
} from './common.ts';
export type { AiFailureType, AiProvider, HostedAiProvider, StructuredCallRequest, StructuredCallResult, TokenUsage } from './common.ts';
export { OFFLINE_MODEL_LABEL, estimateTokens } from './offline.ts';

const ADAPTERS: Record<HostedAiProvider, (request: AdapterRequest) => Promise<RawStructuredReply>> = {
  openai: callOpenAi,
  anthropic: callAnthropic,
  google: callGoogle,
};

const SCHEMA_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

function refuse(provider: string, message: string): never {
  throw nonRetryable(AI_FAILURE_TYPES.not_configured, message, { provider });
}

function checkRequest<S extends TSchema>(request: StructuredCallRequest<S>): number {
  if (!AI_PROVIDERS.includes(request.provider))
    refuse(String(request.provider), `unknown AI provider "${String(request.provider)}"; use one of ${AI_PROVIDERS.join(', ')}`);
  // spec: Provider keys — no model is guessed
  if (!request.model || request.model.trim() === '') refuse(request.provider, `no model is configured for ${request.provider}`);
  if (!SCHEMA_NAME_PATTERN.test(request.schema_name)) refuse(request.provider, 'schema_name must be 1 to 64 letters, digits, _ or -');
  const chars = request.system.length + request.prompt.length;
  if (chars > PROMPT_CHARS_MAX) refuse(request.provider, `the prompt is ${chars} characters; the limit is PROMPT_CHARS_MAX (${PROMPT_CHARS_MAX})`);
  const max_output_tokens = request.max_output_tokens ?? DEFAULT_OUTPUT_TOKENS_MAX;
  if (!Number.isInteger(max_output_tokens) || max_output_tokens < 1 || max_output_tokens > OUTPUT_TOKENS_MAX) {
    refuse(request.provider, `max_output_tokens must be an integer from 1 to OUTPUT_TOKENS_MAX (${OUTPUT_TOKENS_MAX})`);
  }
  return max_output_tokens;
}

/**
 * The hosted provider's reply within the timeout: the SDK gets it as its own timeout (which covers the wait for the
 * answer's headers) and the gateway ends the call at the same time whatever it waits for (a body that stalls halfway).
 */
async function callHosted<S extends TSchema>(
  provider: HostedAiProvider,
  request: StructuredCallRequest<S>,
  max_output_tokens: number,
  api_key: string,
): Promise<RawStructuredReply> {
  const timeout_ms = request.timeout_ms ?? DEFAULT_AI_TIMEOUT_MS;
  const deadline = AbortSignal.timeout(timeout_ms);
  try {
    return await ADAPTERS[provider]({
      model: request.model,
      api_key,
      base_url: request.base_url,
      system: request.system,
      prompt: request.prompt,
      json_schema: toProviderJsonSchema(request.schema),
      schema_name: request.schema_name,
      max_output_tokens,
      timeout_ms,
      abort_signal: request.abort_signal ? AbortSignal.any([request.abort_signal, deadline]) : deadline,
      tools: request.tools ?? [],
    });
  } catch (error) {
    // The caller's cancellation stays what it is; the gateway's own deadline is a provider that did not answer in time.
    if (deadline.aborted && !request.abort_signal?.aborted) throw failureForTimeout(provider, timeout_ms);
    throw error;
  }
}

/**
 * One structured-output call. Returns the object (checked against `schema`), token usage and timing.
 * Throws Temporal ApplicationFailures typed by AI_FAILURE_TYPES: auth, bad request, invalid output and
 * missing configuration are non-retryable; 408/409/429/5xx and transport errors are retryable
 * ('ProviderUnavailable'), so Temporal retries and the credit saga charges nothing for the failed attempt.
 */
export async function callStructured<S extends TSchema>(request: StructuredCallRequest<S>): Promise<StructuredCallResult<Static<S>>> {
  const max_output_tokens = checkRequest(request);
  const started_ms = performance.now();
  let reply: RawStructuredReply;
  if (request.provider === 'offline') {
    reply = await callOffline(request.system, request.prompt, request.offline);
  } else {
    if (!request.api_key) refuse(request.provider, `no API key is available for ${request.provider}`);
    reply = await callHosted(request.provider, request, max_output_tokens, request.api_key);
  }
  const object = checkAgainstSchema<Static<S>>(request.provider, request.schema, reply.value);
  return {
    object,
    usage: reply.usage,
    provider: request.provider,
    model: request.model,
    duration_ms: Math.round(performance.now() - started_ms),
    heuristic: request.provider === 'offline',
  };
}
