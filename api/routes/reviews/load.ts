// Reading a review for the room's operations: with its usage, rendered once per version, or checked for the caller.
import type { Context } from 'koa';
import type { Tx } from '../../../store/db.ts';
import { findReview, type ReviewRow, reviewUsage } from '../../../store/reviews/reviews.ts';
import { cachedRow } from '../../../store/rowCache.ts';
import { authorizeOwned } from '../../auth.ts';
import type { AppDeps } from '../../context.ts';
import { type Rendered, rendered } from '../../poll.ts';
import { presentReview } from './present.ts';

/** The review's body: the row with the AI usage metered for it (read in `tx` when inside a transaction). */
export async function reviewBody(tx: Tx, row: ReviewRow) {
  return presentReview(row, await reviewUsage(tx, row.id));
}

/**
 * A review's answer rendered once per version: its row, its JSON text and ETag, kept beside the row in the row cache.
 * The review's row and its AI usage are both announced under the review's id (0010, 0012), so a change of either drops
 * it; a poll then costs one cache read (one fence on PostgreSQL) instead of two, and no serialising or hashing. The body
 * is the same for every caller; access is checked on the row.
 */
export async function reviewAnswer(deps: AppDeps, review_id: string): Promise<{ row: ReviewRow; body: Rendered } | undefined> {
  return cachedRow(deps.db, review_id, 'answer', async () => {
    const row = await findReview(deps.db, review_id);
    return row && { row, body: rendered(await reviewBody(deps.db, row)) };
  });
}

/** A review the caller may read; another organization's review is a plain 404. */
export async function loadReview(deps: AppDeps, ctx: Context, id: string): Promise<ReviewRow> {
  return authorizeOwned(deps, ctx, `Review ${id}`, await findReview(deps.db, id));
}
