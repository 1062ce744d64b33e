// The concept and evidence review (spec: What the service does 3), started by POST /v1/projects/{id}/reviews
// with id review-<review id>. Reads top to bottom as the process:
//   reserve credits → searching: search Europe PMC, exclude retracted work, read open texts, store the record set
//   → drafting: the model drafts 13 dimensions citing records with quotes
//   → verifying: checks 1 and 2 per claim, then the judge (check 3) for each claim that passed them
//   → succeeded: the ConceptReview stored → settle credits at actual usage.
// A failure (Europe PMC down after retries, a provider refusing) marks the review failed and releases the reservation;
// a cancellation settles what was used and marks it canceled. BYOK reviews reserve nothing (they cost 0 credits).
import { CancelledFailure, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import type { JudgeRequest, ReviewContext } from '../activities/reviews.ts';
import type { AiCallResult } from '../domain/ai/call.ts';
import { type ConceptReviewDraft, REVIEW_DRAFT_SCHEMA_NAME, REVIEW_DRAFT_TASK } from '../domain/prompts/reviewDraft.ts';
import { type EvidenceJudgement, REVIEW_JUDGE_SCHEMA_NAME, REVIEW_JUDGE_TASK } from '../domain/prompts/reviewJudge.ts';
import { DRAFT_OUTPUT_TOKENS_MAX, JUDGE_OUTPUT_TOKENS_MAX } from '../domain/reviews/limits.ts';
import type { Judgement } from '../domain/reviews/verify.ts';
import { JOB_CREDITS, typedFailureOf } from '../domain/jobs.ts';
import { LITERATURE_FAILURE_TYPES } from '../domain/reviews/literature.ts';
import { queuedActivities } from './activityQueues.ts';
import { ACTIVITY_PROFILES, LITERATURE_ATTEMPTS_MAX } from './activityOptions.ts';
import { LITERATURE_UNREACHABLE_SENTENCE } from '../clients/sdk/src/words/failureWords.ts';
import { failureOf, type JobFailure, startingStep } from './common.ts';
import { type Meter, type MeteredOutcome, meteredWork, recordOutcome } from './credits.ts';

const { loadReviewContext, markReview, prepareReviewDraft, prepareReviewJudging, completeReview } = proxyActivities<Activities>(ACTIVITY_PROFILES.store);
const { searchReviewLiterature } = proxyActivities<Activities>(ACTIVITY_PROFILES.literature);
const { callModel } = queuedActivities<Activities>('model', ACTIVITY_PROFILES.model);

export type ConceptReviewWorkflowInput = { review_id: string };
export type ConceptReviewWorkflowResult = { status: 'succeeded' | 'failed' | 'canceled' | 'skipped'; claims_supported?: number };

/** The failure the review row records; a Europe PMC outage past its retries is named for what it is. */
function reviewFailure(error: unknown): JobFailure {
  const failure = failureOf(error, 'the review failed inside the service; nothing was charged; start a new review');
  // Only an outage was retried (a refused search is LITERATURE_UNAVAILABLE too, with its own message).
  if (typedFailureOf(error)?.type !== LITERATURE_FAILURE_TYPES.unavailable) return failure;
  return {
    code: 'LITERATURE_UNAVAILABLE',
    message: `${LITERATURE_UNREACHABLE_SENTENCE} Start a new review when it is back. Last of ${LITERATURE_ATTEMPTS_MAX} attempts: ${failure.message}`,
  };
}

function label(result: AiCallResult) {
  return { provider: result.provider, model: result.model, heuristic: result.heuristic };
}

/** Asks the judge about each claim that needs one, in order; the judge of the first answer labels them all. */
async function judgeClaims(
  review: ReviewContext,
  subject: { project_id: string; kind: 'review'; id: string },
  requests: JudgeRequest[],
  spend: (result: AiCallResult) => void,
  remaining: () => number,
): Promise<{ judgements: Judgement[]; judged_by: ReturnType<typeof label> | null }> {
  const judgements: Judgement[] = [];
  let judged_by: ReturnType<typeof label> | null = null;
  for (const judge of requests) {
    const result = await callModel({
      org_id: review.org_id,
      subject,
      task: REVIEW_JUDGE_TASK,
      byok_provider: review.byok_provider,
      system: judge.system,
      prompt: judge.prompt,
      schema_name: REVIEW_JUDGE_SCHEMA_NAME,
      offline_input: judge.offline_input,
      max_output_tokens: JUDGE_OUTPUT_TOKENS_MAX,
      credits_limit: remaining(),
    });
    spend(result);
    judged_by ??= label(result);
    const verdict = result.object as EvidenceJudgement;
    judgements.push({ claim_id: judge.claim_id, agrees: verdict.verdict === 'supports', reason: verdict.reason });
  }
  return { judgements, judged_by };
}

/** Records how the review ended: succeeded (after settlement), canceled (rethrown) or failed (released, not charged). */
function recordReview(review_id: string, outcome: MeteredOutcome<{ claims_supported: number }>): Promise<ConceptReviewWorkflowResult> {
  return recordOutcome<{ claims_supported: number }, ConceptReviewWorkflowResult>(outcome, {
    // After settlement, so a review that shows succeeded has its credits settled (spec: What the service does 6).
    succeeded: async (value, credits_used) => {
      await markReview({ review_id, status: 'succeeded', credits_used });
      return { status: 'succeeded', claims_supported: value.claims_supported };
    },
    canceled: (credits_used) => markReview({ review_id, status: 'canceled', failure: { code: 'CANCELED', message: 'the review was canceled' }, credits_used }),
    // meteredWork released the reservation: the failed review is not charged (spec: What the service does 6).
    failed: async (error) => {
      await markReview({ review_id, status: 'failed', failure: reviewFailure(error), credits_used: 0 });
      return { status: 'failed' };
    },
  });
}

export async function conceptReviewWorkflow(input: ConceptReviewWorkflowInput): Promise<ConceptReviewWorkflowResult> {
  const review = await startingStep(() => loadReviewContext({ review_id: input.review_id }));
  if (review.status !== 'queued') return { status: 'skipped' }; // started before (a replayed start): nothing to do
  const subject = { project_id: review.project_id, kind: 'review' as const, id: review.review_id };

  const work = async (meter: Meter) => {
    const spend = (result: AiCallResult) => meter.add(result.credits_charged);
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
      max_output_tokens: DRAFT_OUTPUT_TOKENS_MAX,
      credits_limit: meter.remaining(),
    });
    spend(drafted);
    const draft = drafted.object as ConceptReviewDraft;

    await advance('verifying');
    const judging = await prepareReviewJudging({ review_id: review.review_id, draft });
    const { judgements, judged_by } = await judgeClaims(review, subject, judging.requests, spend, meter.remaining);
    return completeReview({
      review_id: review.review_id,
      draft,
      prechecked: judging.prechecked,
      judgements,
      drafted_by: label(drafted),
      judged_by,
    });
  };

  // With the organization's own key (or a free deployment) credits_reserved is 0 and nothing is reserved.
  const outcome = await meteredWork(
    {
      transfer_id_base: review.review_id,
      org_id: review.org_id,
      subject,
      credits_max: review.credits_reserved,
      reason: JOB_CREDITS.review.reason,
      caused_by: review.review_id,
    },
    work,
  );
  return recordReview(review.review_id, outcome);
}
