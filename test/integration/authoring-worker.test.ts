// Authoring sessions survive their worker: no worker while the session drafts (it is readable from the database and
// completes when a worker comes), the worker stopped while the session waits (an answer sent meanwhile is taken when a
// worker comes back within CRUCIBLE_AUTHORING_UPDATE_ACCEPT_SECONDS; past that the call is 503 and changes nothing), a
// new worker on the same task queue finishes the session; every AI call is recorded and charged once.
// (A worker process killed with SIGKILL mid-activity: test/e2e/authoring-kill.test.ts.)
import { setTimeout as delay } from 'node:timers/promises';
import { inject, afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../runtime/logger.ts';
import { createWorker } from '../../runtime/worker.ts';
import { balances, grantCredits } from '../../store/credits/ledger.ts';
import { http, signedInOwner, startTestService, type TestService, type TestUser } from '../support/harness.ts';
import { key, projectWithIntake, usedCredits, waiting } from '../support/authoring.ts';

async function startWorker(service: TestService): Promise<{ stop(): Promise<void> }> {
  const logger = createLogger({ level: 'silent' });
  const { worker, connection } = await createWorker({
    config: service.config,
    db: service.db,
    logger,
    address: inject('temporal_address'),
    bundle: { codePath: inject('workflow_bundle_path') },
  });
  const running = worker.run();
  return {
    async stop() {
      worker.shutdown();
      await running;
      await connection.close();
    },
  };
}

const ACCEPT_SECONDS = 15;

describe('authoring sessions across worker restarts', () => {
  let service: TestService;
  let owner: TestUser;

  beforeAll(async () => {
    // The API only: workers come and go in the test. A step waits at most ACCEPT_SECONDS for a worker to take it.
    service = await startTestService({ mode: 'api', env: { CRUCIBLE_AUTHORING_UPDATE_ACCEPT_SECONDS: String(ACCEPT_SECONDS) } });
    owner = await signedInOwner(service, 'author-restart');
    await service.db.transaction((tx) => grantCredits(tx, { org_id: owner.org_id, credits: 100_000, reason: 'authoring test grant', caused_by: 'test' }));
  });
  afterAll(async () => {
    await service?.stop();
  }, 240_000);

  it('loses no answer and charges nothing twice when the worker is gone while it drafts and while it waits', async () => {
    const project_id = await projectWithIntake(service, owner);
    const before = await balances(service.db, owner.org_id);
    const created = await http(service, 'POST', `/v1/projects/${project_id}/authoring-sessions`, {
      token: owner.session,
      body: {},
      headers: { 'idempotency-key': key() },
    });
    expect(created.status).toBe(201);
    const session_id = created.body.id;
    // No worker while it drafts: readable from the database.
    const drafting = await http(service, 'GET', `/v1/authoring-sessions/${session_id}`, { token: owner.session });
    expect(drafting.body).toMatchObject({ status: 'drafting', checkpoint: null, accepts: [] });

    const first_worker = await startWorker(service);
    const first = await waiting(service, owner, session_id);
    expect(first.checkpoint.questions.length).toBe(4);
    await first_worker.stop();

    const values: Record<string, number> = { arrival_rate: 4, mean_service: 20, servers: 2, 'treatment.mean_service': 12 };
    const body = { answers: first.checkpoint.questions.map((q: any) => ({ question_id: q.id, value: values[q.slot] })) };

    // No worker at all: the call does not wait forever; after ACCEPT_SECONDS it is 503 and changes nothing.
    const sent_at = Date.now();
    const unavailable = await http(service, 'POST', `/v1/authoring-sessions/${session_id}/answers`, {
      token: owner.session,
      body,
      headers: { 'idempotency-key': key() },
    });
    const waited_ms = Date.now() - sent_at;
    expect(unavailable.status, JSON.stringify(unavailable.body)).toBe(503);
    expect(unavailable.body).toMatchObject({ code: 'TEMPORARILY_UNAVAILABLE', details: { accept_timeout_ms: ACCEPT_SECONDS * 1000 } });
    expect(unavailable.body.message).toMatch(/nothing changed/);
    expect(unavailable.headers.get('retry-after')).toBe('10');
    expect(waited_ms).toBeGreaterThanOrEqual((ACCEPT_SECONDS - 1) * 1000);
    expect(waited_ms).toBeLessThan((ACCEPT_SECONDS + 15) * 1000);
    const unchanged = await http(service, 'GET', `/v1/authoring-sessions/${session_id}`, { token: owner.session });
    expect(unchanged.body).toMatchObject({ status: 'waiting', checkpoint_count: 1, accepts: ['answers', 'revise'] });

    // The worker is gone while the session waits: an answer sent now is taken once a worker is back, never lost.
    const answer_key = key();
    const answering = http(service, 'POST', `/v1/authoring-sessions/${session_id}/answers`, {
      token: owner.session,
      body,
      headers: { 'idempotency-key': answer_key },
    });
    const still = await http(service, 'GET', `/v1/authoring-sessions/${session_id}`, { token: owner.session });
    expect(still.body.status).toBe('waiting');
    expect(still.body.checkpoint.number).toBe(1);

    const second_worker = await startWorker(service);
    try {
      const answered = await answering;
      expect(answered.status, JSON.stringify(answered.body)).toBe(200);
      expect(answered.body.checkpoint.number).toBe(2);
      expect(answered.body.checkpoint.validation.valid).toBe(true);
      // The answer refused with 503 never arrived late: had its update been applied when the worker came back, the
      // session would hold another checkpoint, or this answer would have been refused (nothing left to ask).
      await delay(1_000);
      const count = await service.db.one<{ n: number }>('select count(*)::int as n from authoring_checkpoints where session_id = ?', [session_id]);
      expect(Number(count?.n)).toBe(2);
      // The client retries the same request: the same step, not a new one.
      const retried = await http(service, 'POST', `/v1/authoring-sessions/${session_id}/answers`, {
        token: owner.session,
        body,
        headers: { 'idempotency-key': answer_key },
      });
      expect(retried.status).toBe(200);
      expect(retried.body.checkpoint.number).toBe(2);

      const approved = await http(service, 'POST', `/v1/authoring-sessions/${session_id}/approve`, {
        token: owner.session,
        body: {},
        headers: { 'idempotency-key': key() },
      });
      expect(approved.status).toBe(200);
      expect(approved.body.status).toBe('approved');
      expect(approved.body.world_revision_id).toMatch(/^wrev_/);
    } finally {
      await second_worker.stop();
    }
    const calls = await service.db.query("select id from ai_usage where subject_kind = 'session' and subject_id = ?", [session_id]);
    expect(calls.length).toBe(1); // the draft; the answers filled every slot, so no further AI step
    const used = await usedCredits(service, session_id);
    const after = await balances(service.db, owner.org_id);
    expect(before.available_credits - after.available_credits).toBe(used);
    expect(after.reserved_credits).toBe(0);
  }, 240_000);
});
