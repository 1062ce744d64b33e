// Plans and concept reviews on the real service (PGlite or PostgreSQL, Temporal dev server, HTTP over a real port),
// with a fake Europe PMC and a fake OpenAI as the hosted provider, driven by their real clients.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Value } from 'typebox/value';
import { ConceptReview } from '../../domain/contracts/conceptReview.ts';
import type { EvidenceJudgement } from '../../domain/prompts/reviewJudge.ts';
import { reviewCreditsEstimate } from '../../domain/reviews/limits.ts';
import { balances, grantCredits } from '../../store/credits/ledger.ts';
import { createReview } from '../../store/reviews/reviews.ts';
import { type FakeEuropePmc, startFakeEuropePmc } from '../fakes/europepmc.ts';
import type { AiFake } from '../fakes/http.ts';
import { startFakeOpenAi } from '../fakes/openai.ts';
import { apiToken, eventually, http, signedInOwner, startTestService, type TestService, type TestUser } from '../support/harness.ts';
import { fiveLiteratureRecords, ideaStageIntake, RECORD_IDS, SCRIPTED_EXPECTED, scriptedDraft, withoutCitations } from '../support/reviewFixtures.ts';
import type { maintenanceWorkflow as MaintenanceWorkflow } from '../../workflows/maintenance.ts';

let service: TestService;
let pmc: FakeEuropePmc;
let openai: AiFake;
let owner: TestUser;
let stranger: TestUser;

const HOSTED_KEY = 'sk-hosted-0123456789abcdefghij';
const DRAFT_USAGE = { input_tokens: 3000, output_tokens: 1000 };
const supports = (reason = 'the quote states it'): { object: EvidenceJudgement } => ({ object: { verdict: 'supports', reason } });

beforeAll(async () => {
  pmc = await startFakeEuropePmc(fiveLiteratureRecords());
  openai = await startFakeOpenAi({ expected_api_key: undefined });
  openai.script.fallback = supports();
  service = await startTestService({
    env: {
      CRUCIBLE_EUROPE_PMC_BASE_URL: pmc.base_url,
      CRUCIBLE_HOSTED_AI_PROVIDER: 'openai',
      CRUCIBLE_OPENAI_MODEL: 'gpt-fake-review',
      CRUCIBLE_OPENAI_BASE_URL: openai.base_url,
      CRUCIBLE_HOSTED_AI_API_KEY: HOSTED_KEY,
    },
  });
  owner = await signedInOwner(service, 'review-owner');
  stranger = await signedInOwner(service, 'review-stranger');
  await service.db.transaction((tx) => grantCredits(tx, { org_id: owner.org_id, credits: 5000, reason: 'review test grant', caused_by: 'test' }));
}, 120_000);

afterAll(async () => {
  await service?.stop();
  await pmc?.close();
  await openai?.close();
});

async function projectWithIntake(user: TestUser, title: string): Promise<string> {
  const project = await http(service, 'POST', '/v1/projects', { token: user.session, body: { title, org_id: user.org_id } });
  expect(project.status).toBe(201);
  const confirmed = await http(service, 'POST', `/v1/projects/${project.body.id}/intakes`, {
    token: user.session,
    body: { spec: withoutCitations(ideaStageIntake()) },
  });
  expect(confirmed.status).toBe(201);
  return project.body.id;
}

async function newPlan(project_id: string): Promise<any> {
  const plan = await http(service, 'POST', `/v1/projects/${project_id}/evaluation-plans`, { token: owner.session, body: {} });
  expect(plan.status).toBe(201);
  return plan.body;
}

async function approve(project_id: string, plan_id: string, scope = 'hosted_inference') {
  return http(service, 'POST', `/v1/projects/${project_id}/evaluation-plans/${plan_id}/approve`, { token: owner.session, body: { scope } });
}

async function finished(review_id: string, user = owner): Promise<any> {
  return eventually(
    async () => {
      const read = await http(service, 'GET', `/v1/reviews/${review_id}`, { token: user.session });
      return ['succeeded', 'failed', 'canceled'].includes(read.body.status) ? read.body : null;
    },
    60_000,
    `review ${review_id} to finish`,
  );
}

async function reviewWorkflows(): Promise<string[]> {
  const ids: string[] = [];
  for await (const execution of service.service.client.workflow.list({
    query: `WorkflowType = 'conceptReviewWorkflow' AND TaskQueue = '${service.task_queue}'`,
  })) {
    ids.push(execution.workflowId);
  }
  return ids;
}

async function reviewRowCount(project_id: string): Promise<number> {
  const row = await service.db.one<{ n: unknown }>('select count(*) as n from reviews where project_id = ?', [project_id]);
  return Number(row?.n ?? 0);
}

