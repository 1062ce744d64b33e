// The credit saga on the real Temporal dev server and the credit endpoints over HTTP.
// Runs on PGlite, or on a fresh PostgreSQL database when DATABASE_URL is set.
import { randomBytes } from 'node:crypto';
import { WorkflowFailedError } from '@temporalio/client';
import { type ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withFailureBoundary } from '../../activities/index.ts';
import { ledgerActivities } from '../../activities/ledger.ts';
import type { Subject } from '../../domain/credits/rules.ts';
import { runOperator } from '../../runtime/operator.ts';
import { balances, listLedger, type TransferView } from '../../store/credits/ledger.ts';
import { creditProbeStateQuery } from '../support/workflows/credits.ts';
import { apiToken, eventually, http, signedInMember, signedInOwner, startTestService, type TestService, type TestUser } from '../support/harness.ts';

let service: TestService;

beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => {
  await service?.stop();
});

/** An organization (with its owner signed in) holding `credits` granted by the operator (builder). */
async function fundedOrg(credits: number): Promise<TestUser> {
  const owner = await signedInOwner(service, 'credits');
  if (credits > 0) await runOperator(service.db, { command: 'grant-credits', flags: { org: owner.org_id, credits: String(credits), reason: 'test funds' } });
  return owner;
}

const unique = (label: string) => `${label}-${randomBytes(5).toString('hex')}`;
const subjectFor = (id: string): Subject => ({ project_id: 'proj_saga', kind: 'run', id });

function start(workflow: 'creditSagaProbeWorkflow' | 'creditSettleRetryProbeWorkflow', input: Record<string, unknown>) {
  return service.service.client.workflow.start(workflow, { taskQueue: service.task_queue, workflowId: unique(workflow), args: [input] });
}

/** The ApplicationFailure an activity threw, under the workflow failure and its activity failure. */
function rootCause(failure: unknown): ApplicationFailure {
  expect(failure).toBeInstanceOf(WorkflowFailedError);
  return (failure as WorkflowFailedError).cause!.cause as ApplicationFailure;
}

const kinds = (entries: TransferView[]) => entries.map((e) => `${e.kind}:${e.credits}:${e.status}`);

