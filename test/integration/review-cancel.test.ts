// Canceling a concept review (POST /v1/reviews/{review_id}/cancel) on the real service: PGlite or PostgreSQL, the
// Temporal dev server, the offline provider and a fake Europe PMC that can hold its replies to catch a review running.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reviewCreditsEstimate } from '../../domain/reviews/limits.ts';
import { JOB_WORKFLOW_TYPES, reviewWorkflowId } from '../../domain/jobs.ts';
import { balances, grantCredits } from '../../store/credits/ledger.ts';
import { createReview, findReview, moveReview } from '../../store/reviews/reviews.ts';
import { type FakeEuropePmc, startFakeEuropePmc } from '../fakes/europepmc.ts';
import { apiToken, eventually, http, signedInOwner, startTestService, type TestService, type TestUser } from '../support/harness.ts';
import { fiveLiteratureRecords, ideaStageIntake, withoutCitations } from '../support/reviewFixtures.ts';

let service: TestService;
let pmc: FakeEuropePmc;
let owner: TestUser;
let stranger: TestUser;

beforeAll(async () => {
  pmc = await startFakeEuropePmc(fiveLiteratureRecords());
  // No hosted provider configured: the offline heuristic drafts and judges.
  service = await startTestService({ env: { CRUCIBLE_EUROPE_PMC_BASE_URL: pmc.base_url } });
  owner = await signedInOwner(service, 'cancel-owner');
  stranger = await signedInOwner(service, 'cancel-stranger');
  await service.db.transaction((tx) => grantCredits(tx, { org_id: owner.org_id, credits: 5000, reason: 'review cancel test grant', caused_by: 'test' }));
}, 120_000);

afterAll(async () => {
  await service?.stop();
  await pmc?.close();
});

/** A project with a confirmed idea-stage intake and a plan with hosted_inference approved. */
async function approvedPlan(title: string): Promise<{ project_id: string; plan_id: string }> {
  const project = await http(service, 'POST', '/v1/projects', { token: owner.session, body: { title, org_id: owner.org_id } });
  expect(project.status).toBe(201);
  const confirmed = await http(service, 'POST', `/v1/projects/${project.body.id}/intakes`, {
    token: owner.session,
    body: { spec: withoutCitations(ideaStageIntake()) },
  });
  expect(confirmed.status).toBe(201);
  const plan = await http(service, 'POST', `/v1/projects/${project.body.id}/evaluation-plans`, { token: owner.session, body: {} });
  expect(plan.status).toBe(201);
  const approved = await http(service, 'POST', `/v1/projects/${project.body.id}/evaluation-plans/${plan.body.id}/approve`, {
    token: owner.session,
    body: { scope: 'hosted_inference' },
  });
  expect(approved.status).toBe(200);
  return { project_id: project.body.id, plan_id: plan.body.id };
}

async function startReview(project_id: string, plan_id: string): Promise<any> {
  const started = await http(service, 'POST', `/v1/projects/${project_id}/reviews`, { token: owner.session, body: { plan_id } });
  expect(started.status).toBe(201);
  return started.body;
}

/** A review row committed with its reservation figure but no workflow: it stays queued until something starts it. */
async function queuedReview(title: string) {
  const { project_id, plan_id } = await approvedPlan(title);
  return service.db.transaction((tx) =>
    createReview(tx, { project_id, org_id: owner.org_id, plan_id, byok_provider: null, credits_reserved: reviewCreditsEstimate(1), created_by: owner.user_id }),
  );
}

async function finished(review_id: string): Promise<any> {
  return eventually(
    async () => {
      const read = await http(service, 'GET', `/v1/reviews/${review_id}`, { token: owner.session });
      return ['succeeded', 'failed', 'canceled'].includes(read.body.status) ? read.body : null;
    },
    60_000,
    `review ${review_id} to finish`,
  );
}

const cancel = (review_id: string, token = owner.session) => http(service, 'POST', `/v1/reviews/${review_id}/cancel`, { token });

async function ledgerTransfers(review_id: string): Promise<Array<{ transfer_key: string; kind: string; status: string; amount: number }>> {
  const rows = await service.db.query<{ transfer_key: string; kind: string; status: string; amount: unknown }>(
    "select transfer_key, kind, status, amount from credit_transfers where subject_kind = 'review' and subject_id = ? order by seq",
    [review_id],
  );
  return rows.map((r) => ({ transfer_key: r.transfer_key, kind: r.kind, status: r.status, amount: Number(r.amount) }));
}

