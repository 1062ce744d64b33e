// The model check (docs/simulation.md, The model check): the four ways a valid world compares nothing, reported in
// words beside the run estimate and on authoring checkpoints, and authoring asking instead of converting a deadline.
import { describe, expect, it } from 'vitest';
import type { IntakeSpec } from '../../domain/contracts/intakeSpec.ts';
import { answerNote, applyProposals, type AuthoringDraft, queueTemplate } from '../../domain/authoring/draft.ts';
import { ruleNextSteps } from '../../domain/authoring/checkpoint.ts';
import { deadlinePhrase, estimateWithModelCheck, modelCheck, validateWorld } from '../../domain/simulation/index.ts';
import { queueWorld } from '../support/worlds.ts';
import { emptyIntakeSpec } from '../support/intakeSpecs.ts';

const TECHNICAL = /\/[a-z_]+\/\d|_[a-z]+_|\bentity\b|'[a-z]+_[a-z_]+'/;

/** A stable M/M/2 clinic whose treatment shortens the service (no warning stands). */
const stable = () =>
  queueWorld({
    servers: 2,
    arrivals_per_minute: 1,
    mean_service_minutes: 1.5,
    treatment_mean_service_minutes: 1.2,
    horizon_minutes: 20_000,
    warm_up_minutes: 1_000,
  });

describe('the model check', () => {
  it('finds nothing in a stable world whose treatment changes something', () => {
    const world = stable();
    expect(validateWorld(world).problems).toEqual([]);
    expect(modelCheck(world)).toEqual([]);
  });

  it('names a variant that changes nothing: no change, or every change equal to the baseline value', () => {
    const world = stable();
    world.variants[1]!.changes = [{ setting: 'mean_service', value: 1.5 }];
    const [warning] = modelCheck(world);
    expect(warning).toMatchObject({ kind: 'variant_changes_nothing', pointer: '/variants/1' });
    expect(warning!.message).toContain('changes nothing');
    expect(warning!.message).toContain('1.5 minutes');
    expect(warning!.message).not.toMatch(TECHNICAL);
    world.variants[1]!.changes = [];
    expect(modelCheck(world).map((found) => found.kind)).toEqual(['variant_changes_nothing']);
  });

  it('names a resource busy all the time, the step, and what would make it stable (staff or a shorter time)', () => {
    // 1 a minute at a 2,880-minute review ("within 48 hours" taken as the service time) with 2 clinicians.
    const world = stable();
    world.settings.mean_service!.value = 2_880;
    const warnings = modelCheck(world).filter((warning) => warning.kind === 'unstable_queue');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.pointer).toBe('/resources/0');
    const message = warnings[0]!.message;
    expect(message).toContain('“Clinician” would be busy all the time at “Consult”');
    expect(message).toContain('needs at least 2,881'); // enough work to keep 2,880 busy, strictly more needed
    expect(message).toContain('below 2 minutes'); // 2 servers: a mean under 2 minutes keeps up with 1 a minute
    expect(message).not.toMatch(TECHNICAL);
    // The run can still be estimated (and started): the warning rides beside the estimate.
    const estimate = estimateWithModelCheck({ ...world, horizon: 2_000, replications: 2 });
    expect(estimate.warnings.some((warning) => warning.kind === 'unstable_queue')).toBe(true);
  });

  it('names a duration taken from a turnaround or a deadline, not the time the work takes', () => {
    expect(deadlinePhrase('Reviews happen within 48 hours of referral.')).toBe('within 48 hours');
    expect(deadlinePhrase('a two-day turnaround')).toBe('turnaround');
    expect(deadlinePhrase('Each review takes 20 minutes.')).toBeNull();
    const world = stable();
    world.settings.mean_service!.source = { kind: 'user_declared', note: 'intake line 4: "reviews happen within 48 hours"; converted: 48 hours × 60 minutes' };
    const [warning] = modelCheck(world);
    expect(warning).toMatchObject({ kind: 'deadline_as_duration', pointer: '/settings/mean_service' });
    expect(warning!.message).toContain('“within 48 hours”');
    expect(warning!.message).not.toMatch(TECHNICAL);
  });

  it('names a horizon too short for its warm-up, and one too short for the longest step', () => {
    const world = stable();
    world.horizon = 1_500; // 500 measured after a 1,000-minute warm-up
    expect(modelCheck(world)).toEqual([expect.objectContaining({ kind: 'horizon_too_short', pointer: '/horizon' })]);
    expect(modelCheck(world)[0]!.message).toContain('at least 2,000 minutes');
    const long = stable();
    long.settings.servers!.value = 20;
    long.settings.mean_service!.value = 15;
    long.warm_up = 50;
    long.horizon = 150; // 100 measured; a 15-minute consultation needs 150
    expect(modelCheck(long).map((warning) => warning.message)).toEqual([expect.stringContaining('few patients would finish')]);
  });
});

describe('authoring with the model check', () => {
  it('never says the model is complete while a warning stands', () => {
    const world = stable();
    const input = { world, problems: [], questions: [], filled: {}, intake: null, smoke: null };
    expect(ruleNextSteps({ ...input, warnings: [] }).some((step) => step.kind === 'approve_and_run')).toBe(true);
    world.variants[1]!.changes = [];
    const steps = ruleNextSteps({ ...input, warnings: modelCheck(world) });
    expect(steps.some((step) => step.kind === 'approve_and_run')).toBe(false);
    expect(steps.find((step) => step.kind === 'variant_changes_nothing')?.message).toContain('changes nothing');
  });

  it('keeps with an answer that it gives back the turnaround it was asked about, beside the person’s own note', () => {
    const question = {
      text: 'The intake says “within 48 hours”: that is a turnaround or a deadline, not the time the work takes. How many minutes?',
      unit: 'minutes',
    };
    expect(answerNote(question, 2_880, 'Our service standard')).toBe('Our service standard (the same time as “within 48 hours” in the intake)');
    expect(answerNote({ ...question, unit: 'hours' }, 48, undefined)).toBe('the same time as “within 48 hours” in the intake');
    expect(answerNote(question, 25, 'Timed audit')).toBe('Timed audit');
    expect(answerNote({ text: 'How many minutes?', unit: 'minutes' }, 2_880, undefined)).toBeUndefined();
  });

  it('asks instead of converting a time the intake gives as a deadline', () => {
    const quote = 'Reviews happen within 48 hours of referral.';
    const intake: IntakeSpec = {
      ...emptyIntakeSpec(),
      claims: [{ text: quote, topic: 'operational', provenance: 'user_declared', citations: [{ source_id: 'src_1', line_start: 4, line_end: 4, quote }] }],
    };
    const { slots } = queueTemplate(null);
    const draft: AuthoringDraft = {
      name: 'Review service',
      description: '',
      proposals: [
        {
          slot: 'mean_service',
          value: 2_880,
          source: {
            kind: 'intake_line',
            source_id: 'src_1',
            line_start: 4,
            line_end: 4,
            quote,
            conversion: { quoted_value: 48, quoted_unit: 'hours', factor: 60, basis: '48 hours × 60 minutes' },
          },
          question: '',
        },
      ],
      next_steps: [],
    };
    const { filled, questions } = applyProposals({ draft, slots, filled: {}, intake, checkpoint: 1 });
    expect(filled.mean_service).toBeUndefined();
    const question = questions.find((candidate) => candidate.slot === 'mean_service')!;
    expect(question.text).toContain('“within 48 hours”');
    expect(question.text).toContain('not the time the work takes');
    expect(question.unsourced_proposal).toBeNull();
  });
});