describe('metered work in a workflow', () => {
  it('settles what the work used and frees the rest', async () => {
    const owner = await fundedOrg(100);
    const base = unique('run_ok');
    const handle = await start('creditSagaProbeWorkflow', {
      transfer_id_base: base,
      org_id: owner.org_id,
      subject: subjectFor(base),
      credits_max: 20,
      steps_credits: [3, 4],
    });
    expect(await handle.result()).toEqual({ credits_used: 7 });
    expect(await balances(service.db, owner.org_id)).toMatchObject({ available_credits: 93, reserved_credits: 0 });
    expect(kinds(await listLedger(service.db, owner.org_id, 0, 10))).toEqual(['settlement:7:posted', 'reservation:20:posted', 'grant:100:posted']);
  });

  it("reserves and writes nothing for work that may cost nothing (the organization's own key), and refuses any charge", async () => {
    const owner = await fundedOrg(100);
    const free = unique('run_free');
    const handle = await start('creditSagaProbeWorkflow', {
      transfer_id_base: free,
      org_id: owner.org_id,
      subject: subjectFor(free),
      credits_max: 0,
      steps_credits: [0, 0],
    });
    expect(await handle.result()).toEqual({ credits_used: 0 });
    expect(kinds(await listLedger(service.db, owner.org_id, 0, 10))).toEqual(['grant:100:posted']);
    const charged = unique('run_free_charged');
    const refused = await start('creditSagaProbeWorkflow', {
      transfer_id_base: charged,
      org_id: owner.org_id,
      subject: subjectFor(charged),
      credits_max: 0,
      steps_credits: [1],
    });
    const failure = await refused.result().catch((error) => error);
    expect((failure as WorkflowFailedError).cause).toMatchObject({ type: 'CREDITS_BUDGET_EXCEEDED' });
    expect(await balances(service.db, owner.org_id)).toMatchObject({ available_credits: 100, reserved_credits: 0 });
  });

  it('releases the reservation when the work fails with a service error, leaving the balance unchanged', async () => {
    const owner = await fundedOrg(100);
    const base = unique('run_fail');
    const handle = await start('creditSagaProbeWorkflow', {
      transfer_id_base: base,
      org_id: owner.org_id,
      subject: subjectFor(base),
      credits_max: 30,
      steps_credits: [5],
      fail_after_steps: true,
    });
    const failure = await handle.result().then(
      () => null,
      (error: unknown) => error,
    );
    expect(rootCause(failure).type).toBe('PROVIDER_ERROR');
    expect(await balances(service.db, owner.org_id)).toMatchObject({ available_credits: 100, reserved_credits: 0 });
    expect(kinds(await listLedger(service.db, owner.org_id, 0, 10))).toEqual(['release:30:posted', 'reservation:30:voided', 'grant:100:posted']);
  });

  it('fails at once with INSUFFICIENT_CREDITS naming available and needed, reserving nothing', async () => {
    const owner = await fundedOrg(5);
    const base = unique('run_short');
    const handle = await start('creditSagaProbeWorkflow', {
      transfer_id_base: base,
      org_id: owner.org_id,
      subject: subjectFor(base),
      credits_max: 20,
      steps_credits: [1],
    });
    const cause = rootCause(await handle.result().catch((error: unknown) => error));
    expect(cause.type).toBe('INSUFFICIENT_CREDITS');
    expect(cause.nonRetryable).toBe(true);
    expect(cause.message).toMatch(/5 available.*needs 20/);
    expect(kinds(await listLedger(service.db, owner.org_id, 0, 10))).toEqual(['grant:5:posted']);
  });

  it('settles what a cancelled job used', async () => {
    const owner = await fundedOrg(100);
    const base = unique('run_cancel');
    const handle = await start('creditSagaProbeWorkflow', {
      transfer_id_base: base,
      org_id: owner.org_id,
      subject: subjectFor(base),
      credits_max: 40,
      steps_credits: [6, 2],
      wait_for_cancel: true,
    });
    await eventually(async () => (await handle.query(creditProbeStateQuery)).waiting, 30_000, 'the probe to wait for cancellation');
    await handle.cancel();
    const failure = (await handle.result().catch((error: unknown) => error)) as WorkflowFailedError;
    expect(failure.cause).toBeInstanceOf(CancelledFailure);
    expect(await balances(service.db, owner.org_id)).toMatchObject({ available_credits: 92, reserved_credits: 0 });
    expect(kinds(await listLedger(service.db, owner.org_id, 0, 10))).toEqual(['settlement:8:posted', 'reservation:40:posted', 'grant:100:posted']);
  });

  it('posts once when a settle activity is retried after it committed and crashed', async () => {
    const owner = await fundedOrg(50);
    const base = unique('run_crash');
    const handle = await start('creditSettleRetryProbeWorkflow', {
      transfer_id_base: base,
      org_id: owner.org_id,
      subject: subjectFor(base),
      credits: 10,
      credits_used: 4,
    });
    expect(await handle.result()).toMatchObject({ kind: 'settlement', credits_posted: 4, credits_voided: 6 });
    // The settle activity really ran twice: its first attempt committed, then failed.
    const history = await handle.fetchHistory();
    const attempts = (history.events ?? []).map((e) => e.activityTaskStartedEventAttributes?.attempt).filter((a): a is number => typeof a === 'number');
    expect(Math.max(...attempts)).toBe(2);
    expect(await balances(service.db, owner.org_id)).toMatchObject({ available_credits: 46, reserved_credits: 0 });
    expect(kinds(await listLedger(service.db, owner.org_id, 0, 10))).toEqual(['settlement:4:posted', 'reservation:10:posted', 'grant:50:posted']);
  });

  it('returns the first result when the same ledger activity runs twice with one transfer id', async () => {
    const owner = await fundedOrg(30);
    // As the worker registers them: behind the failure boundary (activities/index.ts).
    const activities = withFailureBoundary(ledgerActivities({ db: service.db, config: service.config, logger: undefined as never, jobs: null }));
    const input = {
      transfer_id: unique('twice:reserve'),
      org_id: owner.org_id,
      subject: subjectFor('run_twice'),
      credits: 12,
      reason: 'twice',
      caused_by: 'test',
    };
    const first = await activities.reserveCredits(input);
    expect(await activities.reserveCredits(input)).toEqual(first);
    const settle = { transfer_id: unique('twice:settle'), reservation_id: first.reservation_id, credits_used: 9 };
    const settled = await activities.settleCredits(settle);
    expect(await activities.settleCredits(settle)).toEqual(settled);
    await expect(activities.releaseCredits({ transfer_id: unique('twice:release'), reservation_id: first.reservation_id })).rejects.toMatchObject({
      type: 'CONFLICT',
      nonRetryable: true,
    });
    expect(await balances(service.db, owner.org_id)).toMatchObject({ available_credits: 21, reserved_credits: 0 });
  });
});

