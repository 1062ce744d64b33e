// Shared types, limits and failure mapping for the AI gateway (ARCHITECTURE.md: AI and literature).
// Failures are Temporal ApplicationFailures so Temporal owns retrying: the SDKs' own retries are off.
import { ApplicationFailure } from '@temporalio/common';
import type { Static, TSchema } from 'typebox';

import { AI_FAILURE_TYPES, type AiFailureType } from '../../domain/ai/call.ts';
import { AI_CALL_TIMEOUT_SECONDS_DEFAULT, durationInWords } from '../../domain/ai/attempts.ts';
import { AI_PROVIDERS, type AiProvider, aiProviderName, HOSTED_AI_PROVIDERS, type HostedAiProvider } from '../../domain/ai/providers.ts';

export { AI_FAILURE_TYPES, type AiFailureType };

export { AI_PROVIDERS, type AiProvider, HOSTED_AI_PROVIDERS, type HostedAiProvider };

export const DEFAULT_OUTPUT_TOKENS_MAX = 8192;
/** Upper bound on max_output_tokens a caller may ask for. */
export const OUTPUT_TOKENS_MAX = 32_000;
/** One provider call may take this long before it counts as unavailable (retryable), when the caller gives no timeout. */
export const DEFAULT_AI_TIMEOUT_MS = AI_CALL_TIMEOUT_SECONDS_DEFAULT * 1000;
/** System text plus prompt above this size is refused before any call. */
export const PROMPT_CHARS_MAX = 1_000_000;

export type TokenUsage = { input_tokens: number; output_tokens: number };

/** A tool the model may name in its answer; sent as the provider's tool definition, never to be called. */
export type ToolDefinition = { name: string; description: string };

export type StructuredCallRequest<S extends TSchema> = {
  provider: AiProvider;
  /** The deployment's model for this provider; never guessed (spec: Provider keys). */
  model: string;
  /** The hosted provider's key (the service's or the organization's); unused by `offline`. Never logged. */
  api_key?: string;
  /** The SDK's base URL as the provider documents it (openai: ends in /v1). Defaults to the public endpoint. */
  base_url?: string;
  system: string;
  prompt: string;
  schema: S;
  /** Name for the schema/tool (letters, digits, _ and -, at most 64). */
  schema_name: string;
  /** The deterministic heuristic for this task; required for `offline`, ignored otherwise. */
  offline?: () => Static<S> | Promise<Static<S>>;
  max_output_tokens?: number;
  timeout_ms?: number;
  /** Cancels the call (e.g. Temporal's activity cancellation signal). */
  abort_signal?: AbortSignal;
  /** Tools the model may name in its answer (the tool registry's); the answer itself is always the schema. */
  tools?: ToolDefinition[];
};

export type StructuredCallResult<T> = {
  object: T;
  usage: TokenUsage;
  provider: AiProvider;
  model: string;
  duration_ms: number;
  /** true for `offline`: a deterministic heuristic, not a model (ARCHITECTURE.md: AI and literature). */
  heuristic: boolean;
};

/** What an adapter returns before the gateway validates it. */
export type RawStructuredReply = { value: unknown; usage: TokenUsage };

export type AdapterRequest = {
  model: string;
  api_key: string;
  base_url?: string;
  system: string;
  prompt: string;
  json_schema: Record<string, unknown>;
  schema_name: string;
  max_output_tokens: number;
  timeout_ms: number;
  abort_signal?: AbortSignal;
  tools: ToolDefinition[];
};

/** The parameters of a tool the model only names: it takes nothing from the model (the service fills its inputs). */
export const NAMED_TOOL_PARAMETERS = { type: 'object', properties: {}, additionalProperties: false } as const;

/**
 * The tools as text, for a provider whose structured answer cannot be combined with tool definitions (Gemini refuses
 * function declarations beside a JSON response schema): appended to the system instruction.
 */
export function toolsAsText(tools: ToolDefinition[]): string {
  if (tools.length === 0) return '';
  return `\n\nTools you may name in a next step (by name; never call them):\n${tools.map((tool) => `- ${tool.name}: ${tool.description}`).join('\n')}`;
}

export function nonRetryable(type: AiFailureType, message: string, details: Record<string, unknown>): ApplicationFailure {
  return ApplicationFailure.create({ type, message, nonRetryable: true, details: [details] });
}

/** Removes every occurrence of the key (and longer fragments of it) from text we did not write. */
export function redactKey(text: string, api_key: string | undefined): string {
  if (!api_key || api_key.length < 4) return text;
  return text.split(api_key).join('[redacted]');
}

const RETRY_AFTER_MAX_SECONDS = 600;

