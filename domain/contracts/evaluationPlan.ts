// EvaluationPlan 1.0.0: which evaluations apply to a project and why, the approvals they need, their estimated
// cost and the Business questions (spec: EvaluationPlan; What the service does 2). No viability score is produced.
import { Type, type Static } from 'typebox';
import { registerContract } from './registry.ts';

export const EVALUATION_PLAN_VERSION = '1.0.0';

export const EVALUATION_KINDS = ['concept_and_evidence_review', 'world_simulation'] as const;
export type EvaluationKind = (typeof EVALUATION_KINDS)[number];

/** hosted_inference: the service (not the user's own key) runs the AI steps. simulation_budget: runs spend credits. */
export const APPROVAL_SCOPES = ['hosted_inference', 'simulation_budget'] as const;
export type ApprovalScope = (typeof APPROVAL_SCOPES)[number];

export const PLAN_TEXT_CHARS_MAX = 4000;
export const PLAN_LIST_ITEMS_MAX = 100;

const Text = Type.String({ minLength: 1, maxLength: PLAN_TEXT_CHARS_MAX });
const Credits = Type.Integer({ minimum: 0, maximum: 9007199254740991 });

/** A pointer to the intake line a statement comes from; present only where the intake cites a source. */
export const CitedSource = Type.Object(
  {
    source_id: Type.String({ minLength: 1, maxLength: 64 }),
    line_start: Type.Integer({ minimum: 1 }),
    line_end: Type.Integer({ minimum: 1 }),
  },
  { additionalProperties: false },
);
export type CitedSource = Static<typeof CitedSource>;

export const EvaluationDecision = Type.Object(
  {
    kind: Type.Enum(EVALUATION_KINDS),
    // Additive (CHANGELOG.md): the tool registry entry (GET /v1/tools) that runs this evaluation.
    tool: Type.Optional(Type.String({ maxLength: 64, description: 'the tool in GET /v1/tools that runs this evaluation' })),
    decision: Type.Union([Type.Literal('recommended'), Type.Literal('skipped')]),
    explanation: Type.String({ minLength: 1, maxLength: PLAN_TEXT_CHARS_MAX, description: 'why, in plain words, tied to the intake fields named in based_on' }),
    based_on: Type.Array(Type.String({ maxLength: 200 }), {
      maxItems: 20,
      description: 'IntakeSpec fields (JSON pointers, e.g. /stage/value) the decision reads',
    }),
    approvals_needed: Type.Array(Type.Enum(APPROVAL_SCOPES), { maxItems: 10 }),
    estimated_credits: Type.Union([Credits, Type.Null()], {
      description: 'estimated credits if run with hosted inference; null when it can only be estimated later (a world run is estimated from its WorldSpec)',
    }),
    cost_basis: Type.String({ minLength: 1, maxLength: PLAN_TEXT_CHARS_MAX, description: 'how the estimate was made' }),
  },
  { additionalProperties: false },
);
export type EvaluationDecision = Static<typeof EvaluationDecision>;

export const ApprovalNeeded = Type.Object(
  {
    scope: Type.Enum(APPROVAL_SCOPES),
    evaluation_kinds: Type.Array(Type.Enum(EVALUATION_KINDS), { minItems: 1, maxItems: 2 }),
    reason: Text,
    not_needed_when: Type.Union([Type.String({ maxLength: 400 }), Type.Null()], {
      description: 'e.g. when the review runs with your own provider key (byok_provider)',
    }),
  },
  { additionalProperties: false },
);
export type ApprovalNeeded = Static<typeof ApprovalNeeded>;

/** One Business question: what the intake states (or that it is unknown) and what to ask next. */
export const BusinessQuestion = Type.Object(
  {
    field: Type.String({ maxLength: 100, description: 'the IntakeSpec field, e.g. business.buyer' }),
    status: Type.Union([Type.Literal('stated'), Type.Literal('unknown')], {
      description: 'unknown: the intake does not say; stated: the user said so (user_declared, not verified)',
    }),
    stated: Type.Union([Type.String({ maxLength: PLAN_TEXT_CHARS_MAX }), Type.Null()], { description: 'what the intake says, verbatim; null when unknown' }),
    question: Text,
    cited_sources: Type.Array(CitedSource, { maxItems: 20, description: 'only where the intake statement cites a source line' }),
  },
  { additionalProperties: false },
);
export type BusinessQuestion = Static<typeof BusinessQuestion>;

