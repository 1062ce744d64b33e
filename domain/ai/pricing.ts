// The price of one AI call in credits (spec: Credit ledger). Pure.

/**
 * Hosted calls (the deployment's provider, the offline heuristic included) cost
 * ceil((input + output tokens) × credits_per_1k / 1000); calls made with the organization's own key cost 0.
 */
/** spec: Customer provider keys — AI work done with the organization's own key costs no credits. Decided here, once. */
export function hostedCredits(byok: boolean, credits: number): number {
  return byok ? 0 : credits;
}

export function aiCallCredits(input: { byok: boolean; input_tokens: number; output_tokens: number; credits_per_1k_tokens: number }): number {
  if (input.byok) return hostedCredits(true, 0);
  const tokens = input.input_tokens + input.output_tokens;
  if (!Number.isInteger(tokens) || tokens < 0)
    throw new Error(`token counts must be non-negative integers (got ${input.input_tokens} + ${input.output_tokens})`);
  if (!Number.isInteger(input.credits_per_1k_tokens) || input.credits_per_1k_tokens < 0)
    throw new Error('credits_per_1k_tokens must be a non-negative integer');
  // Integer arithmetic: tokens × price stays far below 2^53 for any call the gateway allows.
  return Math.ceil((tokens * input.credits_per_1k_tokens) / 1000);
}

/**
 * Input tokens a provider bills for one request beyond the UTF-8 bytes of what we send, with a margin (docs/
 * ai-and-literature.md, "What a reservation counts"): Anthropic adds a tool-use system prompt of about 350 tokens when
 * tools are sent, OpenAI and Google frame each message and the response schema in a few tokens each. One call's
 * allowance for all of it.
 */
export const PROVIDER_REQUEST_OVERHEAD_TOKENS = 1_024;

/** The UTF-8 bytes of a text: byte-level tokenizers emit at most one token per byte in any script. */
function utf8Bytes(text: string): number {
  return new TextEncoder().encode(text).length;
}

/** What one call sends besides its messages and is billed as input: the answer's schema and the tool definitions. */
export type AiCallAttachments = { schema?: unknown; tools?: ReadonlyArray<{ name: string; description: string }> };

/**
 * The most input tokens one call can be billed for: the system text, the prompt, the answer's JSON schema and every tool
 * definition, one token per UTF-8 byte, plus PROVIDER_REQUEST_OVERHEAD_TOKENS.
 */
export function aiCallInputTokensMax(input: { system: string; prompt: string } & AiCallAttachments): number {
  const schema_bytes = input.schema === undefined ? 0 : utf8Bytes(JSON.stringify(input.schema));
  const tool_bytes = (input.tools ?? []).reduce((sum, tool) => sum + utf8Bytes(tool.name) + utf8Bytes(tool.description) + 64, 0);
  return utf8Bytes(input.system) + utf8Bytes(input.prompt) + schema_bytes + tool_bytes + PROVIDER_REQUEST_OVERHEAD_TOKENS;
}

/**
 * The most one hosted call can cost, for a reservation before the call: input tokens ≤ aiCallInputTokensMax, output
 * tokens ≤ max_output_tokens. BYOK costs 0.
 */
export function aiCallCreditsMax(
  input: { byok: boolean; system: string; prompt: string; max_output_tokens: number; credits_per_1k_tokens: number } & AiCallAttachments,
): number {
  if (input.byok) return hostedCredits(true, 0);
  return aiCallCredits({
    byok: false,
    input_tokens: aiCallInputTokensMax(input),
    output_tokens: input.max_output_tokens,
    credits_per_1k_tokens: input.credits_per_1k_tokens,
  });
}

/**
 * What a call is charged when its price meets the job's reservation: at most what is left of it (`limit`), the rest
 * absorbed by the service. A provider that bills more than the reservation's estimate keeps its answer, and the usage
 * row and the ledger say the same thing.
 */
export function chargeWithinLimit(price: number, limit: number | undefined): { credits_charged: number; credits_absorbed: number } {
  if (!Number.isSafeInteger(price) || price < 0) throw new Error(`a call's price must be a non-negative integer, got ${price}`);
  if (limit === undefined || price <= limit) return { credits_charged: price, credits_absorbed: 0 };
  const credits_charged = Math.max(0, limit);
  return { credits_charged, credits_absorbed: price - credits_charged };
}
