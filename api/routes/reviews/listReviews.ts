import { Page } from '../../../domain/contracts/common.ts';
import { ReviewListItem } from '../../../domain/contracts/reviews.ts';
import { listReviews } from '../../../store/reviews/reviews.ts';
import type { AppDeps } from '../../context.ts';
import { page } from '../../http/request.ts';
import { route, type RouteDef } from '../../registry.ts';
import { PageQuery } from '../../schemas.ts';
import { loadProject } from '../projects/load.ts';
import { presentReviewListItem } from './present.ts';

export function listReviewsRoute(deps: AppDeps): RouteDef {
  return route({
    method: 'get',
    path: '/v1/projects/{project_id}/reviews',
    operation_id: 'listReviews',
    summary: "List a project's reviews, newest first (states and credits; the ConceptReview is read with getReview)",
    tag: 'review',
    auth: 'user',
    scope: 'read',
    role: 'member',
    query: { ...PageQuery },
    responses: { 200: { description: 'reviews', schema: Page(ReviewListItem) } },
    handler: async (ctx, input) => {
      const project = await loadProject(deps, ctx, input.params.project_id, 'read');
      const { offset, limit } = input.query;
      const rows = await listReviews(deps.db, project.id, offset, limit);
      ctx.body = page(rows.map(presentReviewListItem), offset, limit);
    },
  });
}
