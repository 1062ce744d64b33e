// Authoring sessions (beta): what the model (or the offline heuristic) proposes, and how a proposal becomes a world.
// spec: Authoring session checkpoint (beta). Pure: the workflow, the activities and the API import from here.
//
// Never invent a number: the world's structure comes from a template (a starting WorldSpec or the service's single-queue
// template); every number in it is a *slot*. A slot is filled only by a value with a source — a cited intake line whose
// quote appears in the intake, an answer, a published reference, or an assumption the user stated. A value the model
// proposes without a source becomes a question, never a setting.
import { Type, type Static } from 'typebox';
import type { Question, ValueSource } from '../contracts/checkpoint.ts';
import { citationsWithPaths, type IntakeSpec } from '../contracts/intakeSpec.ts';
import type { Setting, SettingSource, WorldSpec } from '../contracts/worldSpec.ts';
import { deadlinePhrase } from '../simulation/modelCheck.ts';
import { locateQuote } from '../intake/citations.ts';
import { type Conversion, citedProposals, conversionHolds, quoteStatesNumber } from './citedNumbers.ts';

export type { Question, ValueSource } from '../contracts/checkpoint.ts';

/** A number the world needs: a setting, or the value a treatment variant changes a setting to. */
export type Slot = {
  id: string;
  setting: string;
  variant: string | null;
  unit: string;
  description: string;
  /** the question asked when nothing sources the slot: a plain sentence with the unit */
  question?: string;
};

export type SlotValue = { value: number; unit: string; source: ValueSource };

// ---------- the AI output (registered as an AI schema; strict-structured-output friendly: every field required) ----------

const ProposalSource = Type.Union([
  Type.Object(
    {
      kind: Type.Literal('intake_line'),
      source_id: Type.String({ maxLength: 64 }),
      line_start: Type.Integer({ minimum: 1 }),
      line_end: Type.Integer({ minimum: 1 }),
      quote: Type.String({ maxLength: 2000 }),
      conversion: Type.Union(
        [
          Type.Object(
            {
              quoted_value: Type.Number({ description: 'the number as the quote states it' }),
              quoted_unit: Type.String({ maxLength: 40, description: 'its unit: per_day, per_week, hours, seconds, ...' }),
              factor: Type.Number({ description: 'value = quoted_value × factor' }),
              basis: Type.String({ minLength: 1, maxLength: 1000, description: 'why this factor, e.g. the opening hours the intake cites' }),
            },
            { additionalProperties: false },
          ),
          Type.Null(),
        ],
        { description: 'null when the quote states the number in the slot unit' },
      ),
    },
    { additionalProperties: false },
  ),
  Type.Object({ kind: Type.Literal('reference'), reference: Type.String({ minLength: 1, maxLength: 1000 }) }, { additionalProperties: false }),
  Type.Null(),
]);

export const AuthoringDraft = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    description: Type.String({ maxLength: 4000 }),
    proposals: Type.Array(
      Type.Object(
        {
          slot: Type.String({ maxLength: 100, description: 'a slot id from the request' }),
          value: Type.Union([Type.Number(), Type.Null()], { description: 'null when the material does not give the number' }),
          source: ProposalSource,
          question: Type.String({ maxLength: 1000, description: 'what to ask the user when the value is null or unsourced' }),
        },
        { additionalProperties: false },
      ),
      { maxItems: 100 },
    ),
    next_steps: Type.Array(
      Type.Object(
        { kind: Type.String({ maxLength: 64 }), tool: Type.Union([Type.String({ maxLength: 64 }), Type.Null()]), note: Type.String({ maxLength: 1000 }) },
        { additionalProperties: false },
      ),
      { maxItems: 20 },
    ),
  },
  { $id: 'AuthoringDraft', additionalProperties: false },
);
export type AuthoringDraft = Static<typeof AuthoringDraft>;

/** What the drafting call receives (the prompt is built from it; the offline heuristic reads it directly). */
export type AuthoringDraftInput = {
  intake: IntakeSpec | null;
  slots: Slot[];
  filled: Record<string, SlotValue>;
  instructions: string | null;
};

// ---------- templates ----------

const TEMPLATE_TIME = { time_unit: 'minutes' as const, horizon: 7 * 24 * 60, warm_up: 24 * 60, replications: 10, seed: 20261012 };

