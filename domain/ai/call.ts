// The AI-call activity's input and output. Pure and serializable: workflows build the input and
// read the output; the schema and the offline heuristic travel by name (domain/ai/registry.ts).
import { Type, type Static } from 'typebox';
import type { AiCallProvider } from './keys.ts';
import { HOSTED_AI_PROVIDERS } from './providers.ts';

export const AI_CALL_SUBJECT_KIND_MAX = 32;
/** Tool definitions one call may carry. */
export const AI_CALL_TOOLS_MAX = 16;

/**
 * A tool the model may name in its answer (a tool of the registry, GET /v1/tools): its name, what it does and what it
 * needs. The model is never asked to call it: the answer's schema is the only thing it returns.
 */
export const AiToolDefinition = Type.Object(
  {
    name: Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' }),
    description: Type.String({ minLength: 1, maxLength: 2000 }),
  },
  { additionalProperties: false },
);
export type AiToolDefinition = Static<typeof AiToolDefinition>;

export const AiCallInput = Type.Object(
  {
    org_id: Type.String({ minLength: 1, maxLength: 64 }),
    /** The evaluation subject the call is metered against (a project's intake draft, review, session, ...). */
    subject: Type.Object(
      {
        project_id: Type.Union([Type.String({ minLength: 1, maxLength: 64 }), Type.Null()]),
        kind: Type.String({ minLength: 1, maxLength: AI_CALL_SUBJECT_KIND_MAX }),
        id: Type.String({ minLength: 1, maxLength: 64 }),
      },
      { additionalProperties: false },
    ),
    /** What the call does ('intake_draft', 'review_judge', ...): names the offline heuristic and labels the usage row. */
    task: Type.String({ pattern: '^[a-z][a-z0-9_.-]{0,63}$' }),
    /** The organization's own key for this provider (spec: Provider keys endpoints), or null for the deployment's provider. */
    byok_provider: Type.Union([Type.Enum(HOSTED_AI_PROVIDERS), Type.Null()]),
    system: Type.String(),
    prompt: Type.String(),
    /** A schema registered with registerAiSchema. */
    schema_name: Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' }),
    /** Handed to the offline heuristic registered for `task` when the offline provider answers. */
    offline_input: Type.Optional(Type.Unknown()),
    max_output_tokens: Type.Optional(Type.Integer({ minimum: 1 })),
    /**
     * The most this call may charge: what is left of the job's reservation. A provider that reports more usage than
     * this keeps its answer; the call is charged this much and the rest is recorded as absorbed by the service.
     * Absent: no cap (a call outside the credit saga).
     */
    credits_limit: Type.Optional(Type.Integer({ minimum: 0 })),
    /** Tools the model may name in its answer, sent as the provider's tool definitions where it has them. */
    tools: Type.Optional(Type.Array(AiToolDefinition, { maxItems: AI_CALL_TOOLS_MAX })),
  },
  { additionalProperties: false },
);
export type AiCallInput = Static<typeof AiCallInput>;

export type AiCallResult<T = unknown> = {
  /** The reply, checked against the registered schema. */
  object: T;
  usage_id: string;
  provider: AiCallProvider;
  model: string;
  byok: boolean;
  /** true when the offline heuristic answered (ARCHITECTURE.md: AI and literature). */
  heuristic: boolean;
  input_tokens: number;
  output_tokens: number;
  duration_ms: number;
  /** What the calling workflow adds to its meter (0 for BYOK; at most credits_limit); the activity does not touch the ledger. */
  credits_charged: number;
  /** The call's price beyond credits_limit: recorded on the usage row, never charged. */
  credits_absorbed: number;
};

/** The `type` of the ApplicationFailures callModel throws before reaching the gateway (the gateway's own: AI_FAILURE_TYPES). */
/** The `type` of every ApplicationFailure the gateway throws; workflows match on these. */
export const AI_FAILURE_TYPES = {
  /** 401/403 from the provider: the key is wrong or lacks access. Not retryable. */
  auth_rejected: 'ProviderAuthRejected',
  /** 408/409/429/5xx, timeouts and connection errors. Retryable; nothing is charged. */
  unavailable: 'ProviderUnavailable',
  /** Other 4xx: the provider refused the request (unknown model, unsupported schema). Not retryable. */
  request_rejected: 'ProviderRequestRejected',
  /** The reply was not JSON or did not match the schema. Not retryable. */
  output_invalid: 'ProviderOutputInvalid',
  /** No model, no key or a bad request shape: a deployment or caller problem. Not retryable. */
  not_configured: 'ProviderNotConfigured',
} as const;
export type AiFailureType = (typeof AI_FAILURE_TYPES)[keyof typeof AI_FAILURE_TYPES];

export const AI_CALL_FAILURE_TYPES = {
  /** The chosen provider has no configured model (503 at the API). Not retryable. */
  provider_not_configured: 'PROVIDER_NOT_CONFIGURED',
  /** byok_provider is set but the organization has no live key for it (422 at the API). Not retryable. */
  key_missing: 'ProviderKeyMissing',
  /** The stored key could not be decrypted (wrong SERVICE_MASTER_KEY or altered row). Not retryable. */
  key_undecryptable: 'ProviderKeyUndecryptable',
  /** The input is malformed, the schema is not registered, or no offline heuristic exists for the task. Not retryable. */
  bad_input: 'AiCallInvalid',
  /** A provider call failed in a way the gateway did not type (retried; the message is redacted). */
  call_failed: 'AiCallError',
} as const;
