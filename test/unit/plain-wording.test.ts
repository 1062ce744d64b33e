// The service's own sentences that reach people through every client (the app, the SDK, the CLI, the MCP tools, the
// export ZIP) read as plain words: no field name, contract name, HTTP path or JSON pointer, units in words. Codes and
// field values stay as they are.
import { describe, expect, it } from 'vitest';
import { worldNotSavedMessage } from '../../api/routes/worlds/saveWorld.ts';
import { REVIEW_STATE_DESCRIPTIONS } from '../../api/routes/reviews/present.ts';
import { readFileSync } from 'node:fs';
import { ruleNextSteps } from '../../domain/authoring/checkpoint.ts';
import type { WorldSpec } from '../../domain/contracts/worldSpec.ts';
import { planEvaluations } from '../../domain/plans/planner.ts';
import { summarySentence } from '../../domain/simulation/results.ts';
import { problemSentence, problemWords } from '../../clients/sdk/src/words/problemWords.ts';
import { inSentence } from '../../clients/sdk/src/words/sentences.ts';
import { validateWorld } from '../../domain/simulation/validate.ts';
import { durationWords, scaledValueWords, scaleWords } from '../../clients/sdk/src/words/resultWords.ts';
import { placeInWorld, settingValueWords, shownInterval } from '../../clients/sdk/src/words/simulationWords.ts';
import { repetitionsWords, problemText, stillWaitingWords, windowWords } from '../../web/src/world/model.ts';
import { ideaStageIntake, prototypeWithPathwayIntake } from '../support/reviewFixtures.ts';

