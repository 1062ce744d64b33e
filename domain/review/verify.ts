// Evidence verification and assembly of the ConceptReview (spec: ConceptReview, the three checks; issue 5 item 6). Pure.
// A claim is supported only when (1) its record was retrieved and kept by this review, (2) its quote appears in that
// record's openly licensed text with only whitespace normalized, and (3) the judge agrees. Otherwise it carries the
// first check that failed. Retracted records never appear as evidence.
import {
  CONCEPT_REVIEW_VERSION,
  type CitationRecordEntry,
  type ConceptReview,
  type EvidenceClaim,
  type FailedCheck,
  MAX_CLAIMS_PER_DIMENSION,
  MAX_QUOTE_CHARS,
  MAX_REVIEW_RECORDS,
  REVIEW_DISCLAIMER,
  REVIEW_LIMITATIONS,
  type ReviewDimension,
} from '../contracts/conceptReview.ts';
import type { EvaluationPlan } from '../contracts/evaluationPlan.ts';
import { invariant } from '../errors.ts';
import type { ConceptReviewDraft } from '../prompts/reviewDraft.ts';
import { DIMENSIONS, type DimensionId } from './dimensions.ts';
import type { LiteratureRecord } from './literature.ts';
import { MAX_CLAIMS_PER_REVIEW } from './limits.ts';

/** A retrieved record with its openly licensed text, when the service could read it. */
export type RetrievedRecord = { record: LiteratureRecord; open_text: string | null };

