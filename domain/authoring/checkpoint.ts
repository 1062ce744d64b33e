// The authoring session checkpoint (spec: Authoring session checkpoint (beta)): world.settings with unit and source,
// world.variants[].changes as a diff against the baseline, ai (estimated, session_total, cap_reached), world.measured
// with coverage, unit, denominator, time window, censoring and what is reported beside it, next_steps (kind, optional
// tool, source rule|ai_hypothesis), plus what changed since the previous checkpoint. Pure.
import type { AiLimits, AiUsage, Change, Checkpoint, MeasuredEntry, NextStep } from '../contracts/checkpoint.ts';
import type { IntakeSpec } from '../contracts/intakeSpec.ts';
import type { MetricSummary } from '../contracts/runResults.ts';
import type { WorldSpec } from '../contracts/worldSpec.ts';
import type { ModelWarning } from '../contracts/worlds.ts';
import type { Problem } from '../simulation/validate.ts';
import { type AuthoringDraft, clip, type Question, type Slot, type SlotValue } from './draft.ts';
import { isMissingSetting, problemSentence } from '../../clients/sdk/src/words/problemWords.ts';
import { durationWords } from '../../clients/sdk/src/words/resultWords.ts';
import { placeInWorld, settingValueWords } from '../../clients/sdk/src/words/simulationWords.ts';
import { CONCEPT_AND_EVIDENCE_REVIEW, isToolName, SYNTHETIC_SIMULATION } from './tools.ts';

// ---------- the AI preparation limit (spec: Limits — applies to the whole session; reported by cap_reached) ----------

export type { AiLimits, AiUsage, Checkpoint } from '../contracts/checkpoint.ts';

export const ZERO_USAGE: AiUsage = { calls: 0, tokens: 0, ai_iterations: 0, wall_seconds: 0, credits: 0 };

/** Which limit the session total has reached, or null while AI work may go on. */
export function limitReached(total: AiUsage, limits: AiLimits, next_tokens: number): string | null {
  if (total.calls >= limits.calls_max) return 'calls_max';
  if (total.ai_iterations >= limits.ai_iterations_max) return 'ai_iterations_max';
  if (total.wall_seconds >= limits.wall_seconds_max) return 'wall_seconds_max';
  if (total.tokens + next_tokens > limits.tokens_max) return 'tokens_max';
  return null;
}

// ---------- checkpoint shape: domain/contracts/checkpoint.ts (the one declaration the API documents) ----------

/** Next steps listed per checkpoint at most. */
export const NEXT_STEPS_MAX = 50;
/** Utilisation above which the smoke run calls a queue unstable. */
export const UNSTABLE_UTILISATION_MIN = 0.95;

export function checkpointWorld(input: { world: WorldSpec; slots: Slot[]; filled: Record<string, SlotValue>; smoke: MetricSummary[] | null }) {
  const { world, slots, filled, smoke } = input;
  const settings: Checkpoint['world']['settings'] = {};
  for (const slot of slots) if (slot.variant === null && filled[slot.id]) settings[slot.setting] = { ...filled[slot.id]! };
  const variants = world.variants.map((variant) => ({
    id: variant.id,
    label: variant.label,
    role: variant.role,
    changes: slots
      .filter((slot) => slot.variant === variant.id && filled[slot.id])
      .map((slot) => ({
        setting: slot.setting,
        baseline: settings[slot.setting]?.value ?? null,
        value: filled[slot.id]!.value,
        unit: filled[slot.id]!.unit,
        source: filled[slot.id]!.source,
      })),
  }));
  const measured: MeasuredEntry[] = world.measured.map((measure) => {
    const rows = (smoke ?? []).filter((row) => row.measure_id === measure.id);
    const withValue = rows.filter((row) => row.n > 0);
    const coverage = rows.length === 0 || withValue.length === 0 ? 'missing' : withValue.length === world.variants.length ? 'covered' : 'partial';
    const window = measure.window ?? { start: world.warm_up, end: world.horizon };
    const mean = (values: Array<number | null>) => {
      const known = values.filter((value): value is number => value !== null);
      return known.length === 0 ? null : known.reduce((sum, value) => sum + value, 0) / known.length;
    };
    return {
      measure_id: measure.id,
      kind: measure.kind,
      coverage,
      unit: measure.unit,
      denominator: measure.denominator,
      time_window: { start: window.start, end: window.end, unit: world.time_unit },
      censoring: measure.censoring,
      reported_beside: {
        still_waiting_at_end_mean: rows.length ? mean(rows.map((row) => row.still_waiting_at_end_mean)) : null,
        censored_count: rows.length ? rows.reduce((sum, row) => sum + row.censored_count, 0) : null,
      },
    };
  });
  return { spec: world, settings, variants, measured };
}

