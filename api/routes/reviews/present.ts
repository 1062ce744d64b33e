// A review row as the API shows it: its state in words, its credits, its metered usage and, once succeeded, the review.
import type { Static } from 'typebox';
import type { Review, ReviewListItem } from '../../../domain/contracts/reviews.ts';
import type { ReviewState } from '../../../domain/reviews/states.ts';
import type { ReviewRow } from '../../../store/reviews/reviews.ts';

/**
 * What a review is doing, in a sentence a person reads as is (every client shows it: the app, the CLI, the MCP tools).
 * spec: States and transitions — review states are not shown there; these are ours (docs/review.md has the details).
 */
export const REVIEW_STATE_DESCRIPTIONS: Record<ReviewState, string> = {
  queued: 'Accepted; it starts in a moment.',
  searching: 'Searching the published literature (Europe PMC) and checking for retractions and corrections.',
  drafting: 'Drafting the 13 dimensions from your intake and the papers found.',
  verifying: 'Checking every evidence claim three ways: the paper was found, the quote is in its open text, and the judge agrees.',
  succeeded: 'Finished; the review can be read and downloaded.',
  failed: 'Stopped by a failure; nothing was charged.',
  canceled: 'Canceled; only the credits used until then were charged (none if it had not started).',
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
