// An authoring session whose worker process is killed (SIGKILL, no shutdown) while the session drafts, in the middle of
// its AI call, and again while it waits for answers: no answer is lost, nothing is charged twice (ledger and ai_usage),
// and the session completes on a new worker process. PostgreSQL suite only: the worker is a separate process, and the
// embedded PGlite belongs to one process.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { maintenanceScheduleId } from '../../runtime/service.ts';
import { balances, grantCredits } from '../../store/credits/ledger.ts';
import type { AiFake } from '../fakes/http.ts';
import { startFakeOpenAi } from '../fakes/openai.ts';
import { key, projectWithIntake, usedCredits } from '../support/authoring.ts';
import { eventually, http, signedInOwner, startTestService, type TestService, type TestUser } from '../support/harness.ts';
import { killed, killLaunched, type Launched, launch } from '../support/processes.ts';

const HOSTED = {
  CRUCIBLE_HOSTED_AI_PROVIDER: 'openai',
  CRUCIBLE_OPENAI_MODEL: 'gpt-fake-author',
  CRUCIBLE_HOSTED_AI_API_KEY: 'sk-hosted-kill',
};

/** The model's draft: every number asked for (nothing it could source). */
function draftAskingEverything() {
  return {
    object: {
      name: 'Same-day clinic',
      description: 'proposed by the model',
      proposals: ['arrival_rate', 'mean_service', 'servers', 'treatment.mean_service'].map((slot) => ({
        slot,
        value: null,
        source: null,
        question: `What is ${slot}?`,
      })),
      next_steps: [],
    },
    usage: { input_tokens: 900, output_tokens: 300 },
  };
}

function launchWorker(service: TestService, openai: AiFake): Launched {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...HOSTED,
    CRUCIBLE_OPENAI_BASE_URL: openai.base_url,
    DATABASE_URL: service.config.database_url!,
    TEMPORAL_ADDRESS: inject('temporal_address'),
    CRUCIBLE_TASK_QUEUE: service.task_queue,
    SERVICE_MASTER_KEY: service.config.master_key!.toString('base64'),
    CRUCIBLE_SESSION_SECRET: service.config.session_secret!.toString('base64'),
    CRUCIBLE_TEST_WORKFLOW_BUNDLE: inject('workflow_bundle_path'),
  };
  return launch(['test/support/worker-process.ts'], env);
}

async function polling(worker: Launched): Promise<void> {
  await eventually(async () => worker.output().includes('worker polling') || worker.child.exitCode !== null, 60_000, 'the worker process to poll');
  expect(worker.child.exitCode, worker.output()).toBeNull();
}

