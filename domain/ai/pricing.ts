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
 * The most one hosted call can cost, for a reservation before the call: byte-level tokenizers emit at most one token per
 * UTF-8 byte, so input tokens ≤ the prompt's UTF-8 bytes; output tokens ≤ max_output_tokens. BYOK costs 0.
 */
export function aiCallCreditsMax(input: { byok: boolean; system: string; prompt: string; max_output_tokens: number; credits_per_1k_tokens: number }): number {
  if (input.byok) return hostedCredits(true, 0);
  const encoder = new TextEncoder();
  const input_tokens = encoder.encode(input.system).length + encoder.encode(input.prompt).length;
  return aiCallCredits({ byok: false, input_tokens, output_tokens: input.max_output_tokens, credits_per_1k_tokens: input.credits_per_1k_tokens });
}
