// One admission rule for every kind of job: a run, a review, an intake draft and an authoring session each reserve
// their credits in the transaction that creates them (store/jobs.ts), so of many creates started together against a
// balance that covers two, two are accepted and the rest answer 402 at once; each admitted job's workflow replays the
// reservation and resolves it once. A queued job canceled before it starts resolves its reservation in the cancel's
// transaction. Real service, Temporal dev server, PGlite (or PostgreSQL with DATABASE_URL), fake Europe PMC.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { firstStepCreditsMax } from '../../domain/authoring/session.ts';
import { intakeDraftCreditsBound } from '../../domain/intake/register.ts';
import { JOB_WORKFLOW_TYPES, jobWorkflowId } from '../../domain/jobs.ts';
import { buildIntakeDraftUserMessage } from '../../domain/prompts/intakeDraft.ts';
import { reviewCreditsEstimate } from '../../domain/reviews/limits.ts';
import { balances, grantCredits } from '../../store/credits/ledger.ts';
import { createDraft } from '../../store/intake/drafts.ts';
import { latestIntakeRevision } from '../../store/intake/revisions.ts';
import { processedSourceLines } from '../../store/intake/sources.ts';
import { reserveJobCredits } from '../../store/jobs.ts';
import { createReview } from '../../store/reviews/reviews.ts';
import { type FakeEuropePmc, startFakeEuropePmc } from '../fakes/europepmc.ts';
import { projectWithIntake, waiting } from '../support/authoring.ts';
import { textFile } from '../support/corpus.ts';
import { eventually, http, type HttpResult, signedInOwner, startTestService, type TestService, type TestUser } from '../support/harness.ts';
import { fiveLiteratureRecords, ideaStageIntake, withoutCitations } from '../support/reviewFixtures.ts';
import { queueWorld } from '../support/worlds.ts';

const CONCURRENT_CREATES = 20;
const JOBS_COVERED = 2;

let service: TestService;
let pmc: FakeEuropePmc;

beforeAll(async () => {
  pmc = await startFakeEuropePmc(fiveLiteratureRecords());
  service = await startTestService({ env: { CRUCIBLE_EUROPE_PMC_BASE_URL: pmc.base_url } });
}, 120_000);
afterAll(async () => {
  await service?.stop();
  await pmc?.close();
}, 240_000);

const key = () => `k-${randomBytes(8).toString('hex')}`;

async function grant(org_id: string, credits: number): Promise<void> {
  await service.db.transaction((tx) => grantCredits(tx, { org_id, credits, reason: 'admission test grant', caused_by: 'test' }));
}

async function newProject(user: TestUser, title: string): Promise<string> {
  const created = await http(service, 'POST', '/v1/projects', { token: user.session, body: { title, org_id: user.org_id } });
  expect(created.status).toBe(201);
  return created.body.id;
}

/** A project with a confirmed idea-stage intake and a plan with hosted_inference approved. */
async function approvedPlan(user: TestUser): Promise<{ project_id: string; plan_id: string }> {
  const project_id = await newProject(user, 'Admitted review');
  const confirmed = await http(service, 'POST', `/v1/projects/${project_id}/intakes`, {
    token: user.session,
    body: { spec: withoutCitations(ideaStageIntake()) },
  });
  expect(confirmed.status).toBe(201);
  const plan = await http(service, 'POST', `/v1/projects/${project_id}/evaluation-plans`, { token: user.session, body: {} });
  expect(plan.status).toBe(201);
  const approved = await http(service, 'POST', `/v1/projects/${project_id}/evaluation-plans/${plan.body.id}/approve`, {
    token: user.session,
    body: { scope: 'hosted_inference' },
  });
  expect(approved.status).toBe(200);
  return { project_id, plan_id: plan.body.id };
}