const CLAIM_MEASURE_WORDS: Array<{ words: RegExp; kinds: string[] }> = [
  { words: /\b(wait|waiting|delay|faster|time|minutes|hours|days|turnaround)\b/i, kinds: ['time_between'] },
  { words: /\b(queue|backlog|list)\b/i, kinds: ['queue_length', 'time_between'] },
  { words: /\b(capacity|utili[sz]ation|workload|staff|busy)\b/i, kinds: ['utilisation'] },
  { words: /\b(number|count|admissions|referrals|visits|appointments|seen|throughput)\b/i, kinds: ['count'] },
];

type RuleInput = {
  world: WorldSpec;
  problems: Problem[];
  /** the model check of a valid world (empty otherwise) */
  warnings: ModelWarning[];
  questions: Question[];
  filled: Record<string, SlotValue>;
  intake: IntakeSpec | null;
  smoke: MetricSummary[] | null;
};

const capitalFirst = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
const measureName = (measure: { id: string; label?: string }) => measure.label ?? measure.id.replaceAll('_', ' ');

/** A slot by name: a setting by its description (else its id in words), a variant's change as "<variant label>: <setting>". */
function slotName(world: WorldSpec, slot: string): string {
  const [variantId, setting] = slot.includes('.') ? slot.split('.', 2) : [null, slot];
  const settingName = world.settings[setting!]?.description ?? setting!.replaceAll('_', ' ');
  if (variantId === null) return settingName;
  return `${world.variants.find((variant) => variant.id === variantId)?.label ?? variantId.replaceAll('_', ' ')}: ${settingName}`;
}

/** The rule-based next steps, one family each, listed in this order. */
const NEXT_STEP_RULES: Array<(input: RuleInput) => NextStep[]> = [
  ({ problems, world }) =>
    problems.slice(0, 10).map((problem) => ({
      kind: 'fix_validation_problem',
      tool: SYNTHETIC_SIMULATION,
      source: 'rule',
      // a setting not given yet keeps its form: the app reads it as "… is not set yet: answer its question"
      message: clip(
        (isMissingSetting(problem.message) ? null : problemSentence(world, problem)) ?? `${capitalFirst(placeInWorld(problem.pointer))}: ${problem.message}`,
        1000,
      ),
    })),
  ({ questions }) => questions.map((question) => ({ kind: 'answer_question', source: 'rule', message: clip(`Answer this question: ${question.text}`, 1000) })),
  ({ warnings }) => warnings.map((warning) => ({ kind: warning.kind, tool: SYNTHETIC_SIMULATION, source: 'rule', message: clip(warning.message, 1000) })),
  ({ filled, world }) =>
    Object.entries(filled)
      .filter(([, value]) => value.source.kind === 'assumption')
      .map(([slot, value]) => ({
        kind: 'source_assumption',
        source: 'rule',
        message: `${capitalFirst(slotName(world, slot))} (${settingValueWords(value.value, value.unit)}) rests on an assumption: cite a measurement or a reference for it.`,
      })),
  ({ filled, world }) =>
    Object.entries(filled)
      .filter(([, value]) => value.source.kind === 'reference' && value.source.suggested_by_ai === true)
      .map(([slot, value]) => ({
        kind: 'verify_reference',
        tool: CONCEPT_AND_EVIDENCE_REVIEW,
        source: 'rule',
        message: clip(
          `${capitalFirst(slotName(world, slot))} (${settingValueWords(value.value, value.unit)}) rests on a reference the AI suggested and no one has checked: “${(value.source as { reference: string }).reference}”. Verify this reference, or answer with a figure you know.`,
          1000,
        ),
      })),
  ({ world }) =>
    world.measured.flatMap((measure) => {
      const steps: NextStep[] = [];
      // A starting world may be invalid: its measures are checked as data, not as the schema promises.
      if (!(measure as { denominator?: string }).denominator)
        steps.push({
          kind: 'state_denominator',
          source: 'rule',
          message: `${capitalFirst(measureName(measure))} does not say what it is counted per (its denominator).`,
        });
      if (!measure.window)
        steps.push({
          kind: 'state_time_window',
          source: 'rule',
          message: `${capitalFirst(measureName(measure))} has no time window of its own: it is measured from the end of the warm-up (${durationWords(world.warm_up, world.time_unit)} in) to the end of the simulated period (${durationWords(world.horizon, world.time_unit)}).`,
        });
      return steps;
    }),
  ({ world, intake }) => {
    const kinds = new Set(world.measured.map((measure) => measure.kind));
    const claims: IntakeSpec['claims'] = intake?.claims ?? [];
    return claims.flatMap((claim, index) =>
      CLAIM_MEASURE_WORDS.some((entry) => entry.words.test(claim.text) && entry.kinds.some((kind) => kinds.has(kind as WorldSpec['measured'][number]['kind'])))
        ? []
        : [
            {
              kind: 'claim_without_measure',
              tool: CONCEPT_AND_EVIDENCE_REVIEW,
              source: 'rule',
              message: clip(`Claim ${index + 1} of the intake (“${claim.text}”) has nothing measured in the world that could test it.`, 1000),
            },
          ],
    );
  },
  ({ smoke, world, warnings }) =>
    (smoke ?? [])
      .filter((row) => row.kind === 'utilisation' && row.mean !== null && row.mean >= UNSTABLE_UTILISATION_MIN)
      // the model check already names an unstable resource, with what would make it stable
      .filter((row) => !warnings.some((warning) => warning.kind === 'unstable_queue' && warning.pointer === resourcePointer(world, row.measure_id)))
      .map((row) => ({
        kind: 'unstable_queue',
        tool: SYNTHETIC_SIMULATION,
        source: 'rule',
        message: `The quick test run shows ${measureName(world.measured.find((measure) => measure.id === row.measure_id) ?? { id: row.measure_id })} at ${Math.round(row.mean! * 100)}% in ${world.variants.find((variant) => variant.id === row.variant_id)?.label ?? row.variant_id}: the queue grows without end. Add capacity or lower demand.`,
      })),
  // Complete only when nothing stands: no problem, no open question and no warning of the model check.
  ({ problems, questions, filled, warnings }) => {
    if (problems.length > 0 || questions.length > 0 || warnings.length > 0) return [];
    const unverified = Object.values(filled).filter((value) => value.source.kind === 'reference' && value.source.suggested_by_ai === true).length;
    const caveat =
      unverified === 0
        ? ''
        : ` ${unverified === 1 ? 'One setting rests' : `${unverified} settings rest`} on a reference the AI suggested that no one has verified yet.`;
    return [
      {
        kind: 'approve_and_run',
        tool: SYNTHETIC_SIMULATION,
        source: 'rule',
        message: `The world is complete: approve the session to save it as a world revision, then estimate and run it with a budget you choose.${caveat}`,
      },
    ];
  },
];

