// Authoring never asks for a number the intake cites: the offline intake draft keeps the numbers a paragraph
// states as cited claims, and every cited number that fits a slot is proposed with its line as the source, converted to
// the slot's unit with the conversion recorded; a hosted model's proposals pass the same check.
import { describe, expect, it } from 'vitest';
import { citedOpeningHours, conversionHolds, quoteStatesNumber } from '../../domain/authoring/citedNumbers.ts';
import { ruleNextSteps } from '../../domain/authoring/checkpoint.ts';
import {
  type AuthoringDraft,
  applyProposals,
  describeSource,
  draftAuthoringOffline,
  queueTemplate,
  SUGGESTED_REFERENCE_NOTE,
  toWorldSource,
} from '../../domain/authoring/draft.ts';
import type { IntakeSpec } from '../../domain/contracts/intakeSpec.ts';
import { checkCitations, citationLookupFrom } from '../../domain/intake/citations.ts';
import { draftIntakeOffline } from '../../domain/intake/offlineDraft.ts';
import { emptyIntakeSpec } from '../support/intakeSpecs.ts';

const TRIAGE_PARAGRAPH =
  'Our telephone triage service receives 96 referrals a day. Each call takes 12 minutes on average. Three clinicians staff the line from 8am to 8pm.';

/** An intake whose claims cite the given lines of one source, one claim per line. */
function intakeCiting(lines: string[]): IntakeSpec {
  return {
    ...emptyIntakeSpec(),
    claims: lines.map((line, index) => ({
      text: line,
      topic: 'operational' as const,
      provenance: 'user_declared' as const,
      citations: [{ source_id: 'src_a', line_start: index + 1, line_end: index + 1, quote: line }],
    })),
  };
}

function firstCheckpoint(intake: IntakeSpec, draft?: AuthoringDraft) {
  const { slots } = queueTemplate(intake);
  const offline = draftAuthoringOffline({ intake, slots, filled: {}, instructions: null });
  return applyProposals({ draft: draft ?? offline, slots, filled: {}, intake, checkpoint: 1 });
}

const noProposals: AuthoringDraft = { name: 'x', description: 'model', proposals: [], next_steps: [] };

describe('the offline intake draft keeps the numbers a paragraph states', () => {
  it('cites the daily referral count, the call duration and the clinicians staffing the line, each as a claim', () => {
    const spec = draftIntakeOffline([{ id: 'src_t', name: 'triage.txt', status: 'processed', lines: [TRIAGE_PARAGRAPH] }]);
    const quotes = spec.claims.map((claim) => claim.citations[0]!.quote);
    expect(quotes).toEqual(
      expect.arrayContaining([
        'Our telephone triage service receives 96 referrals a day.',
        'Each call takes 12 minutes on average.',
        'Three clinicians staff the line from 8am to 8pm.',
      ]),
    );
    const checked = checkCitations(spec, citationLookupFrom([{ id: 'src_t', status: 'processed', lines: [TRIAGE_PARAGRAPH], belongs_to_project: true }]));
    expect(checked.dropped).toEqual([]);
  });

  it('gives authoring every one of those numbers: no question but the treatment value', () => {
    const spec = draftIntakeOffline([{ id: 'src_t', name: 'triage.txt', status: 'processed', lines: [TRIAGE_PARAGRAPH] }]);
    const result = firstCheckpoint(spec);
    expect(result.filled['arrival_rate']).toMatchObject({
      value: 8,
      unit: 'per_hour',
      source: { kind: 'intake_line', source_id: 'src_t', quote: 'Our telephone triage service receives 96 referrals a day.' },
    });
    expect(result.filled['arrival_rate']!.source).toMatchObject({ conversion: { quoted_value: 96, quoted_unit: 'per_day', factor: 1 / 12 } });
    expect((result.filled['arrival_rate']!.source as { conversion: { basis: string } }).conversion.basis).toMatch(/12 opening hours/);
    expect(result.filled['mean_service']).toMatchObject({
      value: 12,
      unit: 'minutes',
      source: { kind: 'intake_line', quote: 'Each call takes 12 minutes on average.', conversion: null },
    });
    expect(result.filled['servers']).toMatchObject({
      value: 3,
      unit: 'count',
      source: { kind: 'intake_line', quote: 'Three clinicians staff the line from 8am to 8pm.' },
    });
    expect(result.questions.map((question) => question.slot)).toEqual(['treatment.mean_service']);
  });
});