/** A project with one processed source, uploaded as a user would. */
async function projectWithSource(user: TestUser): Promise<{ project_id: string; source_id: string }> {
  const project_id = await newProject(user, 'Admitted draft');
  const form = new FormData();
  form.append('project_id', project_id);
  const file = textFile();
  if (file.input.kind !== 'file') throw new Error('a file input');
  form.append('files', new Blob([file.input.bytes as Uint8Array<ArrayBuffer>], { type: 'text/plain' }), file.input.filename);
  const extracted = await fetch(`${service.url}/v1/intakes/extract`, { method: 'POST', headers: { authorization: `Bearer ${user.session}` }, body: form });
  expect(extracted.status).toBe(201);
  return { project_id, source_id: ((await extracted.json()) as { sources: Array<{ id: string }> }).sources[0]!.id };
}

/** What one kind needs for the test: a way to create one job, what it reserves, and when it has ended (or waits). */
type Kind = {
  table: 'runs' | 'reviews' | 'intake_drafts' | 'authoring_sessions';
  subject_kind: string;
  accepted_status: number;
  /** Sets up an organization's material; returns the job's reservation and its create call. */
  prepare(user: TestUser): Promise<{ credits: number; create(idempotency_key: string): Promise<HttpResult> }>;
  id(body: any): string;
  /** Resolves once the job's metered work is over (ended, or an authoring session waiting after its first step). */
  settled(user: TestUser, id: string): Promise<void>;
};

async function ended(user: TestUser, path: string, done: (body: any) => boolean, what: string): Promise<void> {
  await eventually(
    async () => {
      const read = await http(service, 'GET', path, { token: user.session });
      return done(read.body) ? read.body : null;
    },
    120_000,
    what,
  );
}

const FINISHED = ['succeeded', 'failed', 'canceled', 'timed_out'];

const KINDS: Record<string, Kind> = {
  run: {
    table: 'runs',
    subject_kind: 'run',
    accepted_status: 202,
    async prepare(user) {
      const project_id = await newProject(user, 'Admitted run');
      const world = queueWorld({ servers: 1, arrivals_per_minute: 0.5, mean_service_minutes: 1, replications: 2 });
      const saved = await http(service, 'POST', `/v1/projects/${project_id}/worlds`, { token: user.session, body: world });
      expect(saved.status).toBe(201);
      const world_revision_id: string = saved.body.world_revision_id;
      const estimate = await http(service, 'POST', '/v1/runs/estimate', { token: user.session, body: { world_revision_id, budget_limit_credits: 1 } });
      const budget_limit_credits: number = estimate.body.credits_estimate;
      const priced = await http(service, 'POST', '/v1/runs/estimate', { token: user.session, body: { world_revision_id, budget_limit_credits } });
      return {
        credits: priced.body.reserved_credits,
        create: (idempotency_key) =>
          http(service, 'POST', '/v1/runs', {
            token: user.session,
            body: { world_revision_id, budget_limit_credits },
            headers: { 'idempotency-key': idempotency_key },
          }),
      };
    },
    id: (body) => body.run_id,
    settled: (user, id) => ended(user, `/v1/runs/${id}`, (run) => FINISHED.includes(run.status) && run.settled_at !== null, `run ${id} to settle`),
  },
  review: {
    table: 'reviews',
    subject_kind: 'review',
    accepted_status: 201,
    async prepare(user) {
      const { project_id, plan_id } = await approvedPlan(user);
      return {
        credits: reviewCreditsEstimate(service.config.ai_credits_per_1k_tokens),
        create: (idempotency_key) =>
          http(service, 'POST', `/v1/projects/${project_id}/reviews`, {
            token: user.session,
            body: { plan_id },
            headers: { 'idempotency-key': idempotency_key },
          }),
      };
    },
    id: (body) => body.id,
    settled: (user, id) => ended(user, `/v1/reviews/${id}`, (review) => FINISHED.includes(review.status), `review ${id} to end`),
  },
  intake_draft: {
    table: 'intake_drafts',
    subject_kind: 'intake_draft',
    accepted_status: 202,
    async prepare(user) {
      const { project_id, source_id } = await projectWithSource(user);
      // The bound the route computes from the same stored lines.
      const prompt = buildIntakeDraftUserMessage(await processedSourceLines(service.db, user.org_id, [source_id]));
      return {
        credits: intakeDraftCreditsBound({ prompt, byok: false, credits_per_1k_tokens: service.config.ai_credits_per_1k_tokens }),
        create: (idempotency_key) =>
          http(service, 'POST', `/v1/projects/${project_id}/intakes/parse`, {
            token: user.session,
            body: { source_ids: [source_id] },
            headers: { 'idempotency-key': idempotency_key },
          }),
      };
    },
    id: (body) => body.id,
    settled: (user, id) => ended(user, `/v1/intake-drafts/${id}`, (draft) => FINISHED.includes(draft.status), `draft ${id} to end`),
  },
  authoring: {
    table: 'authoring_sessions',
    subject_kind: 'session',
    accepted_status: 201,
    async prepare(user) {
      const project_id = await projectWithIntake(service, user);
      const intake = await latestIntakeRevision(service.db, project_id);
      return {
        credits: firstStepCreditsMax({
          intake: intake!.spec,
          starting_world: null,
          byok: false,
          credits_per_1k_tokens: service.config.ai_credits_per_1k_tokens,
          ai_limits: service.config.authoring_ai_limits,
        }),
        create: (idempotency_key) =>
          http(service, 'POST', `/v1/projects/${project_id}/authoring-sessions`, {
            token: user.session,
            body: {},
            headers: { 'idempotency-key': idempotency_key },
          }),
      };
    },
    id: (body) => body.id,
    settled: async (user, id) => {
      const session = await waiting(service, user, id);
      expect(session.status).toBe('waiting');
    },
  },
};

