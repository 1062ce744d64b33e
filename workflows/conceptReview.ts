// The concept and evidence review (spec: What the service does 3; issue 5), started by POST /v1/projects/{id}/reviews
// with id review-<review id>. Reads top to bottom as the process:
//   reserve credits → searching: search Europe PMC, exclude retracted work, read open texts, store the record set
//   → drafting: the model drafts 13 dimensions citing records with quotes
//   → verifying: checks 1 and 2 per claim, then the judge (check 3) for each claim that passed them
//   → succeeded: the ConceptReview stored → settle credits at actual usage.
// A failure (Europe PMC down after retries, a provider refusing) marks the review failed and releases the reservation;
// a cancellation settles what was used and marks it canceled. BYOK reviews reserve nothing (they cost 0 credits).
import { ApplicationFailure, CancellationScope, CancelledFailure, isCancellation, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import type { AiCallResult } from '../domain/ai/call.ts';
import { type ConceptReviewDraft, REVIEW_DRAFT_SCHEMA_NAME, REVIEW_DRAFT_TASK } from '../domain/prompts/reviewDraft.ts';
import { type EvidenceJudgement, REVIEW_JUDGE_SCHEMA_NAME, REVIEW_JUDGE_TASK } from '../domain/prompts/reviewJudge.ts';
import { DRAFT_MAX_OUTPUT_TOKENS, JUDGE_MAX_OUTPUT_TOKENS } from '../domain/review/limits.ts';
import { conceptReviewWorkflowId } from '../domain/review/states.ts';
import type { Judgement } from '../domain/review/verify.ts';
import { type Meter, meteredWork } from './credits.ts';
import { startQueued } from './reconcile.ts';

const { queuedReviewsToStart, loadReviewContext, markReview, prepareReviewDraft, prepareReviewJudging, completeReview } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '500 milliseconds', maximumInterval: '30 seconds', maximumAttempts: 20 },
});

// Europe PMC outages are retried a few times; past that the review fails and nothing is charged.
export const LITERATURE_MAX_ATTEMPTS = 4;
const { searchReviewLiterature } = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  retry: { initialInterval: '500 milliseconds', maximumInterval: '10 seconds', backoffCoefficient: 2, maximumAttempts: LITERATURE_MAX_ATTEMPTS },
});

const { callModel } = proxyActivities<Activities>({
  startToCloseTimeout: '6 minutes',
  retry: { initialInterval: '2 seconds', maximumInterval: '1 minute', backoffCoefficient: 2, maximumAttempts: 4 },
});

export type ConceptReviewWorkflowInput = { review_id: string };
export type ConceptReviewWorkflowResult = { status: 'succeeded' | 'failed' | 'canceled' | 'skipped'; claims_supported?: number };

/** The innermost ApplicationFailure's type and message for the review row; never a stack. */
function failureOf(error: unknown): { code: string; message: string } {
  let current: unknown = error;
  let found: ApplicationFailure | null = null;
  for (let depth = 0; current && depth < 10; depth++) {
    if (current instanceof ApplicationFailure) found = current;
    current = (current as { cause?: unknown }).cause;
  }
  if (!found) return { code: 'INTERNAL', message: 'the review failed inside the service; nothing was charged; start a new review' };
  if (found.type === 'LiteratureUnavailable') {
    return { code: 'LITERATURE_UNAVAILABLE', message: `Europe PMC could not be reached after ${LITERATURE_MAX_ATTEMPTS} attempts (${found.message}); nothing was charged; start a new review later` };
  }
  return { code: found.type ?? 'INTERNAL', message: found.message };
}

function label(result: AiCallResult) {
  return { provider: result.provider, model: result.model, heuristic: result.heuristic };
}

