// What an AI call costs and what its job reserves for it: the reservation counts everything a provider bills as input
// (the messages, the answer's schema, the tool definitions, the provider's own framing), and a call billed beyond what is
// left of the reservation is charged that much, the rest absorbed.
import { describe, expect, it } from 'vitest';
import { aiCallCreditsMax, aiCallInputTokensMax, chargeWithinLimit, PROVIDER_REQUEST_OVERHEAD_TOKENS } from '../../domain/ai/pricing.ts';
import { AuthoringDraft } from '../../domain/authoring/draft.ts';
import { authoringCallBound, authoringDraftSystem, authoringToolDefinitions } from '../../domain/authoring/register.ts';
import { IntakeSpec } from '../../domain/contracts/intakeSpec.ts';
import { intakeDraftCreditsBound, intakeDraftSystem, INTAKE_DRAFT_MAX_OUTPUT_TOKENS } from '../../domain/intake/register.ts';
import { ConceptReviewDraft } from '../../domain/prompts/reviewDraft.ts';
import { EvidenceJudgement } from '../../domain/prompts/reviewJudge.ts';
import { DRAFT_SCHEMA_BYTES_MAX, JUDGE_SCHEMA_BYTES_MAX, utf8Bytes } from '../../domain/reviews/limits.ts';

describe('the reservation of an AI call', () => {
  it('counts the system text, the prompt, the schema, each tool and the provider’s framing, one token per UTF-8 byte', () => {
    const tools = [{ name: 'synthetic_simulation', description: 'Runs a world' }];
    const bare = aiCallInputTokensMax({ system: 'sys', prompt: 'héllo' });
    expect(bare).toBe(3 + 6 + PROVIDER_REQUEST_OVERHEAD_TOKENS);
    const withSchema = aiCallInputTokensMax({ system: 'sys', prompt: 'héllo', schema: IntakeSpec });
    expect(withSchema - bare).toBe(utf8Bytes(JSON.stringify(IntakeSpec)));
    const withTools = aiCallInputTokensMax({ system: 'sys', prompt: 'héllo', tools });
    expect(withTools - bare).toBeGreaterThanOrEqual(utf8Bytes('synthetic_simulation') + utf8Bytes('Runs a world'));
  });

  it('reserves for an intake draft what the provider bills for the IntakeSpec schema it is sent', () => {
    const prompt = 'x'.repeat(1000);
    const credits = intakeDraftCreditsBound({ prompt, byok: false, credits_per_1k_tokens: 1000 });
    const schema_bytes = utf8Bytes(JSON.stringify(IntakeSpec));
    expect(credits).toBe(utf8Bytes(intakeDraftSystem()) + 1000 + schema_bytes + PROVIDER_REQUEST_OVERHEAD_TOKENS + INTAKE_DRAFT_MAX_OUTPUT_TOKENS);
    expect(intakeDraftCreditsBound({ prompt, byok: true, credits_per_1k_tokens: 1000 })).toBe(0);
  });

  it('reserves for an authoring step its schema and the registry’s tools, which the request carries', () => {
    const bound = authoringCallBound('an intake', false, 1000);
    const expected = aiCallCreditsMax({
      byok: false,
      system: authoringDraftSystem(),
      prompt: 'an intake',
      schema: AuthoringDraft,
      tools: authoringToolDefinitions(),
      max_output_tokens: 4000,
      credits_per_1k_tokens: 1000,
    });
    expect(bound.credits).toBe(expected);
    expect(bound.tokens).toBe(expected);
  });

  it('holds the review’s answer schemas within the byte allowances its estimate counts', () => {
    expect(utf8Bytes(JSON.stringify(ConceptReviewDraft))).toBeLessThanOrEqual(DRAFT_SCHEMA_BYTES_MAX);
    expect(utf8Bytes(JSON.stringify(EvidenceJudgement))).toBeLessThanOrEqual(JUDGE_SCHEMA_BYTES_MAX);
  });
});

describe('a call billed beyond its reservation', () => {
  it('is charged what is left of the reservation and the rest is absorbed', () => {
    expect(chargeWithinLimit(392, 300)).toEqual({ credits_charged: 300, credits_absorbed: 92 });
    expect(chargeWithinLimit(392, 0)).toEqual({ credits_charged: 0, credits_absorbed: 392 });
  });

  it('is charged its price when it fits, or when no limit applies', () => {
    expect(chargeWithinLimit(120, 300)).toEqual({ credits_charged: 120, credits_absorbed: 0 });
    expect(chargeWithinLimit(300, 300)).toEqual({ credits_charged: 300, credits_absorbed: 0 });
    expect(chargeWithinLimit(5000, undefined)).toEqual({ credits_charged: 5000, credits_absorbed: 0 });
  });

  it('refuses a price that is not a non-negative integer', () => {
    expect(() => chargeWithinLimit(-1, 10)).toThrow(/non-negative integer/);
    expect(() => chargeWithinLimit(1.5, 10)).toThrow(/non-negative integer/);
  });
});