describe('canceling a concept review', () => {
  it('ends a queued review canceled at once, charges nothing, and a workflow started later does no work', async () => {
    const row = await queuedReview('Cancel queued');
    const before = await balances(service.db, owner.org_id);
    const canceled = await cancel(row.id);
    expect(canceled.status).toBe(200);
    expect(canceled.body).toMatchObject({ id: row.id, status: 'canceled', credits_used: 0, failure: { code: 'CANCELED' } });
    expect(canceled.body.finished_at).not.toBeNull();
    expect(await balances(service.db, owner.org_id)).toEqual(before);

    // The workflow (e.g. from the reconciler) finds the row canceled: it reserves nothing and leaves it as it is.
    const result = await service.service.client.workflow.execute(JOB_WORKFLOW_TYPES.review, {
      taskQueue: service.task_queue,
      workflowId: reviewWorkflowId(row.id),
      args: [{ review_id: row.id }],
    });
    expect(result).toEqual({ status: 'skipped' });
    const read = await http(service, 'GET', `/v1/reviews/${row.id}`, { token: owner.session });
    expect(read.body).toMatchObject({ status: 'canceled', credits_used: 0, literature_query: null });
    expect(await ledgerTransfers(row.id)).toEqual([]);
    expect(await balances(service.db, owner.org_id)).toEqual(before);
  });

  it('stops a running review through its workflow: canceled, credits settled at what was used, nothing left reserved', async () => {
    const { project_id, plan_id } = await approvedPlan('Cancel running');
    const before = await balances(service.db, owner.org_id);
    const searches_before = pmc.searches().length;
    const release = pmc.hold();
    try {
      const review = await startReview(project_id, plan_id);
      // Caught while searching: the fake Europe PMC has the search request and is holding its reply.
      await eventually(async () => pmc.searches().length > searches_before, 30_000, 'the review to search Europe PMC');
      const running = await http(service, 'GET', `/v1/reviews/${review.id}`, { token: owner.session });
      expect(running.body.status).toBe('searching');
      expect((await balances(service.db, owner.org_id)).reserved_credits).toBe(reviewCreditsEstimate(1));

      const canceled = await cancel(review.id);
      expect(canceled.status).toBe(200);
      expect(['searching', 'canceled']).toContain(canceled.body.status);

      const done = await finished(review.id);
      expect(done.status).toBe('canceled');
      expect(done.failure.code).toBe('CANCELED');
      expect(done.review).toBeNull();
      const after = await balances(service.db, owner.org_id);
      expect(after.available_credits).toBe(before.available_credits - done.credits_used);
      expect(after.reserved_credits).toBe(0);
      // Resolved by the saga's settlement (a cancellation pays for what it used); nothing was used while searching,
      // so the ledger records the settlement of 0 as voiding the whole reservation.
      expect(done.credits_used).toBe(0);
      expect((await ledgerTransfers(review.id)).map((t) => [t.transfer_key, t.status])).toEqual([
        [`${review.id}:reserve`, 'voided'],
        [`${review.id}:settle`, 'posted'],
      ]);
    } finally {
      release();
    }
  });

  it('refuses to cancel a review that already ended: 409 CONFLICT naming its state; a canceled one stays as it is', async () => {
    const { project_id, plan_id } = await approvedPlan('Cancel after success');
    const review = await startReview(project_id, plan_id);
    const done = await finished(review.id);
    expect(done.status).toBe('succeeded');
    const refused = await cancel(review.id);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'CONFLICT', details: { status: 'succeeded' } });
    expect(refused.body.message).toMatch(/already ended with status succeeded/);
    const read = await http(service, 'GET', `/v1/reviews/${review.id}`, { token: owner.session });
    expect(read.body).toMatchObject({ status: 'succeeded', credits_used: done.credits_used });

    const row = await queuedReview('Cancel twice');
    expect((await cancel(row.id)).status).toBe(200);
    const again = await cancel(row.id);
    expect(again.status).toBe(409);
    expect(again.body.details).toEqual({ status: 'canceled' });
  });

  it('never lets a late workflow step change a canceled review', async () => {
    const row = await queuedReview('Late steps');
    const canceled = (await cancel(row.id)).body;
    const late = await service.db.transaction(async (tx) => {
      await moveReview(tx, row.id, 'searching');
      await moveReview(tx, row.id, 'succeeded', { credits_used: 99 });
      await moveReview(tx, row.id, 'canceled', { credits_used: 7, failure: { code: 'CANCELED', message: 'the review was canceled' } });
      return findReview(tx, row.id);
    });
    expect(late).toMatchObject({
      status: 'canceled',
      credits_used: 0,
      failure: canceled.failure,
      finished_at: canceled.finished_at,
      updated_at: canceled.updated_at,
    });
  });

  it('hides another organization review (404), needs the run scope (403) and refuses unknown reviews (404)', async () => {
    const row = await queuedReview('Cancel access');
    expect((await cancel(row.id, stranger.session)).status).toBe(404);
    const strangerToken = await apiToken(service, stranger, ['read', 'write', 'run']);
    expect((await cancel(row.id, strangerToken)).status).toBe(404);
    const readOnly = await apiToken(service, owner, ['read']);
    const forbidden = await cancel(row.id, readOnly);
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.code).toBe('FORBIDDEN');
    expect((await cancel('rev_doesnotexist')).status).toBe(404);
    expect((await cancel('rev_doesnotexist', readOnly)).status).toBe(403);
    const read = await http(service, 'GET', `/v1/reviews/${row.id}`, { token: owner.session });
    expect(read.body.status).toBe('queued');
  });
});