async function transfersOf(subject_kind: string, id: string): Promise<Array<{ kind: string; status: string; transfer_key: string }>> {
  return service.db.query('select kind, status, transfer_key from credit_transfers where subject_kind = ? and subject_id = ? order by seq', [subject_kind, id]);
}

describe('admission at creation, one rule for every kind of job', () => {
  for (const [name, kind] of Object.entries(KINDS)) {
    it(`${name}: admits ${JOBS_COVERED} of ${CONCURRENT_CREATES} concurrent creates against a balance for ${JOBS_COVERED}, refusing the rest with 402, and resolves each reservation once`, async () => {
      const owner = await signedInOwner(service, `admit-${name}`);
      const { credits, create } = await kind.prepare(owner);
      expect(credits).toBeGreaterThan(0);
      // Enough for two, one credit short of a third.
      await grant(owner.org_id, JOBS_COVERED * credits + credits - 1);

      const answers = await Promise.all(Array.from({ length: CONCURRENT_CREATES }, () => create(key())));
      const accepted = answers.filter((answer) => answer.status === kind.accepted_status);
      const refused = answers.filter((answer) => answer.status === 402);
      expect(accepted.map((answer) => answer.status)).toHaveLength(JOBS_COVERED);
      expect(refused).toHaveLength(CONCURRENT_CREATES - JOBS_COVERED);
      for (const answer of refused) {
        expect(answer.body).toMatchObject({ code: 'INSUFFICIENT_CREDITS', details: { needed_credits: credits } });
        expect(answer.body.details.available_credits).toBeLessThan(credits);
      }
      // Nothing was created for the refused ones.
      const rows = await service.db.query<{ id: string }>(`select id from ${kind.table} where org_id = ?`, [owner.org_id]);
      const ids = accepted.map((answer) => kind.id(answer.body));
      expect(rows.map((row) => row.id).sort()).toEqual([...ids].sort());

      // Each admitted job's workflow replays the reservation its create made and resolves it exactly once.
      for (const id of ids) {
        await kind.settled(owner, id);
        const transfers = await transfersOf(kind.subject_kind, id);
        const reservations = transfers.filter((t) => t.kind === 'reservation');
        expect(reservations, JSON.stringify(transfers)).toHaveLength(1);
        expect(reservations[0]!.status).not.toBe('pending');
        expect(transfers.filter((t) => t.kind === 'settlement' || t.kind === 'release')).toHaveLength(1);
      }
      const after = await balances(service.db, owner.org_id);
      expect(after.reserved_credits).toBe(0);
      expect(after.available_credits).toBeGreaterThanOrEqual(0);
      const negative = await service.db.query('select id from credit_accounts where org_id = ? and credits_posted - debits_posted - debits_pending < 0', [
        owner.org_id,
      ]);
      expect(negative).toEqual([]);
    }, 300_000);
  }
});