/** The service's template when no starting world is given: one queue for one resource, baseline and a treatment. */
export function queueTemplate(intake: IntakeSpec | null): { world: WorldSpec; slots: Slot[] } {
  const name = clip(intake?.proposed_solution?.text ?? intake?.problem?.text ?? 'Authored care pathway', 200);
  const world: WorldSpec = {
    contract: 'WorldSpec',
    version: '1.0.0',
    name,
    synthetic: true,
    ...TEMPLATE_TIME,
    settings: {},
    arrivals: [{ id: 'patients', kind: 'poisson', rate: { setting: 'arrival_rate' }, to_step: 'care' }],
    resources: [{ id: 'clinician', capacity: { setting: 'servers' } }],
    steps: [
      { id: 'care', kind: 'service', resource: 'clinician', duration: { dist: 'exponential', mean: { setting: 'mean_service' } }, next: 'done' },
      { id: 'done', kind: 'exit' },
    ],
    measured: [
      {
        id: 'wait',
        label: 'wait for care',
        kind: 'time_between',
        from: { step: 'care', at: 'enter' },
        to: { step: 'care', at: 'start' },
        unit: 'minutes',
        denominator: 'entity',
        censoring: 'at_horizon',
      },
      { id: 'seen', label: 'patients seen', kind: 'count', event: { step: 'care', at: 'end' }, unit: 'count', denominator: 'replication', censoring: 'none' },
      { id: 'utilisation', kind: 'utilisation', resource: 'clinician', unit: 'fraction', denominator: 'capacity_time', censoring: 'none' },
    ],
    variants: [
      { id: 'baseline', label: 'Current pathway', role: 'baseline', changes: [] },
      { id: 'treatment', label: 'With the technology', role: 'treatment', changes: [] },
    ],
  };
  const slots: Slot[] = [
    {
      id: 'arrival_rate',
      setting: 'arrival_rate',
      variant: null,
      unit: 'per_hour',
      description: 'patients arriving per hour',
      question: 'How many patients arrive per hour, on average?',
    },
    {
      id: 'mean_service',
      setting: 'mean_service',
      variant: null,
      unit: 'minutes',
      description: 'mean time a clinician spends per patient',
      question: 'How many minutes does a clinician spend with each patient today, on average?',
    },
    {
      id: 'servers',
      setting: 'servers',
      variant: null,
      unit: 'count',
      description: 'clinicians available at once',
      question: 'How many clinicians are available at the same time?',
    },
    {
      id: 'treatment.mean_service',
      setting: 'mean_service',
      variant: 'treatment',
      unit: 'minutes',
      description: 'mean time per patient with the technology',
      question: 'How many minutes would a clinician spend with each patient with the technology, on average?',
    },
  ];
  return { world, slots };
}

/** A starting WorldSpec: its settings and variant changes are the slots, already filled from the document's own sources. */
export function startingTemplate(world: WorldSpec): { world: WorldSpec; slots: Slot[]; filled: Record<string, SlotValue> } {
  const slots: Slot[] = [];
  const filled: Record<string, SlotValue> = {};
  for (const [name, setting] of Object.entries(world.settings)) {
    slots.push({ id: name, setting: name, variant: null, unit: setting.unit, description: setting.description ?? name });
    filled[name] = { value: setting.value, unit: setting.unit, source: fromWorldSource(setting.source) };
  }
  for (const variant of world.variants) {
    for (const change of variant.changes) {
      const id = `${variant.id}.${change.setting}`;
      const unit = world.settings[change.setting]?.unit ?? 'unknown';
      slots.push({ id, setting: change.setting, variant: variant.id, unit, description: change.rationale ?? `${change.setting} in ${variant.label}` });
      filled[id] = {
        value: change.value,
        unit,
        source: { kind: 'assumption', rationale: change.rationale ?? `set in the starting world for ${variant.label}` },
      };
    }
  }
  const skeleton: WorldSpec = { ...world, settings: {}, variants: world.variants.map((variant) => ({ ...variant, changes: [] })) };
  return { world: skeleton, slots, filled };
}

/** The note a setting carries into the world revision when its reference was suggested by the model. */
export const SUGGESTED_REFERENCE_NOTE = 'Suggested by the AI, not verified: check this reference before relying on the value.';