function retryAfterSeconds(headers: Headers | Record<string, string> | undefined): number | undefined {
  if (!headers) return undefined;
  const raw = headers instanceof Headers ? headers.get('retry-after') : (headers['retry-after'] ?? undefined);
  if (!raw) return undefined;
  const seconds = Number(raw);
  if (!Number.isFinite(seconds) || seconds < 0) return undefined;
  return Math.min(seconds, RETRY_AFTER_MAX_SECONDS);
}

/** The provider's own text, redacted and cut, as the tail of a sentence (": …"), or nothing. */
function saidTail(provider_message: string, api_key: string): string {
  const said = redactKey(provider_message, api_key)
    .slice(0, 300)
    .trim()
    .replace(/[.\s]+$/u, '');
  return said ? `: ${said}` : '';
}

/** What a status that another attempt may fix says of the provider. */
function unavailableWords(name: string, status: number): string {
  if (status === 429) return `${name} was too busy to answer (rate limited, HTTP 429)`;
  if (status === 408) return `${name} gave up on the request itself (HTTP 408)`;
  if (status === 409) return `${name} could not take the request just then (HTTP 409)`;
  return `${name} failed on its side (HTTP ${status})`;
}

/**
 * Maps an HTTP status from a provider to the gateway's failure, in words that name the provider. The provider's own
 * message is left out for auth failures (providers echo parts of the key there) and redacted elsewhere.
 */
export function failureForStatus(
  provider: HostedAiProvider,
  status: number,
  provider_message: string,
  api_key: string,
  headers?: Headers | Record<string, string>,
): ApplicationFailure {
  const details = { provider, status };
  const name = aiProviderName(provider, true);
  if (status === 401 || status === 403) {
    return nonRetryable(
      AI_FAILURE_TYPES.auth_rejected,
      `${name} rejected the API key (HTTP ${status}). Check the key stored for ${name} in Settings, or the service's own key.`,
      details,
    );
  }
  const said = saidTail(provider_message, api_key);
  if (status === 408 || status === 409 || status === 429 || status >= 500) {
    const seconds = retryAfterSeconds(headers);
    return ApplicationFailure.create({
      type: AI_FAILURE_TYPES.unavailable,
      message: `${unavailableWords(name, status)}${said}.`,
      nonRetryable: false,
      details: [details],
      ...(seconds !== undefined ? { nextRetryDelay: seconds * 1000 } : {}),
    });
  }
  return nonRetryable(AI_FAILURE_TYPES.request_rejected, `${name} refused the request (HTTP ${status})${said}.`, details);
}

/** Network error codes (on the error or one it wraps) in words; anything else is "the connection failed". */
const TRANSPORT_REASONS: Array<[RegExp, string]> = [
  [/^ECONNREFUSED$/, 'the connection was refused'],
  [/^(ENOTFOUND|EAI_AGAIN)$/, 'its address could not be found'],
  [/^(ECONNRESET|EPIPE|UND_ERR_SOCKET|UND_ERR_CLOSED)$/, 'the connection was dropped'],
  [/^(ETIMEDOUT|UND_ERR_CONNECT_TIMEOUT|UND_ERR_HEADERS_TIMEOUT|UND_ERR_BODY_TIMEOUT)$/, 'the connection timed out'],
  [/^(EHOSTUNREACH|ENETUNREACH)$/, 'its network could not be reached'],
  [/CERT|TLS|SSL|SELF_SIGNED/, 'its certificate was not accepted'],
];

function transportReason(cause: unknown): string {
  let current: unknown = cause;
  for (let depth = 0; current && typeof current === 'object' && depth < 5; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') {
      const known = TRANSPORT_REASONS.find(([pattern]) => pattern.test(code));
      if (known) return known[1];
    }
    current = (current as { cause?: unknown }).cause;
  }
  return 'the connection failed';
}

/** A call that never got an HTTP status: connection refused, DNS, a dropped connection. Retryable. */
export function failureForTransport(provider: HostedAiProvider, cause: unknown): ApplicationFailure {
  return ApplicationFailure.create({
    type: AI_FAILURE_TYPES.unavailable,
    message: `${aiProviderName(provider, true)} could not be reached from this server: ${transportReason(cause)}.`,
    nonRetryable: false,
    details: [{ provider, status: null }],
  });
}

/** A call whose answer did not come within its timeout (the SDK's, or the gateway's own deadline). Retryable. */
export function failureForTimeout(provider: HostedAiProvider, timeout_ms: number): ApplicationFailure {
  return ApplicationFailure.create({
    type: AI_FAILURE_TYPES.unavailable,
    message: `${aiProviderName(provider, true)} did not answer within ${durationInWords(timeout_ms)}.`,
    nonRetryable: false,
    details: [{ provider, status: null, timeout_ms }],
  });
}

export function outputInvalid(provider: AiProvider, message: string): ApplicationFailure {
  return nonRetryable(AI_FAILURE_TYPES.output_invalid, `${aiProviderName(provider, true)} returned output that does not match the schema: ${message}`, {
    provider,
  });
}
