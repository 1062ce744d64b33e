import { ServiceError } from '../../../domain/errors.ts';
import type { AppDeps } from '../../context.ts';
import { route, type RouteDef } from '../../registry.ts';
import { loadReview, reviewBody } from './load.ts';

export function downloadReviewRoute(deps: AppDeps): RouteDef {
  return route({
    method: 'get',
    path: '/v1/reviews/{review_id}/download',
    operation_id: 'downloadReview',
    summary: 'The whole review with its citation record as a JSON attachment',
    tag: 'review',
    auth: 'user',
    scope: 'read',
    role: 'member',
    responses: {
      200: {
        description: 'attachment: the review, every retrieved record (excluded ones with their reason) and every claim with its checks',
        content_type: 'application/json',
      },
      409: { description: 'the review has not succeeded (CONFLICT)' },
    },
    handler: async (ctx, input) => {
      const row = await loadReview(deps, ctx, input.params.review_id);
      if (row.status !== 'succeeded' || !row.result) {
        throw new ServiceError('CONFLICT', `Review ${row.id} is ${row.status}; it can be downloaded once it has succeeded.`, { status: row.status });
      }
      const view = await reviewBody(deps.db, row);
      const claims = row.result.dimensions.flatMap((d) => d.evidence_claims.map((c) => ({ dimension: d.id, ...c })));
      ctx.set('Content-Disposition', `attachment; filename="concept-review-${row.id}.json"`);
      ctx.type = 'application/json';
      ctx.body = {
        ...view,
        citation_record: {
          index: row.result.literature.index,
          query: row.result.literature.query,
          searched_at: row.result.literature.searched_at,
          records: row.result.literature.records,
          claims,
        },
      };
    },
  });
}
