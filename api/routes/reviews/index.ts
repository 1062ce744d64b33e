// Concept reviews (spec: What the service does 3; ConceptReview; endpoints reviews). Starting one needs a plan that
// recommends it and either an explicit hosted_inference approval or the organization's own key (byok_provider);
// otherwise 409 APPROVAL_REQUIRED, nothing charged, no workflow started.
import type { AppDeps } from '../../context.ts';
import type { RouteDef } from '../../registry.ts';
import { cancelReviewRoute } from './cancelReview.ts';
import { downloadReviewRoute } from './downloadReview.ts';
import { getReviewRoute } from './getReview.ts';
import { listReviewsRoute } from './listReviews.ts';
import { startReviewRoute } from './startReview.ts';

export function reviewRoutes(deps: AppDeps): RouteDef[] {
  return [startReviewRoute(deps), listReviewsRoute(deps), getReviewRoute(deps), cancelReviewRoute(deps), downloadReviewRoute(deps)];
}