describe('a queued job canceled before it starts', () => {
  it('resolves the review reservation made at creation in the cancel itself; a workflow started later does nothing and charges nothing', async () => {
    const owner = await signedInOwner(service, 'cancel-review');
    const { project_id, plan_id } = await approvedPlan(owner);
    const credits = reviewCreditsEstimate(service.config.ai_credits_per_1k_tokens);
    await grant(owner.org_id, credits);
    // The row and its reservation as POST /v1/projects/{id}/reviews commits them, without the workflow start after the commit.
    const review = await service.db.transaction(async (tx) => {
      const row = await createReview(tx, {
        project_id,
        org_id: owner.org_id,
        plan_id,
        byok_provider: null,
        credits_reserved: credits,
        created_by: owner.user_id,
      });
      await reserveJobCredits(tx, { kind: 'review', resource_id: row.id, org_id: row.org_id, project_id, credits, caused_by: row.id });
      return row;
    });
    expect(await balances(service.db, owner.org_id)).toMatchObject({ available_credits: 0, reserved_credits: credits });

    const canceled = await http(service, 'POST', `/v1/reviews/${review.id}/cancel`, { token: owner.session });
    expect(canceled.status).toBe(200);
    expect(canceled.body).toMatchObject({ status: 'canceled', credits_used: 0 });
    expect(await balances(service.db, owner.org_id)).toMatchObject({ available_credits: credits, reserved_credits: 0 });

    const result = await service.service.client.workflow.execute(JOB_WORKFLOW_TYPES.review, {
      taskQueue: service.task_queue,
      workflowId: jobWorkflowId('review', review.id),
      args: [{ review_id: review.id }],
    });
    expect(result).toEqual({ status: 'skipped' });
    expect((await transfersOf('review', review.id)).map((t) => [t.transfer_key, t.kind, t.status])).toEqual([
      [`${review.id}:reserve`, 'reservation', 'voided'],
      [`${review.id}:settle`, 'release', 'posted'],
    ]);
    expect(await balances(service.db, owner.org_id)).toMatchObject({ available_credits: credits, reserved_credits: 0 });
  });

  it('resolves the intake draft reservation made at creation in the cancel itself', async () => {
    const owner = await signedInOwner(service, 'cancel-draft');
    const { project_id, source_id } = await projectWithSource(owner);
    await grant(owner.org_id, 100);
    const draft = await service.db.transaction(async (tx) => {
      const row = await createDraft(tx, {
        project_id,
        org_id: owner.org_id,
        source_ids: [source_id],
        skipped_source_ids: [],
        byok_provider: null,
        credits_max: 40,
        created_by: owner.user_id,
      });
      await reserveJobCredits(tx, { kind: 'intake_draft', resource_id: row.id, org_id: row.org_id, project_id, credits: 40, caused_by: owner.user_id });
      return row;
    });
    expect(await balances(service.db, owner.org_id)).toMatchObject({ available_credits: 60, reserved_credits: 40 });
    const canceled = await http(service, 'POST', `/v1/intake-drafts/${draft.id}/cancel`, { token: owner.session });
    expect(canceled.status).toBe(200);
    expect(canceled.body.status).toBe('canceled');
    expect(await balances(service.db, owner.org_id)).toMatchObject({ available_credits: 100, reserved_credits: 0 });
    const result = await service.service.client.workflow.execute(JOB_WORKFLOW_TYPES.intake_draft, {
      taskQueue: service.task_queue,
      workflowId: jobWorkflowId('intake_draft', draft.id),
      args: [{ draft_id: draft.id }],
    });
    expect(result).toEqual({ status: 'canceled' });
    expect((await transfersOf('intake_draft', draft.id)).map((t) => [t.kind, t.status])).toEqual([
      ['reservation', 'voided'],
      ['release', 'posted'],
    ]);
  });
});
