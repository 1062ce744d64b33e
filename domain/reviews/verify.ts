// Evidence verification and assembly of the ConceptReview (spec: ConceptReview, the three checks). Pure.
// A claim is supported only when (1) its record was retrieved and kept by this review, (2) its quote appears in that
// record's openly licensed text with only whitespace normalized, and (3) the judge agrees. Otherwise it carries the
// first check that failed. Retracted records never appear as evidence.
import {
  CONCEPT_REVIEW_VERSION,
  type CitationRecordEntry,
  type ConceptReview,
  type EvidenceClaim,
  type FailedCheck,
  CLAIMS_PER_DIMENSION_MAX,
  QUOTE_CHARS_MAX,
  REVIEW_RECORDS_MAX,
  REVIEW_DISCLAIMER,
  REVIEW_LIMITATIONS,
  type ReviewDimension,
} from '../contracts/conceptReview.ts';
import type { EvaluationPlan } from '../contracts/evaluationPlan.ts';
import { invariant } from '../errors.ts';
import type { ConceptReviewDraft } from '../prompts/reviewDraft.ts';
import { DIMENSIONS, type DimensionId } from './dimensions.ts';
import type { LiteratureRecord } from './literature.ts';
import { CLAIMS_PER_REVIEW_MAX } from './limits.ts';
import { mentionIndex, type RemovedMention, REMOVED_MENTIONS_LISTED_MAX, removalReason, scrubMentions } from './mentions.ts';

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
    for (const [index, item] of (drafted?.evidence_claims ?? []).slice(0, CLAIMS_PER_DIMENSION_MAX).entries()) {
      if (out.length >= CLAIMS_PER_REVIEW_MAX) break;
      const claim_id = `${dimension.id}.${index + 1}`;
      const quote = item.quote.slice(0, QUOTE_CHARS_MAX);
      const found = byId.get(item.record_id.trim());
      const base = { claim_id, dimension_id: dimension.id, claim: item.claim, quote };
      // spec: ConceptReview check 1. A review presents no record it did not verify: the citation of a record never
      // retrieved, or excluded (retracted records are excluded), is removed (listed in removed_mentions) and the claim
      // stays unsupported.
      if (!found || found.record.status === 'excluded') {
        out.push({
          ...base,
          record_id: null,
          quote: '',
          record_title: null,
          failed_check: 'unverified_record',
          checks: { record_retrieved: false, quote_found: null, judge_agrees: null },
          note: found
            ? `the cited record was excluded (${found.record.exclusion_reason ?? 'excluded'}) and is not evidence; the citation was removed`
            : 'the cited record was not retrieved by this review; the citation was removed',
        });
        continue;
      }
      const { record, open_text } = found;
      if (open_text === null) {
        out.push({
          ...base,
          record_id: record.record_id,
          record_title: record.title,
          failed_check: 'support_not_verified',
          checks: { record_retrieved: true, quote_found: null, judge_agrees: null },
          note: `the service may not read this record's text: ${record.full_text_reason}`,
        });
        continue;
      }
      if (!quoteAppearsIn(quote, open_text)) {
        out.push({
          ...base,
          record_id: record.record_id,
          record_title: record.title,
          failed_check: 'quote_not_found',
          checks: { record_retrieved: true, quote_found: false, judge_agrees: null },
          note: "the quote does not appear in the record's openly licensed text",
        });
        continue;
      }
      out.push({
        ...base,
        record_id: record.record_id,
        record_title: record.title,
        failed_check: null,
        checks: { record_retrieved: true, quote_found: true, judge_agrees: null },
        note: null,
      });
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
  return retrieved.slice(0, REVIEW_RECORDS_MAX).map(({ record, open_text }) => ({
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
    full_text_reason:
      open_text !== null
        ? record.full_text_reason
        : record.full_text_access === 'open_licence'
          ? 'no open full text was available from Europe PMC'
          : record.full_text_reason,
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
  const removed_mentions = scrubReview(dimensions, input);
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
    removed_mentions,
    business_questions: input.plan.business_questions,
    ...(input.plan.business_assessment ? { business_assessment: input.plan.business_assessment } : {}),
  };
}

/**
 * Removes from every model-written text of the review each mention that does not name a record this review retrieved
 * and kept (domain/reviews/mentions.ts), and lists what it removed, including the identifiers of claims whose record was
 * never retrieved or was excluded. Quotes are left alone: a supported quote is verbatim text of a kept record.
 */
function scrubReview(dimensions: ReviewDimension[], input: AssembleInput): RemovedMention[] {
  const index = mentionIndex(input.retrieved.map((r) => r.record));
  const removed: RemovedMention[] = [];
  const scrub = (text: string, path: string) => {
    const result = scrubMentions(text, path, index);
    removed.push(...result.removed);
    return clipText(result.text);
  };
  const byId = new Map(input.retrieved.map((r) => [r.record.record_id, r.record]));
  for (const [d, dimension] of dimensions.entries()) {
    const at = `/dimensions/${d}`;
    dimension.summary = scrub(dimension.summary, `${at}/summary`);
    dimension.questions = dimension.questions.map((q, i) => scrub(q, `${at}/questions/${i}`));
    dimension.next_experiments = dimension.next_experiments.map((e, i) => scrub(e, `${at}/next_experiments/${i}`));
    const drafted = input.draft.dimensions.find((candidate) => candidate.id === dimension.id);
    for (const [c, claim] of dimension.evidence_claims.entries()) {
      const index_in_draft = Number(claim.claim_id.split('.').at(-1)) - 1;
      const cited = drafted?.evidence_claims[index_in_draft]?.record_id.trim() ?? '';
      if (claim.record_id === null && cited !== '') {
        const reason = removalReason(byId.get(cited) ?? null);
        invariant(reason !== null, `claim ${claim.claim_id} loses its record only when it was not retrieved or was excluded`);
        removed.push({ path: `${at}/evidence_claims/${c}/record_id`, removed: cited, reason });
      }
      claim.claim = scrub(claim.claim, `${at}/evidence_claims/${c}/claim`);
      if (claim.judge_reason !== null) claim.judge_reason = scrub(claim.judge_reason, `${at}/evidence_claims/${c}/judge_reason`);
    }
  }
  if (removed.length <= REMOVED_MENTIONS_LISTED_MAX) return removed;
  const listed = removed.slice(0, REMOVED_MENTIONS_LISTED_MAX - 1);
  const rest = removed.length - listed.length;
  listed.push({ path: '/dimensions', removed: `${rest} more`, reason: `${rest} further mentions were removed for the reasons above and are not listed` });
  return listed;
}
