// Concept review bodies (spec: What the service does 3; ConceptReview; endpoints reviews).
import { Type } from 'typebox';
import { BYOK_PROVIDERS } from '../ai/keys.ts';
import { REVIEW_STATES } from '../reviews/states.ts';
import { Credits, Id, LiteralUnion, NullableLiteralUnion, Timestamp } from './common.ts';
import { JobFailureField } from './jobFailure.ts';
import { ConceptReview, type ConceptReview as ConceptReviewDocument } from './conceptReview.ts';

/** A plan id as a request names it. */
export const PLAN_ID_LENGTH_MAX = 64;

export const StartReviewBody = Type.Object(
  {
    plan_id: Type.String({ minLength: 1, maxLength: PLAN_ID_LENGTH_MAX }),
    byok_provider: Type.Optional(
      NullableLiteralUnion(BYOK_PROVIDERS, { description: "run the AI steps with the organization's own key for this provider (0 credits)" }),
    ),
  },
  { additionalProperties: false },
);

// The contract carries $id 'ConceptReview'; inline copies in the OpenAPI document go without it (one $id per document).
const { $id: _review_id, ...ConceptReviewInline } = JSON.parse(JSON.stringify(ConceptReview)) as Record<string, unknown>;
const ConceptReviewDoc = Type.Unsafe<ConceptReviewDocument>(ConceptReviewInline);

export const Review = Type.Object({
  id: Id('rev'),
  project_id: Id('proj'),
  org_id: Id('org'),
  plan_id: Id('plan'),
  status: LiteralUnion(REVIEW_STATES),
  status_description: Type.String(),
  byok_provider: NullableLiteralUnion(BYOK_PROVIDERS),
  credits_reserved: Credits,
  credits_used: Type.Union([Credits, Type.Null()], { description: 'settled credits once finished; 0 with byok_provider or when failed' }),
  usage: Type.Object(
    { calls: Type.Integer(), input_tokens: Type.Integer(), output_tokens: Type.Integer() },
    { description: 'AI calls metered for this review' },
  ),
  literature_query: Type.Union([Type.String(), Type.Null()]),
  failure: JobFailureField,
  created_by: Type.String(),
  created_at: Timestamp,
  updated_at: Timestamp,
  finished_at: Type.Union([Timestamp, Type.Null()]),
  review: Type.Union([ConceptReviewDoc, Type.Null()], { description: 'the ConceptReview once succeeded' }),
});

/** A review in a listing: its state and credits, without the ConceptReview itself (read it with GET /v1/reviews/{review_id}). */
export const ReviewListItem = Type.Omit(Review, ['usage', 'literature_query', 'updated_at', 'review']);