describe('evaluation plans', () => {
  it('refuses a plan until an intake is confirmed, saying to confirm one', async () => {
    const project = await http(service, 'POST', '/v1/projects', { token: owner.session, body: { title: 'No intake', org_id: owner.org_id } });
    const plan = await http(service, 'POST', `/v1/projects/${project.body.id}/evaluation-plans`, { token: owner.session, body: {} });
    expect(plan.status).toBe(409);
    expect(plan.body.code).toBe('CONFLICT');
    expect(plan.body.message).toMatch(/confirm one with POST \/v1\/projects\/.*\/intakes/);
  });

  it('plans from the latest confirmed intake with nothing approved, and approves only listed scopes', async () => {
    const project_id = await projectWithIntake(owner, 'Plans');
    const plan = await newPlan(project_id);
    expect(plan.id).toMatch(/^plan_/);
    expect(plan.intake_revision).toBe(1);
    expect(plan.approvals).toEqual([]);
    expect(plan.plan.evaluations.map((e: any) => [e.kind, e.decision])).toEqual([
      ['concept_and_evidence_review', 'recommended'],
      ['world_simulation', 'skipped'],
    ]);
    expect(plan.plan.estimated_cost.total_credits).toBe(reviewCreditsEstimate(1));
    expect((await approve(project_id, plan.id, 'simulation_budget')).status).toBe(422);
    expect((await approve(project_id, plan.id, 'everything')).status).toBe(422);
    const approved = await approve(project_id, plan.id);
    expect(approved.status).toBe(200);
    expect(approved.body.approvals.map((a: any) => a.scope)).toEqual(['hosted_inference']);
    expect((await approve(project_id, plan.id)).body.approvals).toHaveLength(1);
    const read = await http(service, 'GET', `/v1/projects/${project_id}/evaluation-plans/${plan.id}`, { token: owner.session });
    expect(read.body.approvals).toHaveLength(1);
    await newPlan(project_id);
    const listed = await http(service, 'GET', `/v1/projects/${project_id}/evaluation-plans?limit=1`, { token: owner.session });
    expect(listed.body.data).toHaveLength(1);
    expect(listed.body.next_offset).toBe(1);
    expect((await http(service, 'GET', `/v1/projects/${project_id}/evaluation-plans/${plan.id}`, { token: stranger.session })).status).toBe(404);
  });

  it('publishes the EvaluationPlan and ConceptReview schemas and the drafting and judging prompts', async () => {
    for (const name of ['EvaluationPlan', 'ConceptReview']) {
      const schema = await http(service, 'GET', `/v1/schemas/${name}`);
      expect(schema.status).toBe(200);
      expect(schema.body['x-contract-version']).toBe('1.0.0');
    }
    for (const id of ['review-draft', 'review-judge']) {
      const prompt = await http(service, 'GET', `/v1/prompts/${id}`);
      expect(prompt.status).toBe(200);
      expect(prompt.body.system.length).toBeGreaterThan(50);
    }
  });
});