function fromWorldSource(source: SettingSource): ValueSource {
  if (source.kind === 'literature') {
    return source.note === SUGGESTED_REFERENCE_NOTE
      ? { kind: 'reference', reference: source.reference, suggested_by_ai: true }
      : { kind: 'reference', reference: source.reference };
  }
  if (source.kind === 'assumption') return { kind: 'assumption', rationale: source.rationale };
  return { kind: 'assumption', rationale: source.note ? `declared by the user: ${source.note}` : 'declared by the user in the starting world' };
}

/** The WorldSpec source a checkpoint setting is saved with. */
export function toWorldSource(source: ValueSource): SettingSource {
  switch (source.kind) {
    case 'reference':
      return source.suggested_by_ai
        ? { kind: 'literature', reference: source.reference, note: SUGGESTED_REFERENCE_NOTE }
        : { kind: 'literature', reference: source.reference };
    case 'assumption':
      return { kind: 'assumption', rationale: source.rationale };
    case 'answer':
      // the person's own words on where the number comes from stay with it (the model check reads them for a turnaround)
      return {
        kind: 'user_declared',
        note: clip(`answered in an authoring session (question ${source.question_id})${source.note ? `: ${source.note}` : ''}`, 2000),
      };
    case 'intake_line':
      return {
        kind: 'user_declared',
        note: clip(`intake source ${source.source_id} lines ${source.line_start}-${source.line_end}: "${source.quote}"${converted(source.conversion)}`, 2000),
      };
  }
}

/** The candidate world: the template with every filled slot written in; unfilled slots stay out (validation names them). */
export function assembleWorld(template: WorldSpec, slots: Slot[], filled: Record<string, SlotValue>): WorldSpec {
  const settings: Record<string, Setting> = {};
  const variants = template.variants.map((variant) => ({ ...variant, changes: [...variant.changes] }));
  for (const slot of slots) {
    const value = filled[slot.id];
    if (!value) continue;
    if (slot.variant === null) {
      // the setting keeps the name people read (the model check's sentences use it): the template's, else the slot's
      const description = template.settings[slot.setting]?.description ?? (slot.description !== slot.setting ? slot.description : undefined);
      settings[slot.setting] = { value: value.value, unit: value.unit, source: toWorldSource(value.source), ...(description ? { description } : {}) };
    } else {
      const variant = variants.find((candidate) => candidate.id === slot.variant);
      variant?.changes.push({ setting: slot.setting, value: value.value, rationale: clip(describeSource(value.source), 2000) });
    }
  }
  return { ...template, settings, variants };
}

export function describeSource(source: ValueSource): string {
  switch (source.kind) {
    case 'answer':
      return `answer to question ${source.question_id}${source.note ? `: ${source.note}` : ''}`;
    case 'reference':
      return source.suggested_by_ai ? `published reference suggested by the AI, not verified: ${source.reference}` : `published reference: ${source.reference}`;
    case 'assumption':
      return `assumption: ${source.rationale}`;
    case 'intake_line':
      return `intake source ${source.source_id} lines ${source.line_start}-${source.line_end}${converted(source.conversion)}`;
  }
}

function converted(conversion: Conversion | null | undefined): string {
  return conversion ? `; converted: ${conversion.basis}` : '';
}

/** Unit names as a person says them. */
const UNIT_WORDS: Record<string, string> = {
  per_hour: 'per hour',
  per_day: 'per day',
  per_minute: 'per minute',
  minutes: 'minutes',
  hours: 'hours',
  count: 'a count',
  fraction: 'a fraction between 0 and 1',
};

/** The question asked for a slot nothing sources: the slot's own sentence, or one built from its description and unit. */
export function questionFor(slot: Slot): string {
  if (slot.question) return slot.question;
  const unit = UNIT_WORDS[slot.unit] ?? slot.unit.replace(/_/g, ' ');
  return clip(`What value should ${slot.description.replace(/[_.]/g, ' ')} have, in ${unit}?`, 1000);
}

/** A model's question is kept when it reads as a sentence for a person (no JSON pointer, no slot id). */
function plainQuestion(text: string | undefined, slot: Slot): string | null {
  const trimmed = text?.trim() ?? '';
  if (trimmed.length === 0 || /(^|\s)\/[\w/]+|[\w]+\.[\w]+_|\w+_\w+/.test(trimmed) || trimmed.includes(slot.id)) return null;
  return trimmed;
}

