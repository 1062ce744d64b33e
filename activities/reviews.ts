// The concept review's side effects: state moves, the literature search with retraction checks and
// open-access text, the drafting and judging requests built from stored data, and the verified ConceptReview stored.
// AI calls themselves go through the callModel activity (activities/aiCall.ts), called by the workflow. Each activity
// is safe to retry: the record set is replaced as a whole, state moves are guarded, the result is written once.
import type { JobFailure } from '../domain/contracts/jobFailure.ts';
import type { ConceptReview } from '../domain/contracts/conceptReview.ts';
import { invariant } from '../domain/errors.ts';
import {
  type ConceptReviewDraft,
  type DraftRecord,
  REVIEW_DRAFT_PROMPT,
  buildReviewDraftUserMessage,
  reviewDraftSystem,
} from '../domain/prompts/reviewDraft.ts';
import { REVIEW_JUDGE_PROMPT, buildReviewJudgeUserMessage, reviewJudgeSystem } from '../domain/prompts/reviewJudge.ts';
import { RECORDS_BEFORE_BROADENING_MIN, reviewQueryInput } from '../domain/reviews/query.ts';
import { type LiteratureRecord, includedRecords, literatureQueryLadder } from '../domain/reviews/literature.ts';
import { REVIEW_SEARCH_RECORDS_MAX } from '../domain/reviews/limits.ts';
import type { OfflineDraftInput } from '../domain/reviews/offline.ts';
import '../domain/reviews/register.ts';
import { isFinished, type ReviewState } from '../domain/reviews/states.ts';
import { type Judgement, type ModelLabel, type PrecheckedClaim, assembleConceptReview, finalizeClaims, precheckClaims } from '../domain/reviews/verify.ts';
import { type Db, notFound } from '../store/db.ts';
import { getIntakeRevision } from '../store/intake/revisions.ts';
import { findPlan } from '../store/plans/plans.ts';
import { type StoredRecord, findReview, moveReview, reviewRecords, storeReviewRecords } from '../store/reviews/reviews.ts';
import { type ActivityDeps, withDeps } from './deps.ts';
import { fetchOpenAccessText, searchLiterature } from '../integrations/europepmc/client.ts';
import type { HostedAiProvider } from '../domain/ai/providers.ts';

export type ReviewContext = {
  review_id: string;
  org_id: string;
  project_id: string;
  plan_id: string;
  byok_provider: HostedAiProvider | null;
  credits_reserved: number;
  status: ReviewState;
};

export type JudgeRequest = { claim_id: string; system: string; prompt: string; offline_input: { claim: string; quote: string; record_title: string } };

function missing(what: string): never {
  throw notFound(what);
}

/** The review, its plan and the intake revision the plan was made from. */
async function loadIntake(db: Db, review_id: string) {
  const review = (await findReview(db, review_id)) ?? missing(`Review ${review_id}`);
  const plan = (await findPlan(db, review.project_id, review.plan_id)) ?? missing(`Plan ${review.plan_id} of review ${review_id}`);
  const revision =
    (await getIntakeRevision(db, review.project_id, plan.intake_revision)) ??
    missing(`Intake revision ${plan.intake_revision} of project ${review.project_id}`);
  return { review, plan, intake: revision.spec };
}

/** What the review workflow needs to know of its review. */
async function loadReviewContext({ db }: ActivityDeps, input: { review_id: string }): Promise<ReviewContext> {
  const review = (await findReview(db, input.review_id)) ?? missing(`Review ${input.review_id}`);
  return {
    review_id: review.id,
    org_id: review.org_id,
    project_id: review.project_id,
    plan_id: review.plan_id,
    byok_provider: review.byok_provider,
    credits_reserved: review.credits_reserved,
    status: review.status,
  };
}

/** Moves the review to a state; a finished review stays finished. Returns the state after the move. */
async function markReview(
  { db }: ActivityDeps,
  input: { review_id: string; status: ReviewState; failure?: JobFailure; credits_used?: number },
): Promise<{ status: ReviewState }> {
  const row = await db.transaction((tx) => moveReview(tx, input.review_id, input.status, { failure: input.failure, credits_used: input.credits_used }));
  return { status: row.status };
}

type SearchSummary = { query: string; records_retrieved: number; records_excluded: number; open_texts: number };

/**
 * Searches Europe PMC with the intake's terms (broadening along the query ladder while fewer than
 * RECORDS_BEFORE_BROADENING_MIN records are kept), reads open-access text where the licence allows,
 * and stores the whole record set — excluded records with their reasons — for the citation record.
 */
