// ConceptReview 1.0.0: the concept and evidence review over 13 rubric dimensions, each an `ai_hypothesis`, with every
// evidence claim verified three ways and the citation record of what was searched, kept and excluded
// (spec: ConceptReview; What the service does 3).
import { Type, type Static } from 'typebox';
import { DIMENSION_IDS } from '../reviews/dimensions.ts';
import { REMOVED_MENTION_TEXT_MAX, REMOVED_MENTIONS_LISTED_MAX } from '../reviews/mentions.ts';
import { BusinessAssessment, BusinessQuestions } from './evaluationPlan.ts';
import { registerContract } from './registry.ts';

export const CONCEPT_REVIEW_VERSION = '1.0.0';

export const REVIEW_TEXT_CHARS_MAX = 4000;
export const QUOTE_CHARS_MAX = 1000;
/** Evidence claims kept per dimension; the drafter is told this limit. */
export const CLAIMS_PER_DIMENSION_MAX = 3;
export const QUESTIONS_PER_DIMENSION_MAX = 8;
export const EXPERIMENTS_PER_DIMENSION_MAX = 8;
/** Records kept in one review's citation record. */
export const REVIEW_RECORDS_MAX = 100;

export const FAILED_CHECKS = ['unverified_record', 'quote_not_found', 'judge_disagrees', 'support_not_verified'] as const;
export type FailedCheck = (typeof FAILED_CHECKS)[number];

/** spec: What the service does 3 — the review says what it is not. */
export const REVIEW_DISCLAIMER =
  'This review is a starting point to test. It is not a verified finding and not advice. It does not establish demand, willingness to pay, revenue or clinical benefit. Every dimension is an AI hypothesis (ai_hypothesis); only evidence claims marked supported passed all three checks.';

export const REVIEW_LIMITATIONS = [
  'It does not establish demand.',
  'It does not establish willingness to pay.',
  'It does not establish revenue.',
  'It does not establish clinical benefit.',
  'It is not clinical, regulatory, legal or commercial advice.',
] as const;

const Text = Type.String({ maxLength: REVIEW_TEXT_CHARS_MAX });

export const EvidenceChecks = Type.Object(
  {
    record_retrieved: Type.Boolean({ description: '(1) the cited record is one this review retrieved and kept (not excluded)' }),
    quote_found: Type.Union([Type.Boolean(), Type.Null()], {
      description: "(2) the quote appears in the record's openly licensed text, whitespace normalized only; null when not checked",
    }),
    judge_agrees: Type.Union([Type.Boolean(), Type.Null()], { description: '(3) a second AI call agrees the quote supports the claim; null when not asked' }),
  },
  { additionalProperties: false },
);

export const EvidenceClaim = Type.Object(
  {
    claim_id: Type.String({ maxLength: 40 }),
    claim: Text,
    record_id: Type.Union([Type.String({ maxLength: 200 }), Type.Null()], {
      description: 'the cited record (e.g. MED:31234567); null when the model cited an excluded record, which never appears as evidence',
    }),
    quote: Type.String({ maxLength: QUOTE_CHARS_MAX }),
    supported: Type.Boolean({ description: 'true only when all three checks pass' }),
    failed_check: Type.Union([Type.Enum(FAILED_CHECKS), Type.Null()]),
    checks: EvidenceChecks,
    judge_reason: Type.Union([Type.String({ maxLength: REVIEW_TEXT_CHARS_MAX }), Type.Null()]),
    note: Type.Union([Type.String({ maxLength: 400 }), Type.Null()]),
  },
  { additionalProperties: false },
);
export type EvidenceClaim = Static<typeof EvidenceClaim>;

export const ReviewDimension = Type.Object(
  {
    id: Type.Enum(DIMENSION_IDS),
    name: Type.String({ maxLength: 100 }),
    source: Type.String({ maxLength: 400, description: 'the framework the dimension comes from' }),
    label: Type.Literal('ai_hypothesis'),
    summary: Text,
    questions: Type.Array(Text, { maxItems: QUESTIONS_PER_DIMENSION_MAX }),
    next_experiments: Type.Array(Text, { maxItems: EXPERIMENTS_PER_DIMENSION_MAX }),
    evidence_claims: Type.Array(EvidenceClaim, { maxItems: CLAIMS_PER_DIMENSION_MAX }),
  },
  { additionalProperties: false },
);
export type ReviewDimension = Static<typeof ReviewDimension>;