describe.runIf(process.env.DATABASE_URL)('an authoring session whose worker process is killed', () => {
  let service: TestService;
  let owner: TestUser;
  let openai: AiFake;
  let release_first_call: () => void = () => {};
  const first_call_released = new Promise<void>((resolve) => {
    release_first_call = resolve;
  });

  beforeAll(async () => {
    // The first completion request is never answered: its worker is killed while it waits.
    openai = await startFakeOpenAi({
      expected_api_key: HOSTED.CRUCIBLE_HOSTED_AI_API_KEY,
      hold: (index) => (index === 0 ? first_call_released : Promise.resolve()),
    });
    // The API only (its steps wait up to 100 s for a worker: a new worker process starts meanwhile); workers are processes.
    service = await startTestService({
      mode: 'api',
      env: { ...HOSTED, CRUCIBLE_OPENAI_BASE_URL: openai.base_url, CRUCIBLE_AUTHORING_UPDATE_ACCEPT_SECONDS: '100' },
    });
    owner = await signedInOwner(service, 'author-kill');
    await service.db.transaction((tx) => grantCredits(tx, { org_id: owner.org_id, credits: 100_000, reason: 'authoring test grant', caused_by: 'test' }));
  });
  afterAll(async () => {
    killLaunched();
    release_first_call();
    // The worker processes made this task queue's maintenance schedule; it goes with the test.
    await service?.service.client.schedule
      .getHandle(maintenanceScheduleId(service.config))
      .delete()
      .catch(() => {});
    await service?.stop();
    await openai?.close();
  }, 240_000);

  it('loses no answer, charges nothing twice and completes when the worker is killed mid-call and while it waits', async () => {
    openai.script.enqueue(draftAskingEverything());
    const project_id = await projectWithIntake(service, owner);
    const before = await balances(service.db, owner.org_id);

    const first_worker = launchWorker(service, openai);
    await polling(first_worker);
    const created = await http(service, 'POST', `/v1/projects/${project_id}/authoring-sessions`, {
      token: owner.session,
      body: {},
      headers: { 'idempotency-key': key() },
    });
    expect(created.status).toBe(201);
    const session_id = created.body.id;

    // Killed in the middle of the AI call: the credits are reserved, the provider has the request, no answer yet.
    await eventually(async () => openai.requests.length === 1, 60_000, 'the AI call to be in flight');
    const reserved = await balances(service.db, owner.org_id);
    expect(reserved.reserved_credits).toBeGreaterThan(0);
    await killed(first_worker.child);
    const drafting = await http(service, 'GET', `/v1/authoring-sessions/${session_id}`, { token: owner.session });
    expect(drafting.body).toMatchObject({ status: 'drafting', checkpoint: null });

    // A new worker process: the lost call is retried (heartbeat timeout) and the session reaches its first checkpoint.
    const second_worker = launchWorker(service, openai);
    await polling(second_worker);
    const first = await eventually(
      async () => {
        const read = await http(service, 'GET', `/v1/authoring-sessions/${session_id}`, { token: owner.session });
        return read.body.status === 'waiting' || read.body.status === 'failed' ? read.body : null;
      },
      150_000,
      'the session to wait after the killed call was retried',
    );
    expect(first.status, JSON.stringify(first.error)).toBe('waiting');
    expect(first.checkpoint.number).toBe(1);
    expect(first.checkpoint.questions).toHaveLength(4);
    expect(first.checkpoint.ai.session_total).toMatchObject({ calls: 1, tokens: 1200 });
    expect(openai.requests.length).toBe(2); // the killed attempt and its retry

    // Killed while it waits: the answer sent meanwhile is taken by the next worker process, once.
    await killed(second_worker.child);
    const values: Record<string, number> = { arrival_rate: 4, mean_service: 20, servers: 2, 'treatment.mean_service': 12 };
    const body = { answers: first.checkpoint.questions.map((q: any) => ({ question_id: q.id, value: values[q.slot] })) };
    const answer_key = key();
    const answering = http(service, 'POST', `/v1/authoring-sessions/${session_id}/answers`, {
      token: owner.session,
      body,
      headers: { 'idempotency-key': answer_key },
    });
    const third_worker = launchWorker(service, openai);
    await polling(third_worker);
    const answered = await answering;
    expect(answered.status, JSON.stringify(answered.body)).toBe(200);
    expect(answered.body.checkpoint.number).toBe(2);
    expect(answered.body.checkpoint.validation.valid).toBe(true);
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
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    expect(approved.body).toMatchObject({ status: 'approved', world_revision_id: expect.stringMatching(/^wrev_/) });

    // Charged once: one AI usage row (the killed attempt recorded nothing), one reservation settled once, no release.
    const usage = await service.db.query<{ credits_charged: number }>(
      "select credits_charged from ai_usage where subject_kind = 'session' and subject_id = ?",
      [session_id],
    );
    expect(usage.length).toBe(1);
    const transfers = await service.db.query<{ kind: string; transfer_key: string }>(
      "select kind, transfer_key from credit_transfers where subject_kind = 'session' and subject_id = ? order by seq",
      [session_id],
    );
    expect(transfers.map((t) => t.kind)).toEqual(['reservation', 'settlement']);
    const used = await usedCredits(service, session_id);
    expect(used).toBe(2); // ceil(1200 tokens × 1 credit per 1k)
    const after = await balances(service.db, owner.org_id);
    expect(before.available_credits - after.available_credits).toBe(used);
    expect(after.reserved_credits).toBe(0);
    const checkpoints = await service.db.one<{ n: number }>('select count(*)::int as n from authoring_checkpoints where session_id = ?', [session_id]);
    expect(Number(checkpoints?.n)).toBe(2);
  }, 400_000);
});