/** The pointer of the resource a utilisation measure reads (as the model check's warnings point), or null. */
function resourcePointer(world: WorldSpec, measureId: string): string | null {
  const measure = world.measured.find((candidate) => candidate.id === measureId);
  const index = measure && 'resource' in measure ? world.resources.findIndex((resource) => resource.id === measure.resource) : -1;
  return index >= 0 ? `/resources/${index}` : null;
}

/** Rule-based checks, run on every checkpoint (source: rule). */
export function ruleNextSteps(input: RuleInput): NextStep[] {
  return NEXT_STEP_RULES.flatMap((rule) => rule(input));
}

/** The model's suggested next steps, labelled ai_hypothesis; a tool not in the registry is dropped from the step. */
export function aiNextSteps(draft: AuthoringDraft | null): NextStep[] {
  return (draft?.next_steps ?? []).map((step) => ({
    kind: clip(step.kind || 'suggestion', 64),
    ...(isToolName(step.tool) ? { tool: step.tool } : {}),
    source: 'ai_hypothesis' as const,
    message: clip(step.note, 1000),
  }));
}

/** What changed since the previous checkpoint, as JSON paths over settings, variant changes, questions and coverage. */
export function diffCheckpoints(previous: Checkpoint | null, next: Omit<Checkpoint, 'changes_since_previous'>): Change[] {
  const flat = (checkpoint: Omit<Checkpoint, 'changes_since_previous'> | null): Map<string, string | boolean> => {
    const out = new Map<string, string | boolean>();
    if (!checkpoint) return out;
    for (const [name, setting] of Object.entries(checkpoint.world.settings)) out.set(`/world/settings/${name}`, `${setting.value} ${setting.unit}`);
    for (const variant of checkpoint.world.variants)
      for (const change of variant.changes) out.set(`/world/variants/${variant.id}/changes/${change.setting}`, `${change.value} ${change.unit}`);
    for (const question of checkpoint.questions) out.set(`/questions/${question.slot}`, question.text);
    for (const measure of checkpoint.world.measured) out.set(`/world/measured/${measure.measure_id}/coverage`, measure.coverage);
    out.set('/validation/valid', checkpoint.validation.valid);
    out.set('/ai/cap_reached', checkpoint.ai.cap_reached);
    return out;
  };
  const before = flat(previous);
  const after = flat(next);
  const changes: Change[] = [];
  for (const path of new Set([...before.keys(), ...after.keys()])) {
    const a = before.get(path) ?? null;
    const b = after.get(path) ?? null;
    if (a !== b) changes.push({ path, before: a, after: b });
  }
  return changes;
}