/** What a person should not have to read: snake_case names, contract names, HTTP paths, JSON pointers, code spans. */
const TECHNICAL = /\b[a-z]+(?:_[a-z0-9]+)+\b|\bWorldSpec\b|\bConceptReview\b|\/v1\/|\b(?:GET|POST) \/|(?:^|\s)\/[a-z_]+\/|`/;

describe("the planner's sentences", () => {
  it('name no field, contract or endpoint in explanations, cost bases, approvals and notes', () => {
    for (const intake of [ideaStageIntake(), prototypeWithPathwayIntake()]) {
      const plan = planEvaluations({ intake, intake_revision: 1, credits_per_1k_tokens: 1 });
      const texts = [
        ...plan.evaluations.flatMap((e) => [e.explanation, e.cost_basis]),
        ...plan.approvals_needed.flatMap((a) => [a.reason, a.not_needed_when ?? '']),
        plan.estimated_cost.basis,
        ...plan.notes,
      ];
      expect(texts.filter((text) => TECHNICAL.test(text))).toEqual([]);
    }
    const prototype = planEvaluations({ intake: prototypeWithPathwayIntake(), intake_revision: 1, credits_per_1k_tokens: 1 });
    expect(prototype.approvals_needed[0]!.not_needed_when).toBe('you start the review with your own AI provider key; then it costs no credits');
    expect(prototype.estimated_cost.basis).toContain('each simulation run is estimated from its world when you set it up');
  });
});

describe("a review's state in words", () => {
  it('is a plain sentence for every state', () => {
    for (const [state, description] of Object.entries(REVIEW_STATE_DESCRIPTIONS)) {
      expect(description, state).not.toMatch(TECHNICAL);
      expect(description, state).toMatch(/^[A-Z].*\.$/);
    }
    expect(REVIEW_STATE_DESCRIPTIONS.succeeded).toBe('Finished; the review can be read and downloaded.');
  });
});

describe('the refusal of an invalid world', () => {
  it('says what to do first, then where the first problem is, without a JSON pointer or an endpoint', () => {
    const message = worldNotSavedMessage([
      { pointer: '/steps/2/duration/mean', message: 'must be greater than 0' },
      { pointer: '/settings/arrival_rate', message: 'unknown unit' },
    ]);
    expect(message).toBe(
      'The world was not saved: fix the 2 problems listed with this message, then save again. The first is at step 3, duration, mean: must be greater than 0.',
    );
    expect(worldNotSavedMessage([{ pointer: '', message: 'a world must be a JSON object.' }])).toBe(
      'The world was not saved: fix the problem listed with this message, then save again. The first is at the world as a whole: a world must be a JSON object.',
    );
    expect(placeInWorld('/settings/arrival_rate/value')).toBe('setting “arrival rate”, value');
    expect(settingValueWords(0.3, 'probability')).toBe('30%');
    expect(settingValueWords(4, 'per_hour')).toBe('4 per hour');
    // a count is exact, and thousands are grouped as people write them
    expect(settingValueWords(1234, 'count')).toBe('1,234');
    expect(settingValueWords(12_480, 'per_year')).toBe('12,500 per year');
    expect(settingValueWords(0.000123456, 'hours')).toBe('0.000123 hours');
  });
});

describe("an authoring checkpoint's next steps", () => {
  it('name settings, variants and measures by their labels, with values in words, and no slot id or JSON pointer', () => {
    const world = JSON.parse(readFileSync(new URL('../../samples/worlds/remote_monitoring_admissions.json', import.meta.url), 'utf8')) as WorldSpec;
    const steps = ruleNextSteps({
      world,
      problems: [
        { pointer: '/steps/1/duration', message: 'must be greater than 0' },
        { pointer: '/steps/2/renege_to', message: 'renege_to needs renege_after (the maximum wait) or patience' },
      ],
      warnings: [],
      questions: [],
      filled: {
        beds: { value: 5, unit: 'count', source: { kind: 'assumption', rationale: 'declared' } },
        'remote_monitoring.p_admission': { value: 0.22, unit: 'probability', source: { kind: 'assumption', rationale: 'illustrative' } },
      },
      intake: null,
      smoke: null,
    });
    const messages = steps.map((step) => step.message);
    expect(messages).toContain('Step 2, duration: must be greater than 0');
    // a problem the checker words: the step by its name, what to change, no field name
    expect(messages).toContain('“Admission”: patients who give up waiting need a maximum wait or a patience time.');
    expect(messages.find((m) => m.startsWith('Remote monitoring: '))).toMatch(/ \(22%\) rests on an assumption: cite a measurement or a reference for it\.$/);
    expect(messages.some((m) => / \(5\) rests on an assumption/.test(m))).toBe(true);
    expect(messages.find((m) => m.includes('time window'))).toMatch(
      /^[A-Z].* has no time window of its own: it is measured from the end of the warm-up \(90 days in\) to the end of the simulated period \(730 days\)\.$/,
    );
    expect(messages.filter((m) => TECHNICAL.test(m) || /\bp_|\.p_|= /.test(m))).toEqual([]);
  });
});

describe('measured values in words', () => {
  it('labels units in words while the unit codes stay', () => {
    expect(scaleWords('per_arrival', 'minutes')).toBe('per arrival');
    expect(scaleWords('per_day', 'minutes')).toBe('per day');
    expect(scaledValueWords(0.4, 'count_per_arrival', 'per_arrival')).toBe('0.4 per arrival');
    expect(scaledValueWords(0.852, 'fraction', 'share_of_time')).toBe('85.2%');
    expect(scaledValueWords(0.05, 'fraction', 'share_of_time', { difference: true })).toBe('5 percentage points');
    expect(scaledValueWords(null, 'hours', 'time')).toBe('not known');
  });

  it('keeps the interval of a wait at or above 0 with a note, and the stored bounds as they are', () => {
    const summary = { mean: 0.8, unit: 'hours', interval_95: { low: -1.61, high: 3.21, level: 0.95 as const }, n: 5 };
    const wait = { id: 'waiting_time', kind: 'time_between', unit: 'hours' };
    expect(summarySentence('The technology', wait, 'time', summary)).toBe(
      'In the synthetic model, waiting time under the technology: 48 minutes on average (95% interval 0 to 193 minutes, from 5 repetitions: too few repetitions to say more precisely).',
    );
    expect(summary.interval_95.low).toBe(-1.61);
    expect(shownInterval(0.5, 1.2, 'fraction')).toEqual({ low: 0.5, high: 1, clipped: true });
    expect(shownInterval(0.5, 0.9, 'fraction')).toEqual({ low: 0.5, high: 0.9, clipped: false });
    const admissions = { id: 'admissions', kind: 'count', unit: 'count_per_day' };
    expect(summarySentence('Usual care', admissions, 'per_day', { mean: 2, unit: 'count_per_day', interval_95: { low: 1, high: 3 }, n: 10 })).toBe(
      'In the synthetic model, admissions under usual care: 2 a day on average (95% interval 1 to 3 a day, from 10 repetitions).',
    );
  });
});

describe("the run screen's words (web/src/world/model.ts)", () => {
  it('says the repetitions once, per variant', () => {
    expect(repetitionsWords(10, 10, 2)).toBe('All 10 repetitions done: 5 for each of the 2 variants');
    expect(repetitionsWords(3, 10, 2)).toBe('3 of 10 repetitions done (5 for each of the 2 variants)');
    expect(repetitionsWords(7, 10, 0)).toBe('7 of 10 repetitions done');
  });
});

describe('what was still waiting when the simulation ended (web/src/world/model.ts)', () => {
  it('is said beside a time or a queue, in patients, and not beside a count or a share of busy time', () => {
    expect(stillWaitingWords('queue_length', 12)).toBe('On average 12 patients were still waiting in this queue when the simulation ended.');
    expect(stillWaitingWords('queue_length', 1)).toBe('On average 1 patient was still waiting in this queue when the simulation ended.');
    expect(stillWaitingWords('time_between', 3.4)).toBe('On average about 3 patients had started this time but not finished it when the simulation ended.');
    // fewer than half a patient on average is none
    expect(stillWaitingWords('time_between', 0.2)).toBeNull();
    // beside a count it is the people anywhere in the model, beside utilisation another queue: nothing a reader can use
    expect(stillWaitingWords('count', 40)).toBeNull();
    expect(stillWaitingWords('utilisation', 5)).toBeNull();
    // nothing left over is not news
    expect(stillWaitingWords('queue_length', 0)).toBeNull();
    expect(stillWaitingWords('time_between', null)).toBeNull();
  });
});

describe("the model checker's problems in words (clients/sdk/src/words/problemWords.ts)", () => {
  const sample = (name: string) => JSON.parse(readFileSync(new URL(`../../samples/worlds/${name}.json`, import.meta.url), 'utf8')) as WorldSpec;
  /** The GP triage sample with one change made to it, and what the checker says about the result. */
  const problemsOf = (change: (world: WorldSpec & { steps: Array<Record<string, unknown>> }) => void) => {
    const world = sample('gp_triage_digital_front_door') as WorldSpec & { steps: Array<Record<string, unknown>> };
    change(world);
    return { world, problems: validateWorld(world).problems };
  };

  it('names the step by its name and says what to change, without a field name', () => {
    const { world, problems } = problemsOf((w) => {
      delete w.steps[0]!.renege_after;
    });
    const renege = problems.find((p) => p.pointer === '/steps/0/renege_to')!;
    // the API's problem keeps its pointer and its message for developers
    expect(renege.message).toBe('renege_to needs renege_after (the maximum wait) or patience');
    expect(problemSentence(world, renege)).toBe('“Navigator triage”: patients who give up waiting need a maximum wait or a patience time.');
    const web = problemText(world as never, renege);
    expect(web).toBe('“Navigator triage”: patients who give up waiting need a maximum wait or a patience time.');
  });

  it('names resources by their labels and steps that a pointer leads to', () => {
    const { world, problems } = problemsOf((w) => {
      w.steps[0]!.resource = 'receptionist';
      w.steps[0]!.next = 'nowhere';
    });
    const sentences = problems.map((p) => problemSentence(world, p));
    expect(sentences).toContain('“Navigator triage”: uses a resource “Receptionist” that does not exist.');
    expect(sentences).toContain('“Navigator triage”: leads to a step “Nowhere” that does not exist.');
  });

  it('leaves no field name, pointer or code in any sentence it knows, and lets the caller word the rest', () => {
    const known = [
      'give either renege_after (one maximum wait) or patience (a distribution), not both',
      'pre-emption needs queue: "priority" and a priority_attribute',
      'a priority queue needs priority_attribute (lower values are served first)',
      "priority_attribute is set but queue is not 'priority'",
      "attribute 'urgency_score' is not assigned by any arrival or assign step",
      "exactly one variant must have role 'baseline' (found 2)",
      "at least one variant must have role 'treatment'",
      "unit mismatch: setting 'mean_wait' is in 'per_hour' but this field needs a time unit (minutes, hours, days)",
      'min_size must not exceed max_size',
      "branch probabilities of step 'triage' sum to 0.9, not 1",
      "step 'gave_up' never leads to an exit",
      "an entity that seizes 'bed' here can leave the system before a release of 'bed'",
      "step 'elective_bed' has no queue_limit, so nobody is turned away there",
      'end_hour must be after start_hour',
      "unit 'count' does not match denominator 'arrival' (expected 'count_per_arrival')",
    ];
    for (const message of known) {
      const words = problemWords(message);
      expect(words, message).not.toBeNull();
      expect(words, message).not.toMatch(TECHNICAL);
      expect(words, message).not.toMatch(/'[a-z_]+'|\bentity\b|\bseize|\brenege|\bbaseline'|\bdenominator\b/);
    }
    expect(problemWords("branch probabilities of step 'triage' sum to 0.9, not 1")).toBe('the chances of the branches of “Triage” add up to 90%, not 100%');
    expect(problemWords('must be greater than 0')).toBeNull();
    // a variant's own steps: the same words, the variant named by the problem's place
    const treated = sample('gp_triage_digital_front_door');
    const variant_problem = {
      pointer: '/variants/1/structure',
      message:
        "under variant 'treatment' (its steps in order: the written steps as changed, then the added ones), /steps/0/renege_to: renege_to needs renege_after (the maximum wait) or patience",
    };
    expect(problemSentence(treated, variant_problem)).toBe(
      `The variant “${treated.variants[1]!.label}”: in this variant's own steps, patients who give up waiting need a maximum wait or a patience time.`,
    );
    expect(
      problemWords("under variant 'with_app' (its steps in order: the written steps as changed, then the added ones), /steps/0: must be greater than 0"),
    ).toBeNull();
    expect(problemText(null, { pointer: '/horizon', message: 'must be greater than 0' })).toBe('Simulated period: must be greater than 0');
  });
});