export const BusinessUnknown = Type.Object({ field: Type.String({ maxLength: 100 }), question: Text }, { additionalProperties: false });
export type BusinessUnknown = Static<typeof BusinessUnknown>;

export const BusinessQuestions = Type.Object(
  {
    proposed_user: BusinessQuestion,
    buyer: BusinessQuestion,
    budget_owner: BusinessQuestion,
    current_alternative: BusinessQuestion,
    dependencies: Type.Array(BusinessQuestion, { maxItems: PLAN_LIST_ITEMS_MAX, description: 'one entry per stated dependency, or one unknown entry' }),
    value_hypothesis: BusinessQuestion,
    suggested_buyer_interview: Type.Object(
      {
        interviewee: Text,
        purpose: Text,
        questions: Type.Array(Text, { minItems: 1, maxItems: 20 }),
      },
      { additionalProperties: false },
    ),
    unknowns: Type.Array(BusinessUnknown, { maxItems: PLAN_LIST_ITEMS_MAX, description: 'every business fact the intake does not state' }),
  },
  { additionalProperties: false },
);
export type BusinessQuestions = Static<typeof BusinessQuestions>;

/** spec: EvaluationPlan — a question map separating submitted claims, hypotheses and unknowns; no score. */
export const BusinessAssessment = Type.Object(
  {
    submitted_claims: Type.Array(
      Type.Object(
        {
          text: Text,
          topic: Type.String({ maxLength: 40 }),
          provenance: Type.Literal('user_declared'),
          cited_sources: Type.Array(CitedSource, { maxItems: 20 }),
          question: Text,
        },
        { additionalProperties: false },
      ),
      { maxItems: PLAN_LIST_ITEMS_MAX },
    ),
    hypotheses: Type.Array(Type.Object({ field: Type.String({ maxLength: 100 }), hypothesis: Text, how_to_test: Text }, { additionalProperties: false }), {
      maxItems: PLAN_LIST_ITEMS_MAX,
    }),
    unknowns: Type.Array(BusinessUnknown, { maxItems: PLAN_LIST_ITEMS_MAX }),
  },
  { additionalProperties: false },
);
export type BusinessAssessment = Static<typeof BusinessAssessment>;

export const EvaluationPlan = Type.Object(
  {
    version: Type.Literal(EVALUATION_PLAN_VERSION),
    intake_revision: Type.Integer({ minimum: 1, description: 'the confirmed intake revision the plan was made from' }),
    planner: Type.Object({ name: Type.String(), version: Type.String() }, { additionalProperties: false }),
    evaluations: Type.Array(EvaluationDecision, { minItems: EVALUATION_KINDS.length, maxItems: EVALUATION_KINDS.length }),
    approvals_needed: Type.Array(ApprovalNeeded, { maxItems: 10, description: 'nothing is approved implicitly; approve each with POST .../approve {scope}' }),
    estimated_cost: Type.Object(
      {
        total_credits: Credits,
        basis: Text,
        credits_per_1k_tokens: Type.Integer({ minimum: 0 }),
      },
      { additionalProperties: false },
    ),
    business_questions: BusinessQuestions,
    business_assessment: Type.Optional(BusinessAssessment),
    notes: Type.Array(Text, { maxItems: 20 }),
  },
  {
    $id: 'EvaluationPlan',
    title: 'EvaluationPlan 1.0.0',
    description:
      'Which evaluations apply to a project, each with a plain explanation, the approvals needed, estimated credits and the Business questions. It never scores viability.',
    additionalProperties: false,
  },
);
export type EvaluationPlan = Static<typeof EvaluationPlan>;

registerContract({
  name: 'EvaluationPlan',
  version: EVALUATION_PLAN_VERSION,
  description: 'Evaluation decisions with explanations, approvals needed, estimated credits and Business questions (no viability score).',
  schema: EvaluationPlan,
});
