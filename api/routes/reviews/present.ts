// A review row as the API shows it: its state in words, its credits, its metered usage and, once succeeded, the review.
import type { Static } from 'typebox';
import type { Review, ReviewListItem } from '../../../domain/contracts/reviews.ts';
import type { ReviewState } from '../../../domain/review/states.ts';
import type { ReviewRow } from '../../../store/review/reviews.ts';

/** spec: States and transitions — review states are not shown there; these are ours (docs/review.md). */
export const REVIEW_STATE_DESCRIPTIONS: Record<ReviewState, string> = {
  queued: 'accepted; the workflow has not started its first step yet',
  searching: 'searching Europe PMC, checking retractions and corrections, reading openly licensed full text',
  drafting: 'the model (or the offline heuristic) is drafting the 13 dimensions from the intake and the retrieved records',
  verifying: 'checking every evidence claim: record retrieved, quote in the open text, judge agrees',
  succeeded: 'done; the ConceptReview is in `review` and can be downloaded',
  failed: 'stopped by a failure (see `failure`); the credit reservation was released, nothing was charged',
  canceled: 'canceled (POST /v1/reviews/{review_id}/cancel); credits used up to then were settled, nothing for a review canceled while queued',
};

export type ReviewUsage = { calls: number; input_tokens: number; output_tokens: number };

export function presentReviewListItem(row: ReviewRow): Static<typeof ReviewListItem> {
  return {
    id: row.id,
    project_id: row.project_id,
    org_id: row.org_id,
    plan_id: row.plan_id,
    status: row.status,
    status_description: REVIEW_STATE_DESCRIPTIONS[row.status],
    byok_provider: row.byok_provider,
    credits_reserved: row.credits_reserved,
    credits_used: row.credits_used,
    failure: row.failure,
    created_by: row.created_by,
    created_at: row.created_at,
    finished_at: row.finished_at,
  };
}

export function presentReview(row: ReviewRow, usage: ReviewUsage): Static<typeof Review> {
  return {
    ...presentReviewListItem(row),
    usage: { calls: usage.calls, input_tokens: usage.input_tokens, output_tokens: usage.output_tokens },
    literature_query: row.literature_query,
    updated_at: row.updated_at,
    review: row.status === 'succeeded' ? row.result : null,
  };
}