export function normalizeWhitespace(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** spec: ConceptReview check 2 — the quote appears in the text, only whitespace normalized (no case or punctuation folding). */
export function quoteAppearsIn(quote: string, text: string): boolean {
  const needle = normalizeWhitespace(quote);
  return needle.length > 0 && normalizeWhitespace(text).includes(needle);
}

export type PrecheckedClaim = {
  claim_id: string;
  dimension_id: DimensionId;
  claim: string;
  record_id: string | null;
  quote: string;
  record_title: string | null;
  /** null: checks 1 and 2 passed, the judge decides. */
  failed_check: FailedCheck | null;
  checks: EvidenceClaim['checks'];
  note: string | null;
};

/** Checks 1 and 2 for every drafted claim, in dimension order; claims beyond the limits are dropped. */
export function precheckClaims(draft: ConceptReviewDraft, retrieved: readonly RetrievedRecord[]): PrecheckedClaim[] {
  const byId = new Map(retrieved.map((r) => [r.record.record_id, r]));
  const out: PrecheckedClaim[] = [];
  for (const dimension of DIMENSIONS) {
    const drafted = draft.dimensions.find((d) => d.id === dimension.id);
    for (const [index, item] of (drafted?.evidence_claims ?? []).slice(0, MAX_CLAIMS_PER_DIMENSION).entries()) {
      if (out.length >= MAX_CLAIMS_PER_REVIEW) break;
      const claim_id = `${dimension.id}.${index + 1}`;
      const quote = item.quote.slice(0, MAX_QUOTE_CHARS);
      const found = byId.get(item.record_id.trim());
      const base = { claim_id, dimension_id: dimension.id, claim: item.claim, quote };
      if (!found) {
        out.push({ ...base, record_id: item.record_id.trim(), record_title: null, failed_check: 'unverified_record', checks: { record_retrieved: false, quote_found: null, judge_agrees: null }, note: 'the cited record was not retrieved by this review' });
        continue;
      }
      const { record, open_text } = found;
      if (record.status === 'excluded') {
        // spec: ConceptReview — retracted records are excluded, so the citation is removed, not shown as evidence.
        out.push({
          ...base,
          record_id: null,
          quote: '',
          record_title: null,
          failed_check: 'unverified_record',
          checks: { record_retrieved: false, quote_found: null, judge_agrees: null },
          note: `the cited record was excluded (${record.exclusion_reason ?? 'excluded'}) and is not evidence; the citation was removed`,
        });
        continue;
      }
      if (open_text === null) {
        out.push({ ...base, record_id: record.record_id, record_title: record.title, failed_check: 'support_not_verified', checks: { record_retrieved: true, quote_found: null, judge_agrees: null }, note: `the service may not read this record's text: ${record.full_text_reason}` });
        continue;
      }
      if (!quoteAppearsIn(quote, open_text)) {
        out.push({ ...base, record_id: record.record_id, record_title: record.title, failed_check: 'quote_not_found', checks: { record_retrieved: true, quote_found: false, judge_agrees: null }, note: "the quote does not appear in the record's openly licensed text" });
        continue;
      }
      out.push({ ...base, record_id: record.record_id, record_title: record.title, failed_check: null, checks: { record_retrieved: true, quote_found: true, judge_agrees: null }, note: null });
    }
  }
  return out;
}

export type Judgement = { claim_id: string; agrees: boolean; reason: string };

/** Check 3 applied: a claim that passed 1 and 2 is supported only when its judgement agrees. */
export function finalizeClaims(prechecked: readonly PrecheckedClaim[], judgements: readonly Judgement[]): Array<EvidenceClaim & { dimension_id: DimensionId }> {
  const byClaim = new Map(judgements.map((j) => [j.claim_id, j]));
  return prechecked.map((c) => {
    const common = { claim_id: c.claim_id, dimension_id: c.dimension_id, claim: c.claim, record_id: c.record_id, quote: c.quote };
    if (c.failed_check !== null) return { ...common, supported: false, failed_check: c.failed_check, checks: c.checks, judge_reason: null, note: c.note };
    const judgement = byClaim.get(c.claim_id);
    invariant(judgement !== undefined, `claim ${c.claim_id} passed checks 1 and 2 and has a judgement`);
    return {
      ...common,
      supported: judgement.agrees,
      failed_check: judgement.agrees ? null : 'judge_disagrees',
      checks: { ...c.checks, judge_agrees: judgement.agrees },
      judge_reason: judgement.reason,
      note: null,
    };
  });
}

export function citationRecord(retrieved: readonly RetrievedRecord[]): CitationRecordEntry[] {
  return retrieved.slice(0, MAX_REVIEW_RECORDS).map(({ record, open_text }) => ({
    record_id: record.record_id,
    title: record.title,
    authors: record.authors,
    journal: record.journal,
    year: record.year,
    pmid: record.pmid,
    pmcid: record.pmcid,
    doi: record.doi,
    url: record.url,
    publication_types: record.publication_types.slice(0, 50),
    licence: record.licence,
    status: record.status,
    exclusion_reason: record.exclusion_reason,
    full_text: open_text !== null ? 'read' : 'support_not_verified',
    full_text_reason: open_text !== null ? record.full_text_reason : record.full_text_access === 'open_licence' ? 'no open full text was available from Europe PMC' : record.full_text_reason,
    notes: record.notes.slice(0, 20),
  }));
}

export type ModelLabel = ConceptReview['drafted_by'];

export type AssembleInput = {
  review_id: string;
  project_id: string;
  plan_id: string;
  plan: EvaluationPlan;
  draft: ConceptReviewDraft;
  claims: ReturnType<typeof finalizeClaims>;
  retrieved: readonly RetrievedRecord[];
  query: string;
  searched_at: string;
  drafted_by: ModelLabel;
  judged_by: ModelLabel | null;
};

function clipText(text: string, max = 4000): string {
  return text.length <= max ? text : text.slice(0, max);
}

/** The ConceptReview 1.0.0 document: 13 dimensions in order, each ai_hypothesis, claims with their checks. */
export function assembleConceptReview(input: AssembleInput): ConceptReview {
  const dimensions: ReviewDimension[] = DIMENSIONS.map((definition) => {
    const drafted = input.draft.dimensions.find((d) => d.id === definition.id);
    return {
      id: definition.id,
      name: definition.name,
      source: definition.source,
      label: 'ai_hypothesis',
      summary: clipText(drafted?.summary?.trim() || 'The drafter wrote nothing for this dimension; treat it as an open question.'),
      questions: (drafted?.questions.length ? drafted.questions : [...definition.questions]).slice(0, 8).map((q) => clipText(q)),
      next_experiments: (drafted?.next_experiments.length ? drafted.next_experiments : [...definition.next_experiments]).slice(0, 8).map((e) => clipText(e)),
      evidence_claims: input.claims.filter((c) => c.dimension_id === definition.id).map(({ dimension_id: _, ...claim }) => claim),
    };
  });
  const failed = { unverified_record: 0, quote_not_found: 0, judge_disagrees: 0, support_not_verified: 0 };
  for (const claim of input.claims) if (claim.failed_check) failed[claim.failed_check] += 1;
  const records = citationRecord(input.retrieved);
  return {
    version: CONCEPT_REVIEW_VERSION,
    review_id: input.review_id,
    project_id: input.project_id,
    plan_id: input.plan_id,
    intake_revision: input.plan.intake_revision,
    disclaimer: REVIEW_DISCLAIMER,
    limitations: [...REVIEW_LIMITATIONS],
    drafted_by: input.drafted_by,
    judged_by: input.judged_by,
    dimensions,
    evidence_summary: { claims_total: input.claims.length, claims_supported: input.claims.filter((c) => c.supported).length, failed_checks: failed },
    literature: {
      index: 'Europe PMC',
      query: input.query.slice(0, 2000),
      searched_at: input.searched_at,
      records_retrieved: input.retrieved.length,
      records_excluded: input.retrieved.filter((r) => r.record.status === 'excluded').length,
      records,
    },
    business_questions: input.plan.business_questions,
    ...(input.plan.business_assessment ? { business_assessment: input.plan.business_assessment } : {}),
  };
}
