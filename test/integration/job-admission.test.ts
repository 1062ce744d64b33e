// One admission rule for every kind of job: a run, a review, an intake draft and an authoring session each reserve
// their credits in the transaction that creates them (store/jobs.ts), so of many creates started together against a
// balance that covers two, two are accepted and the rest answer 402 at once (more only once an admitted job gave back
// credits it did not use, read from the ledger's order); each admitted job's workflow replays the
// reservation and resolves it once. A queued job canceled before it starts resolves its reservation in the cancel's
// transaction. Real service, Temporal dev server, PGlite (or PostgreSQL with DATABASE_URL), fake Europe PMC.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOB_WORKFLOW_TYPES, jobWorkflowId } from '../../domain/jobs.ts';
import { reviewCreditsEstimate } from '../../domain/reviews/limits.ts';
import { balances, grantCredits } from '../../store/credits/ledger.ts';
import { createDraft } from '../../store/intake/drafts.ts';
import { endOrphanedJob, reserveJobCredits } from '../../store/jobs.ts';
import { createReview } from '../../store/reviews/reviews.ts';
import { type FakeEuropePmc, startFakeEuropePmc } from '../fakes/europepmc.ts';
import { http, signedInOwner, startTestService, type TestService } from '../support/harness.ts';
import { approvedPlan, JOB_KIND_NAMES, jobKinds, projectWithSource } from '../support/jobKinds.ts';
import { fiveLiteratureRecords } from '../support/reviewFixtures.ts';

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

async function transfersOf(subject_kind: string, id: string): Promise<Array<{ kind: string; status: string; transfer_key: string }>> {
  return service.db.query('select kind, status, transfer_key from credit_transfers where subject_kind = ? and subject_id = ? order by seq', [subject_kind, id]);
}

describe('admission at creation, one rule for every kind of job', () => {
  for (const name of JOB_KIND_NAMES) {
    it(`${name}: admits ${JOBS_COVERED} of ${CONCURRENT_CREATES} concurrent creates against a balance for ${JOBS_COVERED}, refusing the rest with 402, and resolves each reservation once`, async () => {
      const kind = jobKinds(service)[name];
      const owner = await signedInOwner(service, `admit-${name}`);
      const { credits, create } = await kind.prepare(owner);
      expect(credits).toBeGreaterThan(0);
      // Enough for two, one credit short of a third.
      await grant(owner.org_id, JOBS_COVERED * credits + credits - 1);

      const answers = await Promise.all(Array.from({ length: CONCURRENT_CREATES }, () => create(key())));
      const accepted = answers.filter((answer) => answer.status === kind.accepted_status);
      const refused = answers.filter((answer) => answer.status === 402);
      expect(accepted.length + refused.length).toBe(CONCURRENT_CREATES);
      // The ledger in the order it was written: every reservation found the organization's available credits covering it,
      // and past the two the balance covered, a create was admitted only after an earlier job had given back credits it
      // did not use (a job that ends fast, such as an authoring session's first step, may settle while creates still
      // arrive). With no credits given back by then, exactly two were admitted.
      const ledger = await service.db.query<{ kind: string; available_change: string | number }>(
        'select kind, available_change from credit_transfers where org_id = ? order by seq',
        [owner.org_id],
      );
      let available = 0;
      let reservations = 0;
      let given_back_before_last_reservation = false;
      let given_back = false;
      for (const transfer of ledger) {
        if (transfer.kind === 'reservation') {
          expect(available).toBeGreaterThanOrEqual(credits);
          reservations += 1;
          given_back_before_last_reservation = given_back;
        }
        if ((transfer.kind === 'settlement' || transfer.kind === 'release') && Number(transfer.available_change) > 0) given_back = true;
        available += Number(transfer.available_change);
      }
      expect(reservations).toBe(accepted.length);
      expect(accepted.length).toBeGreaterThanOrEqual(JOBS_COVERED);
      if (!given_back_before_last_reservation) expect(accepted.map((answer) => answer.status)).toHaveLength(JOBS_COVERED);
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

/**
 * A review row and its reservation as POST /v1/projects/{id}/reviews commits them, without the workflow start after the
 * commit, for an organization granted exactly its reservation.
 */
async function queuedReview(label: string) {
  const owner = await signedInOwner(service, label);
  const { project_id, plan_id } = await approvedPlan(service, owner);
  const credits = reviewCreditsEstimate(service.config.ai_credits_per_1k_tokens);
  await grant(owner.org_id, credits);
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
  return { owner, review, credits };
}

describe('a queued job canceled before it starts', () => {
  it('resolves the review reservation made at creation in the cancel itself; a workflow started later does nothing and charges nothing', async () => {
    const { owner, review, credits } = await queuedReview('cancel-review');
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

  it('ends a review whose workflow failed outside its steps as failed, its reservation released, once', async () => {
    const { owner, review, credits } = await queuedReview('orphan-review');
    const row = { id: review.id, status: 'queued' };
    expect(await service.db.transaction((tx) => endOrphanedJob(tx, 'review', row, 'failed'))).toBe(true);
    const ended = (await http(service, 'GET', `/v1/reviews/${review.id}`, { token: owner.session })).body;
    expect(ended).toMatchObject({ status: 'failed', failure: { code: 'INTERNAL' } });
    expect(ended.failure.message).toMatch(/nothing was charged/);
    expect(await balances(service.db, owner.org_id)).toMatchObject({ available_credits: credits, reserved_credits: 0 });
    // A second pass (or a row that moved on meanwhile) changes nothing.
    expect(await service.db.transaction((tx) => endOrphanedJob(tx, 'review', row, 'stopped'))).toBe(false);
    expect((await transfersOf('review', review.id)).map((t) => [t.kind, t.status])).toEqual([
      ['reservation', 'voided'],
      ['release', 'posted'],
    ]);
  });

  it('resolves the intake draft reservation made at creation in the cancel itself', async () => {
    const owner = await signedInOwner(service, 'cancel-draft');
    const { project_id, source_id } = await projectWithSource(service, owner);
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
