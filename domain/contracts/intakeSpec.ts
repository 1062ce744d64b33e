// IntakeSpec 1.0.0: the structured intake document a planner reads (spec: IntakeSpec; Versioning).
// One TypeBox definition gives the published JSON Schema, runtime validation and the TypeScript type.
import { Type, type Static } from 'typebox';
import { Value } from 'typebox/value';
import { ServiceError, type ErrorDetail } from '../errors.ts';

export const INTAKE_SPEC_VERSION = '1.0.0';

// Every growing thing has a named limit (STYLE.md); the schema carries them as maxItems / maxLength.
export const INTAKE_CITATIONS_PER_STATEMENT_MAX = 20;
export const INTAKE_LIST_ITEMS_MAX = 100; // claims, risks, evidence, users, unknowns, steps, dependencies
export const INTAKE_TEXT_CHARS_MAX = 4000; // one statement's text
export const INTAKE_QUOTE_CHARS_MAX = 2000; // one citation's quote

export const PROJECT_STAGES = ['idea', 'prototype', 'pilot', 'deployed'] as const;
export type ProjectStage = (typeof PROJECT_STAGES)[number];

export const Citation = Type.Object(
  {
    source_id: Type.String({ minLength: 1, maxLength: 64, description: 'id of an intake source (src_...) that was processed' }),
    line_start: Type.Integer({ minimum: 1, description: 'first cited line, 1-based, inclusive' }),
    line_end: Type.Integer({ minimum: 1, description: 'last cited line, inclusive; >= line_start' }),
    quote: Type.String({
      minLength: 1,
      maxLength: INTAKE_QUOTE_CHARS_MAX,
      description: 'passage that appears word for word within the cited lines (only whitespace normalized)',
    }),
  },
  { additionalProperties: false },
);
export type Citation = Static<typeof Citation>;

// spec: IntakeSpec - statements from the user's own documents are user_declared, never observed.
export const Provenance = Type.Literal('user_declared', {
  description: "where the statement comes from: the user's own material or words. `observed` is never used in an IntakeSpec.",
});

const Citations = Type.Array(Citation, { maxItems: INTAKE_CITATIONS_PER_STATEMENT_MAX });

/** A statement drawn from the user's material; citations may be empty when the user typed it during review. */
export const Statement = Type.Object(
  {
    text: Type.String({ minLength: 1, maxLength: INTAKE_TEXT_CHARS_MAX }),
    provenance: Provenance,
    citations: Citations,
  },
  { additionalProperties: false },
);
export type Statement = Static<typeof Statement>;

const OptionalStatement = Type.Union([Statement, Type.Null()], { description: 'null when unknown; then listed in unknowns' });
const StatementList = Type.Array(Statement, { maxItems: INTAKE_LIST_ITEMS_MAX });

/** A claim the project makes about itself; it must cite at least one processed source line. */
export const Claim = Type.Object(
  {
    text: Type.String({ minLength: 1, maxLength: INTAKE_TEXT_CHARS_MAX }),
    topic: Type.Union([Type.Literal('clinical'), Type.Literal('operational'), Type.Literal('economic'), Type.Literal('technical'), Type.Literal('other')], {
      description: 'what the claim is about',
    }),
    provenance: Provenance,
    citations: Type.Array(Citation, { minItems: 1, maxItems: INTAKE_CITATIONS_PER_STATEMENT_MAX }),
  },
  { additionalProperties: false },
);
export type Claim = Static<typeof Claim>;

export const Stage = Type.Object(
  {
    value: Type.Union([Type.Enum(PROJECT_STAGES), Type.Null()], {
      description:
        'idea: nothing built; prototype: something runs but not in care; pilot: used with real users in a limited trial; deployed: in routine use. null: not stated',
    }),
    provenance: Provenance,
    citations: Citations,
  },
  { additionalProperties: false },
);
export type Stage = Static<typeof Stage>;

export const PathwayStep = Type.Object(
  {
    order: Type.Integer({ minimum: 1 }),
    description: Type.String({ minLength: 1, maxLength: INTAKE_TEXT_CHARS_MAX }),
    actor: Type.Union([Type.String({ minLength: 1, maxLength: 200 }), Type.Null()], { description: 'who performs the step, when stated' }),
    provenance: Provenance,
    citations: Citations,
  },
  { additionalProperties: false },
);
export type PathwayStep = Static<typeof PathwayStep>;

export const CarePathway = Type.Object(
  {
    status: Type.Union([Type.Literal('none'), Type.Literal('described'), Type.Literal('executable')], {
      description:
        'none: no pathway given; described: steps are told in prose but cannot be run; executable: steps have actors and enough quantities (durations, volumes, rules) that a simulation could run them. The planner skips simulation unless executable.',
    }),
    description: OptionalStatement,
    steps: Type.Array(PathwayStep, { maxItems: INTAKE_LIST_ITEMS_MAX }),
  },
  { additionalProperties: false },
);
export type CarePathway = Static<typeof CarePathway>;

// spec: EvaluationPlan, Business questions - the facts the plan asks about.
export const BusinessFacts = Type.Object(
  {
    proposed_user: OptionalStatement,
    buyer: OptionalStatement,
    budget_owner: OptionalStatement,
    current_alternative: OptionalStatement,
    dependencies: StatementList,
    value_hypothesis: OptionalStatement,
  },
  { additionalProperties: false },
);
export type BusinessFacts = Static<typeof BusinessFacts>;