export const CitationRecordEntry = Type.Object(
  {
    record_id: Type.String({ maxLength: 200 }),
    title: Type.String({ maxLength: 2000 }),
    authors: Type.Union([Type.String({ maxLength: 2000 }), Type.Null()]),
    journal: Type.Union([Type.String({ maxLength: 400 }), Type.Null()]),
    year: Type.Union([Type.Integer(), Type.Null()]),
    pmid: Type.Union([Type.String(), Type.Null()]),
    pmcid: Type.Union([Type.String(), Type.Null()]),
    doi: Type.Union([Type.String(), Type.Null()]),
    url: Type.String({ maxLength: 400 }),
    publication_types: Type.Array(Type.String({ maxLength: 200 }), { maxItems: 50 }),
    licence: Type.Union([Type.String({ maxLength: 100 }), Type.Null()]),
    status: Type.Union([Type.Literal('included'), Type.Literal('excluded')]),
    exclusion_reason: Type.Union([Type.Literal('retracted_publication'), Type.Literal('retraction_notice'), Type.Null()]),
    full_text: Type.Union([Type.Literal('read'), Type.Literal('support_not_verified')], {
      description: 'read: the openly licensed full text was fetched and quotes were checked against it',
    }),
    full_text_reason: Type.String({ maxLength: 400 }),
    notes: Type.Array(Type.String({ maxLength: 400 }), { maxItems: 20, description: 'corrections, expressions of concern, the exclusion' }),
  },
  { additionalProperties: false },
);
export type CitationRecordEntry = Static<typeof CitationRecordEntry>;

export const RemovedMention = Type.Object(
  {
    path: Type.String({ maxLength: 200, description: 'JSON pointer of the text the mention was removed from' }),
    removed: Type.String({ maxLength: REMOVED_MENTION_TEXT_MAX, description: 'the mention as the model wrote it' }),
    reason: Type.String({ maxLength: 400 }),
  },
  { additionalProperties: false },
);

export const ModelLabel = Type.Object(
  {
    provider: Type.String({ maxLength: 40 }),
    model: Type.String({ maxLength: 120 }),
    heuristic: Type.Boolean({ description: 'true for the offline provider: a deterministic heuristic, not an AI model' }),
    prompt_id: Type.String({ maxLength: 64 }),
  },
  { additionalProperties: false },
);

export const ConceptReview = Type.Object(
  {
    version: Type.Literal(CONCEPT_REVIEW_VERSION),
    review_id: Type.String({ maxLength: 64 }),
    project_id: Type.String({ maxLength: 64 }),
    plan_id: Type.String({ maxLength: 64 }),
    intake_revision: Type.Integer({ minimum: 1 }),
    disclaimer: Type.String({ maxLength: 1000 }),
    limitations: Type.Array(Type.String({ maxLength: 400 }), { maxItems: 20 }),
    drafted_by: ModelLabel,
    judged_by: Type.Union([ModelLabel, Type.Null()], { description: 'null when no claim reached the judge' }),
    dimensions: Type.Array(ReviewDimension, { minItems: DIMENSION_IDS.length, maxItems: DIMENSION_IDS.length }),
    evidence_summary: Type.Object(
      {
        claims_total: Type.Integer({ minimum: 0 }),
        claims_supported: Type.Integer({ minimum: 0 }),
        failed_checks: Type.Object(
          {
            unverified_record: Type.Integer({ minimum: 0 }),
            quote_not_found: Type.Integer({ minimum: 0 }),
            judge_disagrees: Type.Integer({ minimum: 0 }),
            support_not_verified: Type.Integer({ minimum: 0 }),
          },
          { additionalProperties: false },
        ),
      },
      { additionalProperties: false },
    ),
    literature: Type.Object(
      {
        index: Type.Literal('Europe PMC'),
        query: Type.String({ maxLength: 2000 }),
        searched_at: Type.String({ format: 'date-time' }),
        records_retrieved: Type.Integer({ minimum: 0 }),
        records_excluded: Type.Integer({ minimum: 0 }),
        records: Type.Array(CitationRecordEntry, { maxItems: REVIEW_RECORDS_MAX, description: 'every record retrieved, excluded ones with their reason' }),
      },
      { additionalProperties: false },
    ),
    removed_mentions: Type.Optional(
      Type.Array(RemovedMention, {
        maxItems: REMOVED_MENTIONS_LISTED_MAX,
        description:
          'record identifiers and citation-like mentions taken out of the texts because they name no record this review retrieved and kept (never retrieved, excluded or retracted, or a numbered reference); each was replaced by "[citation removed]". Absent only in reviews made before this check.',
      }),
    ),
    business_questions: BusinessQuestions,
    business_assessment: Type.Optional(BusinessAssessment),
  },
  {
    $id: 'ConceptReview',
    title: 'ConceptReview 1.0.0',
    description:
      'A concept and evidence review over 13 dimensions, each labelled ai_hypothesis. A starting point to test; not a verified finding and not advice. It does not establish demand, willingness to pay, revenue or clinical benefit.',
    additionalProperties: false,
  },
);
export type ConceptReview = Static<typeof ConceptReview>;

registerContract({
  name: 'ConceptReview',
  version: CONCEPT_REVIEW_VERSION,
  description: 'Concept and evidence review: 13 ai_hypothesis dimensions, three-way verified evidence claims, the citation record.',
  schema: ConceptReview,
});
