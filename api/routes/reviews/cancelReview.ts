import { Review } from '../../../domain/contracts/reviews.ts';
import { ServiceError } from '../../../domain/errors.ts';
import { jobEnded } from '../../../domain/jobs.ts';
import { cancelJob } from '../../../integrations/temporal/jobs.ts';
import { cancelQueuedReview, findReview } from '../../../store/reviews/reviews.ts';
import { authorizeOwned } from '../../auth.ts';
import type { AppDeps } from '../../context.ts';
import { route, type RouteDef } from '../../registry.ts';
import { reviewBody } from './load.ts';

export function cancelReviewRoute(deps: AppDeps): RouteDef {
  const { db } = deps;
  return route({
    method: 'post',
    path: '/v1/reviews/{review_id}/cancel',
    operation_id: 'cancelReview',
    summary:
      'Cancel a review: a queued one ends canceled at once (nothing charged); a running one (searching, drafting, verifying) is stopped through its workflow, which settles the credits used so far and records canceled',
    tag: 'review',
    auth: 'user',
    scope: 'run',
    role: 'member',
    responses: {
      200: {
        description:
          'the review as it is now: canceled, or still searching/drafting/verifying until its workflow records canceled (poll GET /v1/reviews/{review_id})',
        schema: Review,
      },
      409: { description: 'CONFLICT: the review already ended (succeeded, failed or canceled); details.status names the state' },
    },
    handler: async (ctx, input) => {
      const id = input.params.review_id;
      const what = `Review ${id}`;
      // Same checks as starting a review: scope run, then tenant (another organization's review is a plain 404), then role.
      const found = await authorizeOwned(deps, ctx, what, await findReview(db, id), { scope: 'run', role: 'member' });
      if (jobEnded('review', found.status)) {
        throw new ServiceError('CONFLICT', `${what} already ended with status ${found.status}; nothing to cancel.`, { status: found.status });
      }
      // A queued review has used nothing: it ends here, conditionally (from queued only). A running one belongs to its
      // workflow, which settles what was used and marks the row canceled; it is asked to stop in both cases, so a
      // workflow that had just started (or starts later and finds the row canceled) does no work.
      const ended = await db.transaction((tx) => cancelQueuedReview(tx, id));
      await cancelJob(deps.temporal, { kind: 'review', resource_id: id });
      ctx.body = await reviewBody(db, ended ?? (await findReview(db, id))!);
    },
  });
}
