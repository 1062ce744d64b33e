// Named limits of the concept review (STYLE.md: every growing thing has a limit) and the credit estimate they bound.
// The estimate is the reservation the review runs under, so it is computed from the same limits the prompts obey.
import { PROVIDER_REQUEST_OVERHEAD_TOKENS } from '../ai/pricing.ts';
import { CLAIMS_PER_DIMENSION_MAX } from '../contracts/conceptReview.ts';
import { DIMENSION_IDS } from './dimensions.ts';

/** Records asked from Europe PMC for one review. */
export const REVIEW_SEARCH_RECORDS_MAX = 25;
/** Characters of one record's text (open full text, else its abstract) shown to the drafter. */
export const RECORD_CHARS_IN_DRAFT_PROMPT_MAX = 3500;
/** The whole drafting request (system + user message) in UTF-8 bytes; records beyond it are left out of the prompt. */
export const DRAFT_PROMPT_BYTES_MAX = 80_000;
export const DRAFT_OUTPUT_TOKENS_MAX = 16_000;
/** Characters of a claim and of a quote (the draft schema's maxLength). */
export const DRAFT_CLAIM_CHARS_MAX = 600;
export const DRAFT_QUOTE_CHARS_MAX = 600;
/** One judging request (system + user message), in UTF-8 bytes. */
export const JUDGE_PROMPT_BYTES_MAX = 3000;
export const JUDGE_OUTPUT_TOKENS_MAX = 256;
/**
 * The answer schemas' JSON in UTF-8 bytes, at most (providers bill the schema as input; a unit test holds the real
 * schemas to these).
 */
export const DRAFT_SCHEMA_BYTES_MAX = 4_000;
export const JUDGE_SCHEMA_BYTES_MAX = 1_000;
/** Claims one review can carry, so judge calls are bounded too. */
export const CLAIMS_PER_REVIEW_MAX = DIMENSION_IDS.length * CLAIMS_PER_DIMENSION_MAX;
/**
 * Prompts are bounded in UTF-8 bytes and the reservation counts one token per byte: byte-level tokenizers emit at most
 * one token per byte in any script, so settlement at actual usage stays inside the reservation (as intake drafting does).
 */
export function utf8Bytes(text: string): number {
  return new TextEncoder().encode(text).length;
}

/** The longest prefix of `text` within `max_bytes` UTF-8 bytes, never cutting a character in two. */
export function clipUtf8(text: string, max_bytes: number): string {
  if (max_bytes <= 0) return '';
  const bytes = new TextEncoder().encode(text);
  if (bytes.length <= max_bytes) return text;
  let end = max_bytes;
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end -= 1; // back to the start of a character
  return new TextDecoder().decode(bytes.subarray(0, end));
}

/**
 * Upper estimate of tokens for one review: one drafting call at its limits plus one judging call per possible claim;
 * each call's input counts its prompt, its answer schema and the provider's own framing (domain/ai/pricing.ts).
 */
export function reviewTokenEstimate(): { draft_tokens: number; judge_tokens: number; total_tokens: number } {
  const draft_tokens = DRAFT_PROMPT_BYTES_MAX + DRAFT_SCHEMA_BYTES_MAX + PROVIDER_REQUEST_OVERHEAD_TOKENS + DRAFT_OUTPUT_TOKENS_MAX;
  const judge_call_tokens = JUDGE_PROMPT_BYTES_MAX + JUDGE_SCHEMA_BYTES_MAX + PROVIDER_REQUEST_OVERHEAD_TOKENS + JUDGE_OUTPUT_TOKENS_MAX;
  const judge_tokens = CLAIMS_PER_REVIEW_MAX * judge_call_tokens;
  return { draft_tokens, judge_tokens, total_tokens: draft_tokens + judge_tokens };
}

/** Credits reserved for a review run with hosted inference (BYOK costs 0: spec What the service does 7). */
export function reviewCreditsEstimate(credits_per_1k_tokens: number): number {
  if (!Number.isInteger(credits_per_1k_tokens) || credits_per_1k_tokens < 0) throw new Error('credits_per_1k_tokens must be a non-negative integer');
  return Math.ceil((reviewTokenEstimate().total_tokens * credits_per_1k_tokens) / 1000);
}

export function reviewCostBasis(credits_per_1k_tokens: number): string {
  const t = reviewTokenEstimate();
  return (
    `upper estimate: one drafting call (${t.draft_tokens} tokens: up to ${DRAFT_PROMPT_BYTES_MAX} prompt bytes (UTF-8) at one token per byte, ` +
    `its answer's schema and the provider's framing, plus ${DRAFT_OUTPUT_TOKENS_MAX} output tokens) and up to ${CLAIMS_PER_REVIEW_MAX} judging calls (${t.judge_tokens} tokens), ` +
    `at ${credits_per_1k_tokens} ${credits_per_1k_tokens === 1 ? 'credit' : 'credits'} per 1,000 tokens of the service's AI. This is reserved at the start and settled at actual usage; ` +
    'with your own AI provider key the review costs no credits.'
  );
}