export const Unknown = Type.Object(
  {
    field: Type.String({ minLength: 1, maxLength: 100, description: 'the IntakeSpec field that is unknown, e.g. `business.buyer`' }),
    question: Type.String({ minLength: 1, maxLength: INTAKE_TEXT_CHARS_MAX, description: 'what would need answering' }),
  },
  { additionalProperties: false },
);
export type Unknown = Static<typeof Unknown>;

export const DraftLabel = Type.Object(
  {
    provider: Type.String({ minLength: 1, maxLength: 40, description: 'openai, anthropic, google, offline, or user_assistant' }),
    model: Type.String({ minLength: 1, maxLength: 120 }),
    method: Type.String({ maxLength: 400, description: 'how the draft was made, e.g. "extractive keyword heuristic"' }),
    summary: Type.Optional(
      Type.String({
        maxLength: 400,
        description: 'one line saying how much of the intake the drafter found in the material, e.g. "Found 6 of 8 parts in your material (...)"',
      }),
    ),
  },
  { additionalProperties: false },
);
export type DraftLabel = Static<typeof DraftLabel>;

export const IntakeSpec = Type.Object(
  {
    version: Type.Literal(INTAKE_SPEC_VERSION),
    problem: OptionalStatement,
    proposed_solution: OptionalStatement,
    intended_users: StatementList,
    care_setting: OptionalStatement,
    stage: Stage,
    claims: Type.Array(Claim, { maxItems: INTAKE_LIST_ITEMS_MAX }),
    evidence_offered: StatementList,
    risks: StatementList,
    unknowns: Type.Array(Unknown, { maxItems: INTAKE_LIST_ITEMS_MAX }),
    business: BusinessFacts,
    care_pathway: CarePathway,
    drafted_by: Type.Optional(DraftLabel),
  },
  {
    $id: 'IntakeSpec',
    title: 'IntakeSpec 1.0.0',
    description:
      "Structured intake of a health-technology project. Every claim cites processed source lines; statements from the user's documents are user_declared.",
    additionalProperties: false,
  },
);
export type IntakeSpec = Static<typeof IntakeSpec>;

/** Validation errors as ServiceError details (`{path, message}`); empty when valid. Never echoes field values. */
export function intakeSpecErrors(value: unknown): ErrorDetail[] {
  if (Value.Check(IntakeSpec, value)) return lineRangeErrors(value);
  const seen = new Set<string>();
  return Value.Errors(IntakeSpec, value)
    .filter((error) => error.keyword !== 'boolean')
    .map((error) => ({ path: error.instancePath || '/', message: error.message }))
    .filter((error) => !seen.has(`${error.path} ${error.message}`) && seen.add(`${error.path} ${error.message}`) !== undefined)
    .slice(0, 50);
}

/** Throws VALIDATION_FAILED with per-field details unless `value` is a valid IntakeSpec 1.0.0. */
export function assertIntakeSpec(value: unknown): asserts value is IntakeSpec {
  const errors = intakeSpecErrors(value);
  if (errors.length > 0) throw new ServiceError('VALIDATION_FAILED', 'the document is not a valid IntakeSpec 1.0.0; fix the listed fields', errors);
}

// line_end >= line_start cannot be said in JSON Schema; checked here.
function lineRangeErrors(spec: IntakeSpec): ErrorDetail[] {
  const errors: ErrorDetail[] = [];
  for (const { path, citation } of citationsWithPaths(spec)) {
    if (citation.line_end < citation.line_start) errors.push({ path: `${path}/line_end`, message: 'must be >= line_start' });
  }
  return errors;
}

/** Every citation in the document with its JSON pointer, in document order. */
export function citationsWithPaths(spec: IntakeSpec): Array<{ path: string; citation: Citation }> {
  const out: Array<{ path: string; citation: Citation }> = [];
  const visit = (path: string, holder: { citations: Citation[] } | null) => {
    if (!holder) return;
    for (const [index, citation] of holder.citations.entries()) out.push({ path: `${path}/citations/${index}`, citation });
  };
  visit('/problem', spec.problem);
  visit('/proposed_solution', spec.proposed_solution);
  spec.intended_users.forEach((s, i) => {
    visit(`/intended_users/${i}`, s);
  });
  visit('/care_setting', spec.care_setting);
  visit('/stage', spec.stage);
  spec.claims.forEach((s, i) => {
    visit(`/claims/${i}`, s);
  });
  spec.evidence_offered.forEach((s, i) => {
    visit(`/evidence_offered/${i}`, s);
  });
  spec.risks.forEach((s, i) => {
    visit(`/risks/${i}`, s);
  });
  for (const key of ['proposed_user', 'buyer', 'budget_owner', 'current_alternative', 'value_hypothesis'] as const) {
    visit(`/business/${key}`, spec.business[key]);
  }
  spec.business.dependencies.forEach((s, i) => {
    visit(`/business/dependencies/${i}`, s);
  });
  visit('/care_pathway/description', spec.care_pathway.description);
  spec.care_pathway.steps.forEach((s, i) => {
    visit(`/care_pathway/steps/${i}`, s);
  });
  return out;
}

/** Distinct source ids cited anywhere in the document (load these before calling checkCitations). */
export function citedSourceIds(spec: IntakeSpec): string[] {
  return [...new Set(citationsWithPaths(spec).map(({ citation }) => citation.source_id))];
}