async function searchReviewLiterature({ config, db, logger }: ActivityDeps, input: { review_id: string }): Promise<SearchSummary> {
  const { intake } = await loadIntake(db, input.review_id);
  const ladder = literatureQueryLadder(reviewQueryInput(intake));
  const found = new Map<string, LiteratureRecord>();
  const used: string[] = [];
  for (const query of ladder) {
    used.push(query);
    for (const record of await searchLiterature({ base_url: config.europe_pmc_base_url, query, limit: REVIEW_SEARCH_RECORDS_MAX })) {
      if (!found.has(record.record_id)) found.set(record.record_id, record);
    }
    if (includedRecords([...found.values()]).length >= RECORDS_BEFORE_BROADENING_MIN) break;
  }
  const records = [...found.values()];
  const stored: StoredRecord[] = [];
  for (const record of records) {
    const open_text = record.status === 'included' ? await fetchOpenAccessText({ base_url: config.europe_pmc_base_url, record }) : null;
    stored.push({ record, open_text });
  }
  const query = used.join(' || ');
  await db.transaction(async (tx) => {
    // A search still running when the review was canceled (or failed) finishes here without touching the ended row.
    const current = await tx.one<{ status: ReviewState }>('select status from reviews where id = ? for update', [input.review_id]);
    if (!current || isFinished(current.status)) return;
    await storeReviewRecords(tx, input.review_id, stored);
    await tx.query('update reviews set literature_query = ?, searched_at = now(), updated_at = now() where id = ?', [query, input.review_id]);
  });
  const excluded = records.filter((r) => r.status === 'excluded').length;
  logger.info({ review_id: input.review_id, records: records.length, excluded }, 'review literature retrieved');
  return { query, records_retrieved: records.length, records_excluded: excluded, open_texts: stored.filter((s) => s.open_text !== null).length };
}

/** The drafting request: the published prompt, the intake and the kept records (retracted work is never shown). */
async function prepareReviewDraft(
  { db }: ActivityDeps,
  input: { review_id: string },
): Promise<{ system: string; prompt: string; offline_input: OfflineDraftInput; records_in_prompt: number }> {
  const { intake } = await loadIntake(db, input.review_id);
  const stored = await reviewRecords(db, input.review_id);
  const draftRecords: DraftRecord[] = stored
    .filter((s) => s.record.status === 'included')
    .map((s) => ({
      record_id: s.record.record_id,
      title: s.record.title,
      year: s.record.year,
      journal: s.record.journal,
      text_kind: s.open_text !== null ? ('open_full_text' as const) : ('abstract' as const),
      text: s.open_text ?? s.record.abstract ?? '',
      notes: s.record.notes,
    }))
    .filter((r) => r.text.length > 0);
  const { prompt, records } = buildReviewDraftUserMessage({ intake, records: draftRecords });
  const topic = intake.problem?.text ?? intake.proposed_solution?.text ?? '';
  return {
    system: reviewDraftSystem(),
    prompt,
    offline_input: { topic, problem: intake.problem?.text ?? null, solution: intake.proposed_solution?.text ?? null, stage: intake.stage.value, records },
    records_in_prompt: records.length,
  };
}

/** Checks 1 and 2 for every drafted claim, and one judging request per claim that passed both. */
async function prepareReviewJudging(
  { db }: ActivityDeps,
  input: { review_id: string; draft: ConceptReviewDraft },
): Promise<{ prechecked: PrecheckedClaim[]; requests: JudgeRequest[] }> {
  const stored = await reviewRecords(db, input.review_id);
  const prechecked = precheckClaims(input.draft, stored);
  const requests = prechecked
    .filter((c) => c.failed_check === null)
    .map((c) => {
      const judge = { claim: c.claim, quote: c.quote, record_title: c.record_title ?? '' };
      return { claim_id: c.claim_id, system: reviewJudgeSystem(), prompt: buildReviewJudgeUserMessage(judge), offline_input: judge };
    });
  return { prechecked, requests };
}

type CompleteReviewInput = {
  review_id: string;
  draft: ConceptReviewDraft;
  prechecked: PrecheckedClaim[];
  judgements: Judgement[];
  drafted_by: Omit<ModelLabel, 'prompt_id'>;
  judged_by: Omit<ModelLabel, 'prompt_id'> | null;
};

/** Assembles and stores the ConceptReview (the review is marked succeeded once its credits are settled). */
async function completeReview({ db }: ActivityDeps, input: CompleteReviewInput): Promise<{ claims_total: number; claims_supported: number }> {
  const { review, plan } = await loadIntake(db, input.review_id);
  const stored = await reviewRecords(db, input.review_id);
  const result: ConceptReview = assembleConceptReview({
    review_id: review.id,
    project_id: review.project_id,
    plan_id: review.plan_id,
    plan: plan.plan,
    draft: input.draft,
    claims: finalizeClaims(input.prechecked, input.judgements),
    retrieved: stored,
    query: review.literature_query ?? '',
    searched_at: review.searched_at ?? review.updated_at,
    drafted_by: { ...input.drafted_by, prompt_id: REVIEW_DRAFT_PROMPT.id },
    judged_by: input.judged_by ? { ...input.judged_by, prompt_id: REVIEW_JUDGE_PROMPT.id } : null,
  });
  // Stored while still verifying: the review shows succeeded only after its credits are settled (the workflow's next step).
  const row = await db.transaction((tx) => moveReview(tx, input.review_id, 'verifying', { result }));
  invariant(row.status === 'verifying' || row.status === 'canceled' || row.status === 'failed', 'a completed review is verifying or already ended');
  return { claims_total: result.evidence_summary.claims_total, claims_supported: result.evidence_summary.claims_supported };
}

export function reviewActivities(deps: ActivityDeps) {
  return {
    loadReviewContext: withDeps(deps, loadReviewContext),
    markReview: withDeps(deps, markReview),
    searchReviewLiterature: withDeps(deps, searchReviewLiterature),
    prepareReviewDraft: withDeps(deps, prepareReviewDraft),
    prepareReviewJudging: withDeps(deps, prepareReviewJudging),
    completeReview: withDeps(deps, completeReview),
  };
}