describe('GET /v1/orgs/{org_id}/credits and /ledger', () => {
  it('shows available and reserved credits per source to members', async () => {
    const owner = await fundedOrg(40);
    const member = await signedInMember(service, owner.org_id, 'member');
    const response = await http(service, 'GET', `/v1/orgs/${owner.org_id}/credits`, { token: member.session });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      org_id: owner.org_id,
      available_credits: 40,
      reserved_credits: 0,
      sources: [{ source: 'own', available_credits: 40, reserved_credits: 0 }],
      // a member of an organization on a service without billing or sponsor programs asks its operator
      add_credits: { way: 'ask_operator', sentence: 'Ask the person who runs this service to add credits.', command: null },
    });
  });

  it("answers another organization's credits and ledger with 404, for sessions and tokens", async () => {
    const owner = await fundedOrg(10);
    const stranger = await signedInOwner(service, 'stranger');
    for (const path of [`/v1/orgs/${owner.org_id}/credits`, `/v1/orgs/${owner.org_id}/ledger`]) {
      expect((await http(service, 'GET', path, { token: stranger.session })).status).toBe(404);
      expect((await http(service, 'GET', path, { token: await apiToken(service, stranger, ['read']) })).status).toBe(404);
      expect((await http(service, 'GET', path)).status).toBe(401);
    }
  });

  it('needs the read scope', async () => {
    const owner = await fundedOrg(10);
    const runOnly = await apiToken(service, owner, ['run']);
    const refused = await http(service, 'GET', `/v1/orgs/${owner.org_id}/credits`, { token: runOnly });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('FORBIDDEN');
    const reader = await apiToken(service, owner, ['read']);
    expect((await http(service, 'GET', `/v1/orgs/${owner.org_id}/ledger`, { token: reader })).status).toBe(200);
  });

  it('pages the ledger newest first with offset, limit and next_offset', async () => {
    const owner = await fundedOrg(0);
    for (let i = 1; i <= 5; i++)
      await runOperator(service.db, { command: 'grant-credits', flags: { org: owner.org_id, credits: String(i), reason: `grant ${i}` } });
    const first = await http(service, 'GET', `/v1/orgs/${owner.org_id}/ledger?limit=2`, { token: owner.session });
    expect(first.status).toBe(200);
    expect(first.body.data.map((e: any) => e.reason)).toEqual(['grant 5', 'grant 4']);
    expect(first.body.next_offset).toBe(2);
    expect(first.body.data[0]).toMatchObject({
      kind: 'grant',
      status: 'posted',
      credits: 5,
      available_change_credits: 5,
      sources: [{ source: 'own', program_id: null, credits: 5 }],
    });
    const last = await http(service, 'GET', `/v1/orgs/${owner.org_id}/ledger?offset=4&limit=2`, { token: owner.session });
    expect(last.body.data.map((e: any) => e.reason)).toEqual(['grant 1']);
    expect(last.body.next_offset).toBeNull();
    const bad = await http(service, 'GET', `/v1/orgs/${owner.org_id}/ledger?limit=0`, { token: owner.session });
    expect(bad.status).toBe(422);
  });
});