describe('authoring proposes every number the intake cites', () => {
  it('converts a daily count over a stated 24-hour day and reads a from-to duration as baseline and treatment', () => {
    const result = firstCheckpoint(
      intakeCiting(['The line runs 24 hours a day and takes 48 calls a day.', 'The app cuts each consultation from 15 to 9 minutes.', 'Staffed by 2 nurses.']),
    );
    expect(result.filled['arrival_rate']).toMatchObject({ value: 2, source: { conversion: { quoted_value: 48, quoted_unit: 'per_day' } } });
    expect((result.filled['arrival_rate']!.source as { conversion: { basis: string } }).conversion.basis).toMatch(/24-hour day/);
    expect(result.filled['mean_service']?.value).toBe(15);
    expect(result.filled['treatment.mean_service']?.value).toBe(9);
    expect(result.filled['servers']?.value).toBe(2);
    expect(result.questions).toEqual([]);
  });

  it('asks for the hourly rate when the intake cites a daily count but no hours, and says so', () => {
    const result = firstCheckpoint(intakeCiting(['We receive 96 referrals a day.']));
    const question = result.questions.find((q) => q.slot === 'arrival_rate');
    expect(question?.text).toBe('How many patients arrive per hour, on average? The intake cites 96 a day but not the hours they arrive over.');
  });

  it('asks in plain sentences with the unit, never with a JSON pointer or a slot id', () => {
    const result = firstCheckpoint(emptyIntakeSpec());
    expect(result.questions.map((q) => q.text)).toEqual([
      'How many patients arrive per hour, on average?',
      'How many minutes does a clinician spend with each patient today, on average?',
      'How many clinicians are available at the same time?',
      'How many minutes would a clinician spend with each patient with the technology, on average?',
    ]);
    const pointed = firstCheckpoint(emptyIntakeSpec(), {
      ...noProposals,
      proposals: [{ slot: 'servers', value: null, source: null, question: 'What is /settings/servers (count)?' }],
    });
    expect(pointed.questions.find((q) => q.slot === 'servers')?.text).toBe('How many clinicians are available at the same time?');
  });

  it("fills cited numbers a hosted model left out, and checks the model's conversions", () => {
    const intake = intakeCiting(['We receive 96 referrals a day.', 'The clinic is open from 08:00 to 18:00.']);
    const line = { kind: 'intake_line' as const, source_id: 'src_a', line_start: 1, line_end: 1, quote: 'We receive 96 referrals a day.' };
    const converted = { quoted_value: 96, quoted_unit: 'per_day', factor: 0.1, basis: 'over the 10 opening hours on line 2' };
    expect(firstCheckpoint(intake, noProposals).filled['arrival_rate']).toMatchObject({ value: 9.6, source: { conversion: { quoted_value: 96 } } });
    const accepted = firstCheckpoint(intake, {
      ...noProposals,
      proposals: [{ slot: 'arrival_rate', value: 9.6, source: { ...line, conversion: converted }, question: '' }],
    });
    expect(accepted.filled['arrival_rate']).toMatchObject({ value: 9.6, source: { conversion: converted } });
    // A per-hour value with no conversion recorded is not in the quote; wrong arithmetic is no conversion: both fall back to the intake's own reading.
    for (const source of [
      { ...line, conversion: null },
      { ...line, conversion: converted },
    ]) {
      const refused = applyProposals({
        draft: { ...noProposals, proposals: [{ slot: 'arrival_rate', value: 19.2, source, question: '' }] },
        slots: queueTemplate(null).slots,
        filled: {},
        intake,
        checkpoint: 1,
      });
      expect(refused.filled['arrival_rate']).toMatchObject({ value: 9.6 });
    }
  });

  it('cites where the service found the quote, never the source id and lines the model gave', () => {
    const intake = intakeCiting(['The clinic is open from 08:00 to 18:00.', 'Each review takes 25 minutes.']);
    const made_up = { kind: 'intake_line' as const, source_id: 'src_invented', line_start: 40, line_end: 41, quote: 'takes 25 minutes', conversion: null };
    const result = applyProposals({
      draft: { ...noProposals, proposals: [{ slot: 'mean_service', value: 25, source: made_up, question: '' }] },
      slots: queueTemplate(null).slots,
      filled: {},
      intake,
      checkpoint: 1,
    });
    expect(result.filled['mean_service']).toMatchObject({
      value: 25,
      source: { kind: 'intake_line', source_id: 'src_a', line_start: 2, line_end: 2, quote: 'takes 25 minutes' },
    });
    // a quote the intake does not hold is no source at all, whatever lines it names
    const nowhere = applyProposals({
      draft: { ...noProposals, proposals: [{ slot: 'mean_service', value: 30, source: { ...made_up, quote: 'takes 30 minutes' }, question: '' }] },
      slots: queueTemplate(null).slots,
      filled: {},
      intake: intakeCiting(['The clinic is open from 08:00 to 18:00.']),
      checkpoint: 1,
    });
    expect(nowhere.filled['mean_service']).toBeUndefined();
    expect(nowhere.questions.find((question) => question.slot === 'mean_service')?.unsourced_proposal).toEqual({ value: 30, proposed_by: 'ai_hypothesis' });
  });

  it('reads numbers as digits or words, never inside another word, and knows which conversions hold', () => {
    expect(quoteStatesNumber('Three clinicians', 3)).toBe(true);
    expect(quoteStatesNumber('1,200 calls a week', 1200)).toBe(true);
    expect(quoteStatesNumber('someone calls', 1)).toBe(false);
    expect(quoteStatesNumber('room 312', 12)).toBe(false);
    expect(conversionHolds({ quoted_value: 2, quoted_unit: 'hours', factor: 60, basis: 'hours to minutes' }, 'minutes', 120)).toBe(true);
    expect(conversionHolds({ quoted_value: 2, quoted_unit: 'hours', factor: 30, basis: 'made up' }, 'minutes', 60)).toBe(false);
    expect(conversionHolds({ quoted_value: 96, quoted_unit: 'per_day', factor: 1 / 30, basis: 'a 30-hour day' }, 'per_hour', 3.2)).toBe(false);
    expect(citedOpeningHours(intakeCiting(['Open 9am to 5pm on weekdays.']))?.hours).toBe(8);
    expect(citedOpeningHours(intakeCiting(['The service is open 10 hours a day.']))?.hours).toBe(10);
  });
});

