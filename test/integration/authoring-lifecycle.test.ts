// Authoring sessions over a long life, with the thresholds made small: a session continues as new after every step
// (CRUCIBLE_AUTHORING_STEPS_PER_RUN_MAX=1) and keeps its questions, answers, AI usage and charges across the new runs;
// a session left waiting longer than CRUCIBLE_AUTHORING_WAIT_SECONDS_MAX ends `expired` and accepts nothing more.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobWorkflowId } from '../../domain/jobs.ts';
import { balances, grantCredits } from '../../store/credits/ledger.ts';
import { eventually, http, signedInOwner, startTestService, type TestService, type TestUser } from '../support/harness.ts';
import { key, projectWithIntake, startSession, usedCredits, waiting } from '../support/authoring.ts';

const WAIT_SECONDS_MAX = 12;

describe('authoring sessions with small lifecycle thresholds', () => {
  let service: TestService;
  let owner: TestUser;

  beforeAll(async () => {
    service = await startTestService({ env: { CRUCIBLE_AUTHORING_STEPS_PER_RUN_MAX: '1', CRUCIBLE_AUTHORING_WAIT_SECONDS_MAX: String(WAIT_SECONDS_MAX) } });
    owner = await signedInOwner(service, 'author-lifecycle');
    await service.db.transaction((tx) => grantCredits(tx, { org_id: owner.org_id, credits: 100_000, reason: 'authoring test grant', caused_by: 'test' }));
  });
  afterAll(async () => {
    await service?.stop();
  }, 240_000);

  async function runsOf(session_id: string): Promise<Array<{ runId: string; status: string }>> {
    const runs: Array<{ runId: string; status: string }> = [];
    for await (const execution of service.service.client.workflow.list({ query: `WorkflowId = '${jobWorkflowId('authoring', session_id)}'` })) {
      runs.push({ runId: execution.runId, status: execution.status.name });
    }
    return runs;
  }

  it('continues as new after every step and keeps working across the new runs, charging each AI step once', async () => {
    const project_id = await projectWithIntake(service, owner);
    const before = await balances(service.db, owner.org_id);
    const session_id = await startSession(service, owner, project_id);
    const first = await waiting(service, owner, session_id);
    expect(first.checkpoint.questions).toHaveLength(4);
    // Each question says what its number is, as the setting reads once answered.
    expect(first.checkpoint.questions.map((q: any) => q.label).sort()).toEqual([
      'clinicians available at once',
      'mean time a clinician spends per patient',
      'mean time per patient with the technology',
      'patients arriving per hour',
    ]);

    // Two answers: a step, then the run continues as new; the other two questions stay open in the new run.
    const values: Record<string, number> = { arrival_rate: 4, mean_service: 20, servers: 2, 'treatment.mean_service': 12 };
    const [q1, q2, ...rest] = first.checkpoint.questions;
    const partly = await http(service, 'POST', `/v1/authoring-sessions/${session_id}/answers`, {
      token: owner.session,
      body: { answers: [q1, q2].map((q: any) => ({ question_id: q.id, value: values[q.slot] })) },
      headers: { 'idempotency-key': key() },
    });
    expect(partly.status, JSON.stringify(partly.body)).toBe(200);
    expect(partly.body.checkpoint.number).toBe(2);
    const open = partly.body.checkpoint.questions;
    expect(open.map((q: any) => q.slot).sort()).toEqual(rest.map((q: any) => q.slot).sort());
    await eventually(async () => (await runsOf(session_id)).some((run) => run.status === 'CONTINUED_AS_NEW'), 30_000, 'a continued-as-new run');

    // The new run still knows the open questions (an unknown one is refused by its validator) and takes the answers.
    const wrong = await http(service, 'POST', `/v1/authoring-sessions/${session_id}/answers`, {
      token: owner.session,
      body: { answers: [{ question_id: q1.id, value: 1 }] },
      headers: { 'idempotency-key': key() },
    });
    expect(wrong.status).toBe(409);
    expect(wrong.body.message).toMatch(/is not open/);
    const answered = await http(service, 'POST', `/v1/authoring-sessions/${session_id}/answers`, {
      token: owner.session,
      body: { answers: open.map((q: any) => ({ question_id: q.id, value: values[q.slot] })) },
      headers: { 'idempotency-key': key() },
    });
    expect(answered.status, JSON.stringify(answered.body)).toBe(200);
    expect(answered.body.checkpoint.number).toBe(3);
    expect(answered.body.checkpoint.validation.valid).toBe(true);
    // Settings from both runs are in the world, each with its answer as source.
    for (const slot of ['arrival_rate', 'mean_service', 'servers']) expect(answered.body.checkpoint.world.settings[slot].source.kind).toBe('answer');

    const revised = await http(service, 'POST', `/v1/authoring-sessions/${session_id}/revise`, {
      token: owner.session,
      body: { values: [{ slot: 'servers', value: 3, reference: 'Clinic rota 2026' }] },
      headers: { 'idempotency-key': key() },
    });
    expect(revised.status, JSON.stringify(revised.body)).toBe(200);
    expect(revised.body.checkpoint.number).toBe(4);
    expect(revised.body.checkpoint.changes_since_previous).toEqual([{ path: '/world/settings/servers', before: '2 count', after: '3 count' }]);

    const approved = await http(service, 'POST', `/v1/authoring-sessions/${session_id}/approve`, {
      token: owner.session,
      body: {},
      headers: { 'idempotency-key': key() },
    });
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    expect(approved.body.status).toBe('approved');
    expect(approved.body.world_revision_id).toMatch(/^wrev_/);

    const runs = await eventually(
      async () => {
        const listed = await runsOf(session_id);
        return listed.some((run) => run.status === 'COMPLETED') ? listed : null;
      },
      30_000,
      'the session workflow to complete',
    );
    // One run per step (draft + 2 answers + revise = 3 continue-as-new), the last one completed by approve.
    expect(runs.filter((run) => run.status === 'CONTINUED_AS_NEW').length).toBe(3);
    expect(runs.filter((run) => run.status === 'COMPLETED').length).toBe(1);

    // AI usage and charges carried across the runs: each AI step recorded and charged once.
    const calls = await service.db.query("select id from ai_usage where subject_kind = 'session' and subject_id = ?", [session_id]);
    expect(calls.length).toBe(revised.body.checkpoint.ai.session_total.calls);
    expect(calls.length).toBe(1); // the draft only: after it the offline heuristic has nothing to add (docs/authoring.md)
    const used = await usedCredits(service, session_id);
    expect(revised.body.checkpoint.ai.session_total.credits).toBe(used);
    const after = await balances(service.db, owner.org_id);
    expect(before.available_credits - after.available_credits).toBe(used);
    expect(after.reserved_credits).toBe(0);
  }, 240_000);

  it('ends a session that waits longer than the configured time as expired, which then accepts nothing', async () => {
    const project_id = await projectWithIntake(service, owner);
    const session_id = await startSession(service, owner, project_id);
    const first = await waiting(service, owner, session_id);
    const waiting_since = Date.now();
    expect(first.accepts).toEqual(['answers', 'revise']);

    const expired = await eventually(
      async () => {
        const read = await http(service, 'GET', `/v1/authoring-sessions/${session_id}`, { token: owner.session });
        return read.body.status === 'expired' ? read.body : null;
      },
      (WAIT_SECONDS_MAX + 60) * 1000,
      'the session to expire',
    );
    // Not before the configured wait.
    expect(Date.now() - waiting_since).toBeGreaterThanOrEqual((WAIT_SECONDS_MAX - 2) * 1000);
    expect(expired.accepts).toEqual([]);
    expect(expired.ended_at).not.toBeNull();
    expect(expired.checkpoint.number).toBe(1); // the last checkpoint stays readable

    const answer = await http(service, 'POST', `/v1/authoring-sessions/${session_id}/answers`, {
      token: owner.session,
      body: { answers: [{ question_id: first.checkpoint.questions[0].id, value: 3 }] },
      headers: { 'idempotency-key': key() },
    });
    expect(answer.status).toBe(409);
    expect(answer.body.code).toBe('CONFLICT');
    expect(answer.body.message).toMatch(/expired/);
    const approve = await http(service, 'POST', `/v1/authoring-sessions/${session_id}/approve`, {
      token: owner.session,
      body: {},
      headers: { 'idempotency-key': key() },
    });
    expect(approve.status).toBe(409);
    // The row says expired once the workflow's last activity committed; the workflow completes just after, and the
    // visibility listing catches up after that.
    const runs = await eventually(
      async () => {
        const listed = await runsOf(session_id);
        return listed.length > 0 && listed.every((run) => run.status !== 'RUNNING') ? listed : null;
      },
      30_000,
      "the expired session's workflow to complete",
    );
    expect(runs.map((run) => run.status)).toEqual(['COMPLETED']);
  }, 240_000);

  it('ends a session canceled through Temporal (an operator) failed with CANCELED, its unused reservation voided', async () => {
    const project_id = await projectWithIntake(service, owner);
    const before = await balances(service.db, owner.org_id);
    const session_id = await startSession(service, owner, project_id);
    await service.service.client.workflow.getHandle(jobWorkflowId('authoring', session_id)).cancel();
    const ended = await eventually(
      async () => {
        const read = await http(service, 'GET', `/v1/authoring-sessions/${session_id}`, { token: owner.session });
        return read.body.status === 'failed' ? read.body : null;
      },
      60_000,
      'the canceled session to end',
    );
    expect(ended.failure).toMatchObject({ code: 'CANCELED', message: expect.stringMatching(/canceled by an operator/) });
    expect(ended.accepts).toEqual([]);
    // Nothing stays reserved for it: the reservation made at creation was voided (or settled by a step that ran).
    const after = await eventually(
      async () => {
        const now = await balances(service.db, owner.org_id);
        return now.reserved_credits === before.reserved_credits ? now : null;
      },
      30_000,
      'the reservation to be released',
    );
    expect(after.reserved_credits).toBe(before.reserved_credits);
  }, 240_000);
});