/** Where a quote can be found: the confirmed intake's citations, each checked against its processed source lines. */
type IntakeCitation = { source_id: string; line_start: number; line_end: number; quote: string };

function intakeCitations(intake: IntakeSpec | null): IntakeCitation[] {
  if (!intake) return [];
  return citationsWithPaths(intake).map(({ citation }) => ({
    source_id: citation.source_id,
    line_start: citation.line_start,
    line_end: citation.line_end,
    quote: citation.quote,
  }));
}

/**
 * The intake citation whose quote holds `quote` word for word, or null: the service's own location of a quote a model
 * returned (locateQuote, the one search for it). The model's source id and line numbers are never kept (a true quote
 * with a made-up source id or lines would otherwise be shown as a citation to a place that does not hold it).
 */
function locate(quote: string, citations: IntakeCitation[]): IntakeCitation | null {
  const found = locateQuote(
    quote,
    citations.map((citation) => ({ source_id: citation.source_id, first_line: citation.line_start, lines: [citation.quote] })),
  );
  return found === null ? null : citations[found.place]!;
}

type Proposal = AuthoringDraft['proposals'][number];

/**
 * The source a proposal may fill a slot with, or null: a reference, or an intake line whose quote appears in the intake
 * and states the number — itself, or the quoted value of a recorded conversion to the slot's unit that holds.
 */
function checkedSource(proposal: Proposal | undefined, slot: Slot, citations: IntakeCitation[]): ValueSource | null {
  const value = proposal?.value;
  const source = proposal?.source ?? null;
  if (typeof value !== 'number' || !Number.isFinite(value) || !source) return null;
  // A reference the model names is a hypothesis until someone checks it (spec: never invent a number)
  if (source.kind === 'reference') return { kind: 'reference', reference: source.reference, suggested_by_ai: true };
  const found = locate(source.quote, citations);
  if (found === null) return null;
  // spec: IntakeSpec (citations) — the citation is where the service found the quote, not where the model said it was
  const located = { kind: 'intake_line' as const, source_id: found.source_id, line_start: found.line_start, line_end: found.line_end, quote: source.quote };
  const conversion = source.conversion ?? null;
  if (conversion === null) return quoteStatesNumber(source.quote, value) ? { ...located, conversion: null } : null;
  return quoteStatesNumber(source.quote, conversion.quoted_value) && conversionHolds(conversion, slot.unit, value) ? { ...located, conversion } : null;
}

/**
 * Applies the proposals (rule: never invent a number). The model's (or the heuristic's) proposal fills an open slot
 * when checkedSource accepts it; otherwise a number the intake's cited lines give for that slot fills it (the same
 * check, so the hosted path never asks for a cited number either). Anything else — no value, no source, a quote not in
 * the intake — becomes a question; an unsourced value is kept beside it.
 */
export function applyProposals(input: {
  draft: AuthoringDraft;
  slots: Slot[];
  filled: Record<string, SlotValue>;
  intake: IntakeSpec | null;
  checkpoint: number;
}): { filled: Record<string, SlotValue>; questions: Question[] } {
  const filled = { ...input.filled };
  const citations = intakeCitations(input.intake);
  const questions: Question[] = [];
  const bySlot = new Map(input.draft.proposals.map((proposal) => [proposal.slot, proposal]));
  const cited = citedProposals(
    input.intake,
    input.slots.filter((slot) => !filled[slot.id]),
  );
  const citedBySlot = new Map(cited.proposals.map((proposal) => [proposal.slot, proposal]));
  for (const slot of input.slots) {
    if (filled[slot.id]) continue;
    const proposal = bySlot.get(slot.id);
    const fromIntake = citedBySlot.get(slot.id);
    const sourced = checkedSource(proposal, slot, citations);
    const fallback = sourced ? null : checkedSource(fromIntake && { ...fromIntake, question: '' }, slot, citations);
    // A time quoted as a turnaround or a deadline ("within 48 hours") is not the time the work takes: ask, never convert.
    const deadline = deadlineIn(slot, sourced ?? fallback);
    if (deadline !== null) {
      questions.push({
        id: `q${input.checkpoint}_${slot.id.replace(/[^a-z0-9_]/g, '_')}`,
        slot: slot.id,
        text: clip(`The intake says “${deadline}”: that is a turnaround or a deadline, not the time the work takes. ${questionFor(slot)}`, 1000),
        unit: slot.unit,
        label: clip(slot.description, 200),
        unsourced_proposal: null,
      });
      continue;
    }
    if (sourced && typeof proposal?.value === 'number') {
      filled[slot.id] = { value: proposal.value, unit: slot.unit, source: sourced };
      continue;
    }
    if (fallback && fromIntake) {
      filled[slot.id] = { value: fromIntake.value, unit: slot.unit, source: fallback };
      continue;
    }
    const value = proposal?.value;
    const hint =
      slot.unit === 'per_hour' && cited.daily_without_hours !== null
        ? ` The intake cites ${cited.daily_without_hours} a day but not the hours they arrive over.`
        : '';
    questions.push({
      id: `q${input.checkpoint}_${slot.id.replace(/[^a-z0-9_]/g, '_')}`,
      slot: slot.id,
      text: clip(`${plainQuestion(proposal?.question, slot) ?? questionFor(slot)}${hint}`, 1000),
      unit: slot.unit,
      label: clip(slot.description, 200),
      unsourced_proposal: typeof value === 'number' && Number.isFinite(value) ? { value, proposed_by: 'ai_hypothesis' } : null,
    });
  }
  return { filled, questions };
}