describe('words set inside a sentence (clients/sdk/src/words/sentences.ts, the app and the offline review alike)', () => {
  it('lower-cases a capitalised first word and keeps acronyms and lower-case words as they are', () => {
    expect(inSentence('Current pathway')).toBe('current pathway');
    expect(inSentence('GP appointments')).toBe('GP appointments');
    expect(inSentence('already lower')).toBe('already lower');
    expect(inSentence('A')).toBe('A');
    expect(inSentence('')).toBe('');
  });
});

describe("a measure's window on the authoring page, in the units people say", () => {
  it('says a warm-up and a period in days or hours, not thousands of minutes', () => {
    expect(windowWords({ start: 1440, end: 10080, unit: 'minutes' })).toBe('from 1 day to 7 days into the simulated time');
    expect(windowWords({ start: 90, end: 730, unit: 'days' })).toBe('from 90 days to 730 days into the simulated time');
    expect(windowWords({ start: 0, end: 480, unit: 'minutes' })).toBe('over the first 8 hours of the simulated time');
    expect(windowWords({ start: 30, end: 1470, unit: 'minutes' })).toBe('from 30 minutes to 24.5 hours into the simulated time');
  });

  it("says the model check's and the checkpoint's durations the same way (durationWords of @crucible/sdk/words)", () => {
    expect(durationWords(2_880, 'minutes')).toBe('2 days');
    expect(durationWords(1_440, 'minutes')).toBe('1 day');
    expect(durationWords(150, 'minutes')).toBe('2.5 hours');
    expect(durationWords(200, 'minutes')).toBe('200 minutes');
    expect(durationWords(28_800, 'minutes')).toBe('20 days');
    expect(durationWords(0.5, 'hours')).toBe('30 minutes');
    expect(durationWords(29.97, 'minutes')).toBe('30 minutes');
    expect(durationWords(12.3456, 'minutes')).toBe('12.3 minutes');
  });
});