describe('a number from a reference the model names', () => {
  const intake = intakeCiting(['The clinic is open from 08:00 to 18:00.']);
  const fromReference = (reference: string) =>
    applyProposals({
      draft: { ...noProposals, proposals: [{ slot: 'mean_service', value: 14, source: { kind: 'reference', reference }, question: '' }] },
      slots: queueTemplate(null).slots,
      filled: {},
      intake,
      checkpoint: 1,
    });

  it('is labelled suggested by the AI and not verified, in the checkpoint and in the saved world', () => {
    const result = fromReference('Smith et al. 2019, BMJ');
    const value = result.filled['mean_service']!;
    expect(value.source).toEqual({ kind: 'reference', reference: 'Smith et al. 2019, BMJ', suggested_by_ai: true });
    expect(toWorldSource(value.source)).toEqual({ kind: 'literature', reference: 'Smith et al. 2019, BMJ', note: SUGGESTED_REFERENCE_NOTE });
    expect(describeSource(value.source)).toMatch(/suggested by the AI, not verified/);
    // a user's own reference is not a hypothesis
    expect(toWorldSource({ kind: 'reference', reference: 'our audit 2024' })).toEqual({ kind: 'literature', reference: 'our audit 2024' });
  });

  it('asks someone to verify the reference, and approve says how many settings rest on unverified references', () => {
    const { world, slots } = queueTemplate(null);
    const filled = Object.fromEntries(
      slots.map((slot) => [
        slot.id,
        {
          value: slot.unit === 'count' ? 2 : 1,
          unit: slot.unit,
          source:
            slot.id === 'mean_service' || slot.id === 'servers'
              ? { kind: 'reference' as const, reference: `Ref for ${slot.id}`, suggested_by_ai: true }
              : { kind: 'assumption' as const, rationale: 'stated' },
        },
      ]),
    );
    const steps = ruleNextSteps({ world, problems: [], questions: [], filled, intake: null, smoke: null, warnings: [] });
    const verify = steps.filter((step) => step.kind === 'verify_reference');
    expect(verify).toHaveLength(2);
    expect(verify[0]!.message).toMatch(/reference the AI suggested and no one has checked: “Ref for /);
    expect(steps.find((step) => step.kind === 'approve_and_run')?.message).toMatch(
      /2 settings rest on a reference the AI suggested that no one has verified yet/,
    );
  });
});