const DEADLINE_QUESTION = /^The intake says “([^”]+)”: that is a turnaround or a deadline/;
const MINUTES_IN: Record<string, number> = { minute: 1, min: 1, hour: 60, hr: 60, day: 1440, week: 10_080 };

/**
 * The note an answer keeps when it gives back the turnaround its question was asked about (“within 48 hours” answered
 * as 2,880 minutes), or null: the model check then still names the turnaround, so the session does not call the model
 * complete while it stands. `note` is the person's own note, kept in front.
 */
export function answerNote(question: { text: string; unit: string }, value: number, note: string | undefined): string | undefined {
  const phrase = DEADLINE_QUESTION.exec(question.text)?.[1];
  const quantity = phrase ? /(\d+(?:\.\d+)?)[\s-]*(?:working\s+)?(minute|min|hour|hr|day|week)s?\b/i.exec(phrase) : null;
  const perUnit = MINUTES_IN[question.unit.replace(/s$/, '')];
  if (!quantity || perUnit === undefined) return note;
  const minutes = Number(quantity[1]) * MINUTES_IN[quantity[2]!.toLowerCase()]!;
  if (Math.abs(value * perUnit - minutes) > 1e-9 * minutes) return note;
  const same = `the same time as “${phrase}” in the intake`;
  return clip(note ? `${note} (${same})` : same, 1000);
}

/** The turnaround or deadline phrase of an intake quote filling a time slot, or null (docs/simulation.md, The model check). */
function deadlineIn(slot: Slot, source: ValueSource | null): string | null {
  if (source?.kind !== 'intake_line' || !TIME_UNITS.includes(slot.unit)) return null;
  return deadlinePhrase(source.quote);
}

const TIME_UNITS = ['minutes', 'hours', 'days'];

// ---------- the offline heuristic ----------

/**
 * The offline provider's draft (deterministic, labelled heuristic): it proposes every number a cited intake line gives
 * for an open slot (with that line as the source and any unit conversion recorded) and asks for everything else. It
 * never proposes an unsourced value.
 */
export function draftAuthoringOffline(input: AuthoringDraftInput): AuthoringDraft {
  const name = clip(input.intake?.proposed_solution?.text ?? input.intake?.problem?.text ?? 'Authored care pathway', 200);
  const open = input.slots.filter((slot) => !input.filled[slot.id]);
  const cited = new Map(citedProposals(input.intake, open).proposals.map((proposal) => [proposal.slot, proposal]));
  const proposals: AuthoringDraft['proposals'] = open.map((slot) => {
    const found = cited.get(slot.id);
    return found ? { ...found, question: '' } : { slot: slot.id, value: null, source: null, question: questionFor(slot) };
  });
  return {
    name,
    description:
      'Drafted by the offline heuristic: the structure is the service template; numbers come only from cited intake lines, every other number is asked for, none is guessed.',
    proposals,
    next_steps: [],
  };
}

export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