describe('concept reviews', () => {
  it('refuses a review without approval or BYOK: 409 APPROVAL_REQUIRED, nothing charged, no workflow started', async () => {
    const project_id = await projectWithIntake(owner, 'Unapproved');
    const plan = await newPlan(project_id);
    const before = await balances(service.db, owner.org_id);
    const refused = await http(service, 'POST', `/v1/projects/${project_id}/reviews`, {
      token: owner.session,
      body: { plan_id: plan.id },
      headers: { 'idempotency-key': 'unapproved-1' },
    });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('APPROVAL_REQUIRED');
    expect(await balances(service.db, owner.org_id)).toEqual(before);
    expect(await reviewRowCount(project_id)).toBe(0);
    expect(await reviewWorkflows()).toEqual([]);
  });

  it('excludes retracted work and gives each fabricated, closed or disputed claim its failed check; settles actual usage', async () => {
    const project_id = await projectWithIntake(owner, 'Five papers');
    const plan = await newPlan(project_id);
    await approve(project_id, plan.id);
    openai.script.enqueue(
      { object: scriptedDraft(), usage: DRAFT_USAGE },
      supports(),
      { object: { verdict: 'does_not_support', reason: 'the quote is about timing, not feasibility' } },
      supports(),
    );
    const before = await balances(service.db, owner.org_id);
    const headers = { 'idempotency-key': `review-${project_id}` };
    const started = await http(service, 'POST', `/v1/projects/${project_id}/reviews`, { token: owner.session, body: { plan_id: plan.id }, headers });
    expect(started.status).toBe(201);
    expect(started.body.status).toBe('queued');
    expect(started.body.credits_reserved).toBe(reviewCreditsEstimate(1));
    const replay = await http(service, 'POST', `/v1/projects/${project_id}/reviews`, { token: owner.session, body: { plan_id: plan.id }, headers });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.id).toBe(started.body.id);
    expect(await reviewRowCount(project_id)).toBe(1);

    const done = await finished(started.body.id);
    expect(done.status).toBe('succeeded');
    const review = done.review;
    expect(Value.Check(ConceptReview, review)).toBe(true);
    expect(review.evidence_summary).toEqual({
      claims_total: SCRIPTED_EXPECTED.claims_total,
      claims_supported: SCRIPTED_EXPECTED.claims_supported,
      failed_checks: SCRIPTED_EXPECTED.failed_checks,
    });
    const claims = Object.fromEntries(review.dimensions.flatMap((d: any) => d.evidence_claims.map((c: any) => [c.claim_id, c])));
    expect(claims['users.1'].failed_check).toBe('quote_not_found');
    expect(claims['adoption.1'].failed_check).toBe('support_not_verified');
    expect(claims['feasibility.1'].failed_check).toBe('judge_disagrees');
    expect(claims['workflow_fit.1']).toMatchObject({ failed_check: 'unverified_record', record_id: null });
    expect(claims['need.1'].supported).toBe(true);
    const evidence = review.dimensions.flatMap((d: any) => d.evidence_claims.map((c: any) => c.record_id));
    expect(evidence).not.toContain(RECORD_IDS.retracted);
    // a record the model named but the service never retrieved (or excluded) appears nowhere but in the removal list
    expect(review.removed_mentions.map((m: any) => m.removed)).toEqual(expect.arrayContaining([RECORD_IDS.retracted, 'MED:9999']));
    expect(evidence).not.toContain('MED:9999');
    const excluded = review.literature.records.filter((r: any) => r.status === 'excluded');
    expect(excluded.map((r: any) => [r.record_id, r.exclusion_reason])).toEqual([
      [RECORD_IDS.retracted, 'retracted_publication'],
      [RECORD_IDS.retraction_notice, 'retraction_notice'],
    ]);
    expect(review.dimensions).toHaveLength(13);
    expect(review.dimensions.every((d: any) => d.label === 'ai_hypothesis')).toBe(true);
    expect(review.disclaimer).toMatch(/starting point to test/);
    expect(review.drafted_by).toMatchObject({ provider: 'openai', model: 'gpt-fake-review', heuristic: false });
    // the retracted paper's text was never fetched, nor shown to the model
    expect(pmc.fullTextRequests().map((r) => r.path)).not.toContainEqual(expect.stringContaining('PMC1001'));
    const draftRequest = openai.requests.find((r) => JSON.stringify(r.body).includes('ConceptReviewDraft'));
    expect(JSON.stringify(draftRequest?.body)).not.toContain('Telemonitoring cured heart failure');
    expect(JSON.stringify(draftRequest?.body)).toContain(RECORD_IDS.open_access);
    // settled at actual usage: the draft (4 credits at 1 per 1,000 tokens) and three judge calls (1 each)
    expect(done.credits_used).toBe(7);
    expect(done.usage.calls).toBe(4);
    expect(done.usage.input_tokens).toBe(DRAFT_USAGE.input_tokens + 3 * 11);
    const after = await balances(service.db, owner.org_id);
    expect(after.available_credits).toBe(before.available_credits - 7);
    expect(after.reserved_credits).toBe(0);

    const download = await http(service, 'GET', `/v1/reviews/${started.body.id}/download`, { token: owner.session });
    expect(download.status).toBe(200);
    expect(download.headers.get('content-disposition')).toBe(`attachment; filename="concept-review-${started.body.id}.json"`);
    expect(download.body.review).toEqual(review);
    expect(download.body.citation_record.records).toHaveLength(5);
    expect(download.body.citation_record.claims).toHaveLength(7);

    // another organization polling gets 404, on the review and its download
    expect((await http(service, 'GET', `/v1/reviews/${started.body.id}`, { token: stranger.session })).status).toBe(404);
    expect((await http(service, 'GET', `/v1/reviews/${started.body.id}/download`, { token: stranger.session })).status).toBe(404);
    expect(await reviewWorkflows()).toContain(`review-${started.body.id}`);
  });

  it('fails when the literature service is down and releases the reservation', async () => {
    const project_id = await projectWithIntake(owner, 'Literature down');
    const plan = await newPlan(project_id);
    await approve(project_id, plan.id);
    const before = await balances(service.db, owner.org_id);
    pmc.down = 'status_503';
    try {
      const started = await http(service, 'POST', `/v1/projects/${project_id}/reviews`, { token: owner.session, body: { plan_id: plan.id } });
      expect(started.status).toBe(201);
      const done = await finished(started.body.id);
      expect(done.status).toBe('failed');
      expect(done.failure.code).toBe('LITERATURE_UNAVAILABLE');
      // the app's own sentence first; after the last attempt nothing promises a retry
      expect(done.failure.message).toMatch(
        /^The literature service can't be reached from this server\. Nothing was charged\. Start a new review when it is back\. Last of 4 attempts: Europe PMC is unavailable \(503\)/,
      );
      expect(done.failure.message).not.toMatch(/retried/);
      expect(done.review).toBeNull();
      expect(done.credits_used).toBe(0);
      expect(await balances(service.db, owner.org_id)).toEqual(before);
      const download = await http(service, 'GET', `/v1/reviews/${started.body.id}/download`, { token: owner.session });
      expect(download.status).toBe(409);
    } finally {
      pmc.down = false;
    }
  });

  it('runs with the organization own key (BYOK) without approval, costs 0 credits and records its tokens', async () => {
    const key = await http(service, 'POST', `/v1/orgs/${owner.org_id}/provider-keys`, {
      token: owner.session,
      body: { provider: 'openai', label: 'own', api_key: 'sk-own-key-abcdefghijklmnopqrstuvwxyz' },
    });
    expect(key.status).toBe(201);
    const project_id = await projectWithIntake(owner, 'BYOK');
    const plan = await newPlan(project_id);
    openai.script.enqueue({ object: scriptedDraft(), usage: DRAFT_USAGE });
    const before = await balances(service.db, owner.org_id);
    const started = await http(service, 'POST', `/v1/projects/${project_id}/reviews`, {
      token: owner.session,
      body: { plan_id: plan.id, byok_provider: 'openai' },
    });
    expect(started.status).toBe(201);
    expect(started.body.credits_reserved).toBe(0);
    const done = await finished(started.body.id);
    expect(done.status).toBe('succeeded');
    expect(done.credits_used).toBe(0);
    expect(done.usage.input_tokens).toBeGreaterThanOrEqual(DRAFT_USAGE.input_tokens);
    expect(done.usage.output_tokens).toBeGreaterThanOrEqual(DRAFT_USAGE.output_tokens);
    expect(await balances(service.db, owner.org_id)).toEqual(before);
    const last = openai.requests.at(-1)!;
    expect(last.headers.authorization).toBe('Bearer sk-own-key-abcdefghijklmnopqrstuvwxyz');
  });

  it('needs the run scope and a recommending plan', async () => {
    const project_id = await projectWithIntake(owner, 'Scopes');
    const plan = await newPlan(project_id);
    const token = await apiToken(service, owner, ['read', 'write']);
    const refused = await http(service, 'POST', `/v1/projects/${project_id}/reviews`, { token, body: { plan_id: plan.id } });
    expect(refused.status).toBe(403);
    const missing = await http(service, 'POST', `/v1/projects/${project_id}/reviews`, { token: owner.session, body: { plan_id: 'plan_doesnotexist' } });
    expect(missing.status).toBe(404);
    const stranger_try = await http(service, 'POST', `/v1/projects/${project_id}/reviews`, { token: stranger.session, body: { plan_id: plan.id } });
    expect(stranger_try.status).toBe(404);
  });

  it('starts a review left queued (its workflow never started) from the reconciler, once', async () => {
    const project_id = await projectWithIntake(owner, 'Reconciled');
    const plan = await newPlan(project_id);
    const row = await service.db.transaction(async (tx) => {
      // As POST /v1/projects/{id}/reviews commits it for hosted inference (reserving its estimate), without the workflow start.
      const created = await createReview(tx, {
        project_id,
        org_id: owner.org_id,
        plan_id: plan.id,
        byok_provider: null,
        credits_reserved: reviewCreditsEstimate(1),
        created_by: owner.user_id,
      });
      await tx.query("update reviews set created_at = now() - interval '1 hour' where id = ?", [created.id]);
      return created;
    });
    const run = (id: string) =>
      service.service.client.workflow.execute<typeof MaintenanceWorkflow>('maintenanceWorkflow', { taskQueue: service.task_queue, workflowId: id, args: [{}] });
    openai.script.enqueue({ object: scriptedDraft(), usage: DRAFT_USAGE });
    const first = await run(`reconcile-a-${row.id}`);
    expect(first.reviews_started).toBeGreaterThanOrEqual(1);
    const done = await finished(row.id);
    expect(done.status).toBe('succeeded');
    expect(await reviewWorkflows()).toContain(`review-${row.id}`);
    expect((await run(`reconcile-b-${row.id}`)).reviews_started).toBe(0);
  });
});
