// A run whose row committed but whose workflow never started (Temporal unreachable at that moment) is started by the
// maintenance schedule's workflow, once; the maintenance workflow also runs the drafts' and reviews' reconcilers, and
// ends a job whose workflow ended without ending it (an operator's terminate), releasing what it had reserved.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { estimateRun } from '../../domain/simulation/index.ts';
import { runWorkflowId } from '../../domain/jobs.ts';
import { balances, grantCredits } from '../../store/credits/ledger.ts';
import { createRun, runReservation } from '../../store/runs/runs.ts';
import { eventually, http, signedInOwner, startTestService, type TestService, type TestUser } from '../support/harness.ts';
import { queueWorld } from '../support/worlds.ts';

let service: TestService;
let owner: TestUser;

beforeAll(async () => {
  service = await startTestService();
  owner = await signedInOwner(service, 'reconcile');
});
afterAll(async () => {
  await service?.stop();
});

describe('the maintenance workflow', () => {
  it('starts a run left queued, once, and leaves other queued work alone until it is old enough', async () => {
    await service.db.transaction((tx) => grantCredits(tx, { org_id: owner.org_id, credits: 1000, reason: 'test grant', caused_by: 'test' }));
    const project = await http(service, 'POST', '/v1/projects', { token: owner.session, body: { title: 'Reconcile', org_id: owner.org_id } });
    const world = queueWorld({ servers: 1, arrivals_per_minute: 0.5, mean_service_minutes: 1, replications: 2, horizon_minutes: 2000, warm_up_minutes: 100 });
    const saved = await http(service, 'POST', `/v1/projects/${project.body.id}/worlds`, { token: owner.session, body: world });
    expect(saved.status).toBe(201);
    const estimate = estimateRun(world);
    const budget = estimate.credits_estimate * 2;
    // The row as POST /v1/runs commits it, without the workflow start that follows the commit.
    const run = await service.db.transaction((tx) =>
      createRun(tx, {
        org_id: owner.org_id,
        project_id: project.body.id,
        world_revision_id: saved.body.world_revision_id,
        budget_limit_credits: budget,
        credits_estimate: estimate.credits_estimate,
        events_estimate: estimate.events_estimate,
        credits_reserved: runReservation(budget, estimate.credits_estimate),
        replications_requested: 2,
        wall_clock_limit_seconds: 600,
        created_by: owner.user_id,
      }),
    );
    const maintenance = (id: string) =>
      service.service.client.workflow.execute('maintenanceWorkflow', { taskQueue: service.task_queue, workflowId: id, args: [] }) as Promise<{
        runs_started: number;
        intake_drafts_started: number;
        reviews_started: number;
      }>;
    const tooYoung = await maintenance(`maintenance-${randomBytes(4).toString('hex')}`);
    expect(tooYoung.runs_started).toBe(0);
    const queued = await http(service, 'GET', `/v1/runs/${run.run_id}`, { token: owner.session });
    expect(queued.body, JSON.stringify(queued.body)).toMatchObject({ status: 'queued' });

    await service.db.query(`update runs set created_at = now() - interval '10 minutes' where id = ?`, [run.run_id]);
    const first = await maintenance(`maintenance-${randomBytes(4).toString('hex')}`);
    expect(first.runs_started).toBe(1);
    const finished = await eventually(async () => {
      const response = await http(service, 'GET', `/v1/runs/${run.run_id}`, { token: owner.session });
      return response.body.settled_at ? response.body : null;
    }, 90_000);
    expect(finished.status).toBe('succeeded');
    const second = await maintenance(`maintenance-${randomBytes(4).toString('hex')}`);
    expect(second.runs_started).toBe(0);
  }, 120_000);
});

describe('a job whose workflow ended without ending it', () => {
  it('is ended by the maintenance workflow, its reservation released, and a job that still runs is left alone', async () => {
    await service.db.transaction((tx) => grantCredits(tx, { org_id: owner.org_id, credits: 1_000_000, reason: 'test grant', caused_by: 'test' }));
    const project = await http(service, 'POST', '/v1/projects', { token: owner.session, body: { title: 'Terminated', org_id: owner.org_id } });
    // Long enough to be running when the operator terminates it.
    const world = queueWorld({ servers: 2, arrivals_per_minute: 1.5, mean_service_minutes: 1, replications: 400, horizon_minutes: 200_000, seed: 5 });
    const saved = await http(service, 'POST', `/v1/projects/${project.body.id}/worlds`, { token: owner.session, body: world });
    expect(saved.status).toBe(201);
    const quote = await http(service, 'POST', '/v1/runs/estimate', {
      token: owner.session,
      body: { world_revision_id: saved.body.world_revision_id, budget_limit_credits: 1_000_000 },
    });
    const created = await http(service, 'POST', '/v1/runs', {
      token: owner.session,
      body: { world_revision_id: saved.body.world_revision_id, budget_limit_credits: quote.body.credits_estimate * 2 },
      headers: { 'idempotency-key': `k-${randomBytes(8).toString('hex')}` },
    });
    expect(created.status).toBe(202);
    const run_id: string = created.body.run_id;
    await eventually(
      async () => (await http(service, 'GET', `/v1/runs/${run_id}`, { token: owner.session })).body.status === 'running',
      60_000,
      'the run to start',
    );
    const reserved = (await balances(service.db, owner.org_id)).reserved_credits;
    expect(reserved).toBeGreaterThan(0);
    const maintenance = (older_than_ms: number) =>
      service.service.client.workflow.execute('maintenanceWorkflow', {
        taskQueue: service.task_queue,
        workflowId: `maintenance-${randomBytes(4).toString('hex')}`,
        args: [{ older_than_ms }],
      }) as Promise<{ jobs_ended: number }>;
    // While its workflow runs, the row is left alone however long it has not moved.
    expect((await maintenance(0)).jobs_ended).toBe(0);
    expect((await http(service, 'GET', `/v1/runs/${run_id}`, { token: owner.session })).body.status).toBe('running');

    // An operator's `temporal workflow terminate`: no step of the workflow runs again, so nothing of its own ends the row.
    await service.service.client.workflow.getHandle(runWorkflowId(run_id)).terminate('operator test');
    // A row that moved a moment ago is not looked at yet.
    expect((await maintenance(60 * 60 * 1000)).jobs_ended).toBe(0);
    expect((await http(service, 'GET', `/v1/runs/${run_id}`, { token: owner.session })).body.status).toBe('running');

    expect((await maintenance(0)).jobs_ended).toBe(1);
    const ended = (await http(service, 'GET', `/v1/runs/${run_id}`, { token: owner.session })).body;
    expect(ended).toMatchObject({ status: 'canceled', credits_used: 0, failure: { code: 'CANCELED' } });
    expect(ended.failure.message).toMatch(/stopped outside the service .* nothing was charged/);
    expect(ended.settled_at).not.toBeNull();
    expect((await balances(service.db, owner.org_id)).reserved_credits).toBe(0);
    // Once ended, a later pass finds nothing to do.
    expect((await maintenance(0)).jobs_ended).toBe(0);
  }, 180_000);
});
