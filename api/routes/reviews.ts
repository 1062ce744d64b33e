// Concept reviews (spec: What the service does 3; ConceptReview; endpoints reviews). Starting one needs a plan that
// recommends it and either an explicit hosted_inference approval or the organization's own key (byok_provider);
// otherwise 409 APPROVAL_REQUIRED, nothing charged, no workflow started.
import type { Context } from 'koa';
import { Type } from 'typebox';
import { cancelJob, startJob } from '../../integrations/temporal/jobs.ts';
import { BYOK_PROVIDERS, type ByokProvider } from '../../domain/ai/keys.ts';
import { ConceptReview } from '../../domain/contracts/conceptReview.ts';
import { ServiceError } from '../../domain/errors.ts';
import { admitReview } from '../../domain/review/pricing.ts';
import '../../domain/review/register.ts';
import { isFinished, REVIEW_STATES, type ReviewState } from '../../domain/review/states.ts';
import { assertCanCover } from '../../store/credits/ledger.ts';
import { assertAiAvailable } from '../../store/keys/availability.ts';
import { findPlan } from '../../store/review/plans.ts';
import { cancelQueuedReview, createReview, findReview, listReviews, type ReviewRow, reviewUsage } from '../../store/review/reviews.ts';
import { cachedRow } from '../../store/rowCache.ts';
import { authorizeOwned } from '../auth.ts';
import type { AppDeps } from '../context.ts';
import { page } from '../http.ts';
import { idempotent, respond } from '../idempotency.ts';
import { type Rendered, rendered, sendRendered } from '../poll.ts';
import { route, type RouteDef } from '../registry.ts';
import { Credits, Id, Page, PageQuery, Timestamp } from '../schemas.ts';
import { loadProject } from './projects/load.ts';

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

const StartReview = Type.Object(
  {
    plan_id: Type.String({ minLength: 1, maxLength: 64 }),
    byok_provider: Type.Optional(
      Type.Union([...BYOK_PROVIDERS.map((p) => Type.Literal(p)), Type.Null()], { description: "run the AI steps with the organization's own key for this provider (0 credits)" }),
    ),
  },
  { additionalProperties: false },
);

// The contract carries $id 'ConceptReview'; inline copies in the OpenAPI document go without it (one $id per document).
const { $id: _review_id, ...ConceptReviewInline } = JSON.parse(JSON.stringify(ConceptReview)) as Record<string, unknown>;
const ConceptReviewDoc = Type.Unsafe<unknown>(ConceptReviewInline);

export const ReviewOut = Type.Object({
  id: Id('rev'),
  project_id: Id('proj'),
  org_id: Id('org'),
  plan_id: Id('plan'),
  status: Type.Union(REVIEW_STATES.map((s) => Type.Literal(s))),
  status_description: Type.String(),
  byok_provider: Type.Union([...BYOK_PROVIDERS.map((p) => Type.Literal(p)), Type.Null()]),
  credits_reserved: Credits,
  credits_used: Type.Union([Credits, Type.Null()], { description: 'settled credits once finished; 0 with byok_provider or when failed' }),
  usage: Type.Object({ calls: Type.Integer(), input_tokens: Type.Integer(), output_tokens: Type.Integer() }, { description: 'AI calls metered for this review' }),
  literature_query: Type.Union([Type.String(), Type.Null()]),
  failure: Type.Union([Type.Object({ code: Type.String(), message: Type.String() }), Type.Null()]),
  created_by: Type.String(),
  created_at: Timestamp,
  updated_at: Timestamp,
  finished_at: Type.Union([Timestamp, Type.Null()]),
  review: Type.Union([ConceptReviewDoc, Type.Null()], { description: 'the ConceptReview once succeeded' }),
});

/** A review in a listing: its state and credits, without the ConceptReview itself (read it with GET /v1/reviews/{review_id}). */
export const ReviewListItem = Type.Omit(ReviewOut, ['usage', 'literature_query', 'updated_at', 'review']);

