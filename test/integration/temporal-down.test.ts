// An API process while Temporal is unreachable: it starts without Temporal (the connection is lazy), serves
// reads, answers readiness within 2 s and liveness at once, and every job start answers 503 TEMPORARILY_UNAVAILABLE
// within 5 s with nothing created and nothing charged; once Temporal answers, the same request starts the job; when
// Temporal goes away again the 503 comes back. The Temporal here is a dev server of the test's own, stopped and started
// on one port.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { isServiceError } from '../../domain/errors.ts';
import { cancelJob, startJob, TEMPORAL_CALL_DEADLINE_MS } from '../../integrations/temporal/jobs.ts';
import { type DevServer, freePort, startDevServer } from '../../runtime/temporal.ts';
import { grantCredits } from '../../store/credits/ledger.ts';
import { eventually, http, signedInOwner, startTestService, type TestService, type TestUser } from '../support/harness.ts';
import { queueWorld } from '../support/worlds.ts';

let service: TestService;
let temporal: DevServer | null = null;
let temporal_port: number;
let owner: TestUser;
let project_id: string;
let world_revision_id: string;

const startTemporal = async () => {
  temporal = await startDevServer({ cli: inject('temporal_cli'), port: temporal_port, ui_port: null });
};

beforeAll(async () => {
  temporal_port = await freePort();
  // Nothing listens on temporal_port yet: the API process starts anyway.
  service = await startTestService({ mode: 'api', temporal_address: `127.0.0.1:${temporal_port}` });
  owner = await signedInOwner(service, 'down');
  const project = await http(service, 'POST', '/v1/projects', { token: owner.session, body: { title: 'Temporal down', org_id: owner.org_id } });
  project_id = project.body.id;
  const saved = await http(service, 'POST', `/v1/projects/${project_id}/worlds`, {
    token: owner.session,
    body: queueWorld({ servers: 1, arrivals_per_minute: 0.5, mean_service_minutes: 1, replications: 2 }),
  });
  world_revision_id = saved.body.world_revision_id;
  await service.db.transaction((tx) => grantCredits(tx, { org_id: owner.org_id, credits: 1_000, reason: 'test grant', caused_by: 'test' }));
});
afterAll(async () => {
  await service?.stop();
  await temporal?.stop();
});

async function timed<T>(call: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const started = performance.now();
  const result = await call();
  return { result, ms: performance.now() - started };
}

const startRun = () => http(service, 'POST', '/v1/runs', { token: owner.session, body: { world_revision_id, budget_limit_credits: 500 } });
const runs = async () => (await http(service, 'GET', `/v1/projects/${project_id}/runs`, { token: owner.session })).body.data as unknown[];
const available = async () => (await http(service, 'GET', `/v1/orgs/${owner.org_id}/credits`, { token: owner.session })).body.available_credits as number;

async function expectDownAnswers(): Promise<void> {
  const health = await timed(() => http(service, 'GET', '/v1/health'));
  expect(health.ms).toBeLessThan(2_000);
  expect(health.result.status).toBe(503);
  expect(health.result.body.checks.database.ok).toBe(true);
  expect(health.result.body.checks.temporal.ok).toBe(false);
  expect((await http(service, 'GET', '/v1/health/live')).status).toBe(200);
  // Reads still work.
  expect((await http(service, 'GET', `/v1/projects/${project_id}`, { token: owner.session })).status).toBe(200);

  const before = { runs: (await runs()).length, available: await available() };
  const run = await timed(startRun);
  expect(run.ms).toBeLessThan(5_000);
  expect(run.result.status).toBe(503);
  expect(run.result.body.code).toBe('TEMPORARILY_UNAVAILABLE');
  expect(run.result.body.message).toContain('nothing was charged');
  expect(Number(run.result.headers.get('retry-after'))).toBeGreaterThan(0);
  // Every kind of job start gets the same answer before its handler runs (a made-up plan or source is never looked up).
  const others = [
    http(service, 'POST', `/v1/projects/${project_id}/reviews`, { token: owner.session, body: { plan_id: 'plan_unknown' } }),
    http(service, 'POST', `/v1/projects/${project_id}/intakes/parse`, { token: owner.session, body: { source_ids: ['src_unknown'] } }),
    http(service, 'POST', `/v1/projects/${project_id}/authoring-sessions`, {
      token: owner.session,
      body: {},
      headers: { 'idempotency-key': `down-${Date.now()}` },
    }),
  ];
  for (const answer of await Promise.all(others)) expect([answer.status, answer.body.code]).toEqual([503, 'TEMPORARILY_UNAVAILABLE']);
  expect({ runs: (await runs()).length, available: await available() }).toEqual(before);
}

describe('an API process while Temporal is unreachable', () => {
  it('starts, serves reads and answers 503 for job starts with nothing charged, then starts jobs once Temporal answers', async () => {
    await expectDownAnswers();

    await startTemporal();
    const started = await eventually(
      async () => {
        const answer = await startRun();
        return answer.status === 202 ? answer : null;
      },
      60_000,
      'a run to start once Temporal answers',
    );
    expect(started.body.status).toBe('queued');
    expect(await runs()).toHaveLength(1);
    await eventually(async () => (await http(service, 'GET', '/v1/health')).body.checks.temporal.ok, 10_000, 'readiness to see Temporal');

    await temporal!.stop();
    temporal = null;
    await eventually(async () => (await http(service, 'GET', '/v1/health')).body.checks.temporal.ok === false, 10_000, 'readiness to see Temporal gone');
    await expectDownAnswers();
  }, 180_000);

  it("past the route's check (Temporal gone in between), a start is bounded: a reconciled kind stays queued, another kind is a 503", async () => {
    expect(temporal).toBeNull();
    const jobs = { client: service.service.client, task_queue: service.task_queue };
    const job = { org_id: owner.org_id, project_id };
    const run = await timed(() => startJob(jobs, { ...job, kind: 'run', resource_id: 'run_deferred' }, { run_id: 'run_deferred' }));
    expect(run.result).toBe('deferred');
    // bounded by the deadline, with room for a loaded machine's scheduling (a request's answer within 5 s is checked above)
    expect(run.ms).toBeLessThan(TEMPORAL_CALL_DEADLINE_MS + 4_000);
    const authoring = await startJob(jobs, { ...job, kind: 'authoring', resource_id: 'aus_refused' }, { session_id: 'aus_refused' }).catch(
      (error: unknown) => error,
    );
    expect(isServiceError(authoring) && authoring.code).toBe('TEMPORARILY_UNAVAILABLE');
    // A cancel needs no answer from Temporal: the row says canceled and the workflow reads it at its next step.
    expect(await cancelJob(jobs, { kind: 'run', resource_id: 'run_deferred' })).toBe('deferred');
  }, 60_000);
});
