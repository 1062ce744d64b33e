import { Review } from '../../../domain/contracts/reviews.ts';
import { authorizeOwned } from '../../auth.ts';
import type { AppDeps } from '../../context.ts';
import { sendRendered } from '../../poll.ts';
import { route, type RouteDef } from '../../registry.ts';
import { reviewAnswer } from './load.ts';

export function getReviewRoute(deps: AppDeps): RouteDef {
  return route({
    method: 'get',
    path: '/v1/reviews/{review_id}',
    operation_id: 'getReview',
    summary: 'Poll a review: its state (queued, searching, drafting, verifying, succeeded, failed, canceled) and, once succeeded, the ConceptReview',
    tag: 'review',
    auth: 'user',
    scope: 'read',
    role: 'member',
    pollable: true,
    responses: { 200: { description: 'the review', schema: Review }, 304: { description: 'not modified: the If-None-Match version is current' } },
    handler: async (ctx, input) => {
      const answer = await reviewAnswer(deps, input.params.review_id);
      await authorizeOwned(deps, ctx, `Review ${input.params.review_id}`, answer?.row);
      sendRendered(ctx, answer!.body);
    },
  });
}