export async function conceptReviewWorkflow(input: ConceptReviewWorkflowInput): Promise<ConceptReviewWorkflowResult> {
  const review = await loadReviewContext({ review_id: input.review_id });
  if (review.status !== 'queued') return { status: 'skipped' }; // started before (a replayed start): nothing to do
  const subject = { project_id: review.project_id, kind: 'review' as const, id: review.review_id };
  let used = 0;

  const work = async (meter: Meter) => {
    const spend = (result: AiCallResult) => {
      meter.add(result.credits_charged);
      used += result.credits_charged;
    };
    // A row canceled (or ended) outside this workflow stops the work: the saga then settles what was used.
    const advance = async (status: 'searching' | 'drafting' | 'verifying') => {
      const now = await markReview({ review_id: review.review_id, status });
      if (now.status !== status) throw new CancelledFailure(`review ${review.review_id} is ${now.status}; stopping`);
    };
    await advance('searching');
    await searchReviewLiterature({ review_id: review.review_id });

    await advance('drafting');
    const request = await prepareReviewDraft({ review_id: review.review_id });
    const drafted = await callModel({
      org_id: review.org_id,
      subject,
      task: REVIEW_DRAFT_TASK,
      byok_provider: review.byok_provider,
      system: request.system,
      prompt: request.prompt,
      schema_name: REVIEW_DRAFT_SCHEMA_NAME,
      offline_input: request.offline_input,
      max_output_tokens: DRAFT_MAX_OUTPUT_TOKENS,
    });
    spend(drafted);
    const draft = drafted.object as ConceptReviewDraft;

    await advance('verifying');
    const judging = await prepareReviewJudging({ review_id: review.review_id, draft });
    const judgements: Judgement[] = [];
    let judged_by: ReturnType<typeof label> | null = null;
    for (const judge of judging.requests) {
      const result = await callModel({
        org_id: review.org_id,
        subject,
        task: REVIEW_JUDGE_TASK,
        byok_provider: review.byok_provider,
        system: judge.system,
        prompt: judge.prompt,
        schema_name: REVIEW_JUDGE_SCHEMA_NAME,
        offline_input: judge.offline_input,
        max_output_tokens: JUDGE_MAX_OUTPUT_TOKENS,
      });
      spend(result);
      judged_by ??= label(result);
      const verdict = result.object as EvidenceJudgement;
      judgements.push({ claim_id: judge.claim_id, agrees: verdict.verdict === 'supports', reason: verdict.reason });
    }
    return completeReview({
      review_id: review.review_id,
      draft,
      prechecked: judging.prechecked,
      judgements,
      drafted_by: label(drafted),
      judged_by,
    });
  };

  try {
    // With the organization's own key (or a free deployment) credits_reserved is 0 and nothing is reserved.
    const outcome = await meteredWork(
      {
        transfer_id_base: review.review_id,
        org_id: review.org_id,
        subject,
        credits_max: review.credits_reserved,
        reason: 'concept and evidence review',
        caused_by: review.review_id,
      },
      work,
    );
    // After settlement, so a review that shows succeeded has its credits settled (spec: What the service does 6).
    await markReview({ review_id: review.review_id, status: 'succeeded', credits_used: used });
    return { status: 'succeeded', claims_supported: outcome.claims_supported };
  } catch (error) {
    if (isCancellation(error)) {
      await CancellationScope.nonCancellable(() =>
        markReview({ review_id: review.review_id, status: 'canceled', failure: { code: 'CANCELED', message: 'the review was canceled' }, credits_used: used }),
      );
      throw error;
    }
    // meteredWork released the reservation: the failed review is not charged (spec: What the service does 6).
    await markReview({ review_id: review.review_id, status: 'failed', failure: failureOf(error), credits_used: 0 });
    return { status: 'failed' };
  }
}

/** A review still queued after this long is (re)started by the reconciler; a running one is left alone. */
export const QUEUED_REVIEW_RESTART_AFTER_MS = 5 * 60 * 1000;
/** Reviews (re)started per reconciler pass. */
export const QUEUED_REVIEWS_PER_PASS = 100;

/**
 * The reviews' reconciler (ARCHITECTURE.md: How a request flows, step 3), for the maintenance schedule to run (as a
 * child workflow or by calling it): starts the workflow of every review left queued, as an abandoned child with the review's deterministic id; one already started is skipped.
 */
export async function reconcileQueuedReviewsWorkflow(): Promise<{ started: number }> {
  const ids = await queuedReviewsToStart({ older_than_ms: QUEUED_REVIEW_RESTART_AFTER_MS, limit: QUEUED_REVIEWS_PER_PASS });
  return startQueued(ids, conceptReviewWorkflow, (review_id) => ({ workflowId: conceptReviewWorkflowId(review_id), input: { review_id } }));
}