function reviewListItem(row: ReviewRow) {
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

async function reviewView(deps: AppDeps, row: ReviewRow) {
  const usage = await reviewUsage(deps.db, row.id);
  return {
    ...reviewListItem(row),
    usage: { calls: usage.calls, input_tokens: usage.input_tokens, output_tokens: usage.output_tokens },
    literature_query: row.literature_query,
    updated_at: row.updated_at,
    review: row.status === 'succeeded' ? row.result : null,
  };
}

/**
 * A review's answer rendered once per version: its row, its JSON text and ETag, kept beside the row in the row cache.
 * The review's row and its AI usage are both announced under the review's id (0010, 0012), so a change of either drops
 * it; a poll then costs one cache read (one fence on PostgreSQL) instead of two, and no serialising or hashing. The body
 * is the same for every caller; access is checked on the row.
 */
async function reviewAnswer(deps: AppDeps, review_id: string): Promise<{ row: ReviewRow; body: Rendered } | undefined> {
  return cachedRow(deps.db, review_id, 'answer', async () => {
    const row = await findReview(deps.db, review_id);
    return row && { row, body: rendered(await reviewView(deps, row)) };
  });
}

/** A review the caller may read; another organization's review is a plain 404. */
async function loadReview(deps: AppDeps, ctx: Context, id: string): Promise<ReviewRow> {
  return authorizeOwned(deps, ctx, `Review ${id}`, await findReview(deps.db, id));
}

export function reviewRoutes(deps: AppDeps): RouteDef[] {
  const { db, config } = deps;
  return [
    route({
      method: 'post',
      path: '/v1/projects/{project_id}/reviews',
      operation_id: 'startReview',
      summary:
        'Start a concept and evidence review for a plan that recommends it; needs hosted_inference approved on the plan or byok_provider. Credits are reserved at the start and settled at actual usage.',
      tag: 'review',
      auth: 'user',
      scope: 'run',
      role: 'member',
      idempotency: 'optional',
      body: StartReview,
      responses: {
        201: { description: 'the review, queued; poll GET /v1/reviews/{review_id}', schema: ReviewOut },
        402: { description: 'INSUFFICIENT_CREDITS: the reservation is not covered' },
        409: { description: 'APPROVAL_REQUIRED (no hosted_inference approval and no byok_provider) or CONFLICT (the plan skips the review)' },
        503: { description: 'PROVIDER_NOT_CONFIGURED' },
      },
      handler: async (ctx, input) => {
        const project = await loadProject(deps, ctx, input.params.project_id, 'run');
        const body = input.body;
        const byok_provider: ByokProvider | null = body.byok_provider ?? null;
        const auth = input.auth;
        const outcome = await idempotent(db, ctx, { owner_id: project.org_id, hashed_body: { project_id: project.id, plan_id: body.plan_id, byok_provider } }, async (tx) => {
          const plan = await findPlan(tx, project.id, body.plan_id);
          if (!plan) throw new ServiceError('NOT_FOUND', `Evaluation plan ${body.plan_id} of project ${project.id} was not found.`, [{ path: '/plan_id', message: 'no such plan in this project' }]);
          const { credits_reserved } = admitReview({
            plan_id: plan.id,
            project_id: project.id,
            plan: plan.plan,
            approvals: plan.approvals,
            byok_provider,
            credits_per_1k_tokens: config.ai_credits_per_1k_tokens,
          });
          await assertAiAvailable({ config, db: tx }, project.org_id, byok_provider);
          if (credits_reserved > 0) await assertCanCover(tx, project.org_id, credits_reserved);
          const row = await createReview(tx, { project_id: project.id, org_id: project.org_id, plan_id: plan.id, byok_provider, credits_reserved, created_by: auth.user_id });
          return { status: 201, body: await reviewViewIn(tx, row) };
        });
        // Started after the commit, on replays too: the deterministic id makes a second start a no-op.
        const started = outcome.body as { id: string; org_id: string; project_id: string };
        await startJob(deps.temporal, { kind: 'review', resource_id: started.id, org_id: started.org_id, project_id: started.project_id }, { review_id: started.id });
        respond(ctx, outcome);
      },
    }),
    route({
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
        const rows = await listReviews(db, project.id, offset, limit);
        ctx.body = page(rows.map(reviewListItem), offset, limit);
      },
    }),
    route({
      method: 'get',
      path: '/v1/reviews/{review_id}',
      operation_id: 'getReview',
      summary: 'Poll a review: its state (queued, searching, drafting, verifying, succeeded, failed, canceled) and, once succeeded, the ConceptReview',
      tag: 'review',
      auth: 'user',
      scope: 'read',
      role: 'member',
      pollable: true,
      responses: { 200: { description: 'the review', schema: ReviewOut }, 304: { description: 'not modified: the If-None-Match version is current' } },
      handler: async (ctx, input) => {
        const answer = await reviewAnswer(deps, input.params.review_id);
        await authorizeOwned(deps, ctx, `Review ${input.params.review_id}`, answer?.row);
        sendRendered(ctx, answer!.body);
      },
    }),
    route({
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
        200: { description: 'the review as it is now: canceled, or still searching/drafting/verifying until its workflow records canceled (poll GET /v1/reviews/{review_id})', schema: ReviewOut },
        409: { description: 'CONFLICT: the review already ended (succeeded, failed or canceled); details.status names the state' },
      },
      handler: async (ctx, input) => {
        const id = input.params.review_id;
        const what = `Review ${id}`;
        // Same checks as starting a review: scope run, then tenant (another organization's review is a plain 404), then role.
        const found = await authorizeOwned(deps, ctx, what, await findReview(db, id), { scope: 'run', role: 'member' });
        if (isFinished(found.status)) {
          throw new ServiceError('CONFLICT', `${what} already ended with status ${found.status}; nothing to cancel.`, { status: found.status });
        }
        // A queued review has used nothing: it ends here, conditionally (from queued only). A running one belongs to its
        // workflow, which settles what was used and marks the row canceled; it is asked to stop in both cases, so a
        // workflow that had just started (or starts later and finds the row canceled) does no work.
        const ended = await db.transaction((tx) => cancelQueuedReview(tx, id));
        await cancelJob(deps.temporal, { kind: 'review', resource_id: id });
        ctx.body = await reviewView(deps, ended ?? (await findReview(db, id))!);
      },
    }),
    route({
      method: 'get',
      path: '/v1/reviews/{review_id}/download',
      operation_id: 'downloadReview',
      summary: 'The whole review with its citation record as a JSON attachment',
      tag: 'review',
      auth: 'user',
      scope: 'read',
      role: 'member',
      responses: {
        200: { description: 'attachment: the review, every retrieved record (excluded ones with their reason) and every claim with its checks', content_type: 'application/json' },
        409: { description: 'the review has not succeeded (CONFLICT)' },
      },
      handler: async (ctx, input) => {
        const row = await loadReview(deps, ctx, input.params.review_id);
        if (row.status !== 'succeeded' || !row.result) {
          throw new ServiceError('CONFLICT', `Review ${row.id} is ${row.status}; it can be downloaded once it has succeeded.`, { status: row.status });
        }
        const view = await reviewView(deps, row);
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
    }),
  ];
}

async function reviewViewIn(tx: Parameters<typeof reviewUsage>[0], row: ReviewRow) {
  return reviewView({ db: tx } as unknown as AppDeps, row);
}
