// The authoring session checkpoint (beta; spec: Authoring session checkpoint): the shape the session shows after each
// step. One declaration: domain/authoring/ takes its types as `Static<>` of these schemas, the OpenAPI document
// describes the session's `checkpoint` with them, and the app and the SDK read the generated types.
import { type Static, type TSchema, Type } from 'typebox';
import { ModelWarning, WorldProblem } from './worlds.ts';
import type { WorldSpec } from './worldSpec.ts';

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** How a cited number became the slot's value: value = quoted_value × factor. */
export const Conversion = Type.Object({ quoted_value: Type.Number(), quoted_unit: Type.String(), factor: Type.Number(), basis: Type.String() });

/** Where a configured value comes from (spec: Authoring session checkpoint — world.settings "with its unit and source"). */
export const ValueSource = Type.Union([
  Type.Object({
    kind: Type.Literal('intake_line'),
    source_id: Type.String(),
    line_start: Type.Integer({ minimum: 1 }),
    line_end: Type.Integer({ minimum: 1 }),
    quote: Type.String(),
    conversion: Type.Optional(Nullable(Conversion)),
  }),
  Type.Object({
    kind: Type.Literal('answer'),
    question_id: Type.String(),
    answered_at_checkpoint: Type.Integer({ minimum: 0 }),
    note: Type.Optional(Type.String({ description: 'where the person says the number comes from, as they wrote it beside the answer' })),
  }),
  Type.Object({
    kind: Type.Literal('reference'),
    reference: Type.String(),
    suggested_by_ai: Type.Optional(
      Type.Boolean({ description: 'true: a reference the model named (ai_hypothesis), suggested and not verified; check it before relying on the value' }),
    ),
  }),
  Type.Object({ kind: Type.Literal('assumption'), rationale: Type.String() }),
]);

/** AI work of a step (estimated) or of the whole session so far (session_total). */
export const AiUsage = Type.Object({
  calls: Type.Integer({ minimum: 0 }),
  tokens: Type.Integer({ minimum: 0 }),
  ai_iterations: Type.Integer({ minimum: 0 }),
  wall_seconds: Type.Number({ minimum: 0 }),
  credits: Type.Integer({ minimum: 0 }),
});
/** The AI preparation limit in force for the session (spec: Limits — applies to the whole session). */
export const AiLimits = Type.Object({
  calls_max: Type.Integer({ minimum: 0 }),
  tokens_max: Type.Integer({ minimum: 0 }),
  ai_iterations_max: Type.Integer({ minimum: 0 }),
  wall_seconds_max: Type.Integer({ minimum: 0 }),
});

/** A question the session asks: a slot nothing sources yet. */
export const Question = Type.Object({
  id: Type.String(),
  slot: Type.String(),
  text: Type.String(),
  unit: Type.String(),
  label: Type.Optional(
    Type.String({
      description: 'what the number is, in words, as the setting\'s name reads once it is answered ("mean time a clinician spends per patient")',
    }),
  ),
  unsourced_proposal: Nullable(
    Type.Object(
      { value: Type.Number(), proposed_by: Type.Literal('ai_hypothesis') },
      { description: 'a value the model proposed without a source: shown, never used' },
    ),
  ),
});

export const NextStep = Type.Object({
  kind: Type.String(),
  tool: Type.Optional(Type.String({ description: 'the registered tool the step uses (GET /v1/tools)' })),
  source: Type.Union([Type.Literal('rule'), Type.Literal('ai_hypothesis')]),
  message: Type.String(),
});

export const MeasuredEntry = Type.Object({
  measure_id: Type.String(),
  kind: Type.String(),
  coverage: Type.Union([Type.Literal('covered'), Type.Literal('partial'), Type.Literal('missing')]),
  unit: Type.String(),
  denominator: Type.String(),
  time_window: Type.Object({ start: Type.Number(), end: Type.Number(), unit: Type.String() }),
  censoring: Type.String(),
  reported_beside: Type.Object({ still_waiting_at_end_mean: Nullable(Type.Number()), censored_count: Nullable(Type.Integer({ minimum: 0 })) }),
});

export const SmokeRun = Nullable(
  Type.Object({
    replications: Type.Integer({ minimum: 0 }),
    horizon: Type.Number(),
    metrics: Type.Array(Type.Object({ measure_id: Type.String(), variant_id: Type.String(), n: Type.Integer({ minimum: 0 }), mean: Nullable(Type.Number()) })),
  }),
);

/** One value that changed since the previous checkpoint, at a JSON path; null where there was none. */
export const Change = Type.Object({
  path: Type.String(),
  before: Type.Union([Type.String(), Type.Boolean(), Type.Null()]),
  after: Type.Union([Type.String(), Type.Boolean(), Type.Null()]),
});

const SourcedValue = { value: Type.Number(), unit: Type.String(), source: ValueSource };

// A drafted world may be invalid (validation says why), so the document promises an object, not a valid WorldSpec.
const DraftedWorld = Type.Unsafe<WorldSpec>({
  type: 'object',
  description: 'the WorldSpec as drafted (schema at /v1/schemas/WorldSpec); it may be invalid while validation.valid is false',
});

export const Checkpoint = Type.Object({
  number: Type.Integer({ minimum: 1 }),
  reason: Type.Union([Type.Literal('draft'), Type.Literal('answers'), Type.Literal('revise')]),
  world: Type.Object({
    spec: DraftedWorld,
    settings: Type.Record(Type.String(), Type.Object(SourcedValue), {
      additionalProperties: false,
      description: 'each configured setting by name, with its unit and source',
    }),
    variants: Type.Array(
      Type.Object({
        id: Type.String(),
        label: Type.String(),
        role: Type.String(),
        changes: Type.Array(Type.Object({ setting: Type.String(), baseline: Nullable(Type.Number()), ...SourcedValue }), {
          description: 'what the variant changes against the baseline',
        }),
      }),
    ),
    measured: Type.Array(MeasuredEntry),
  }),
  validation: Type.Object({ valid: Type.Boolean(), problems: Type.Array(WorldProblem) }),
  model_check: Type.Optional(
    Type.Array(ModelWarning, {
      description:
        'the model check of a valid world (a variant that changes nothing, an unstable queue, a deadline taken as a duration, a horizon too short): while any stands the model is not complete',
    }),
  ),
  smoke_run: SmokeRun,
  questions: Type.Array(Question),
  next_steps: Type.Array(NextStep),
  ai: Type.Object({
    estimated: AiUsage,
    session_total: AiUsage,
    limits: AiLimits,
    cap_reached: Type.Boolean(),
    limit_reached: Nullable(Type.String({ description: 'the limit the session total has reached (calls_max, tokens_max, ...)' })),
    heuristic: Type.Boolean({ description: 'true when the offline provider drafted (no model)' }),
  }),
  changes_since_previous: Type.Array(Change),
});

export type Conversion = Static<typeof Conversion>;
export type ValueSource = Static<typeof ValueSource>;
export type AiUsage = Static<typeof AiUsage>;
export type AiLimits = Static<typeof AiLimits>;
export type Question = Static<typeof Question>;
export type NextStep = Static<typeof NextStep>;
export type MeasuredEntry = Static<typeof MeasuredEntry>;
export type SmokeRun = Static<typeof SmokeRun>;
export type Change = Static<typeof Change>;
export type Checkpoint = Static<typeof Checkpoint>;
