// Task queues by kind of work (docs/deploy.md "Task queues"): the workflows route model calls to the model queue and a
// run's replications to the simulation queue; a service whose worker serves only the default and model queues drafts
// an intake to the end while a run waits for its replications, which start as soon as a simulation-only worker polls.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runWorkflowId, intakeDraftWorkflowId, workQueueName } from '../../domain/jobs.ts';
import { createLogger } from '../../runtime/logger.ts';
import { runOperator } from '../../runtime/operator.ts';
import { createWorker } from '../../runtime/worker.ts';
import { key } from '../support/authoring.ts';
import { eventually, http, signedInOwner, startTestService, type TestService, type TestUser } from '../support/harness.ts';
import { queueWorld } from '../support/worlds.ts';

let service: TestService;
let owner: TestUser;

beforeAll(async () => {
  service = await startTestService({ env: { CRUCIBLE_WORKER_QUEUES: 'default,model' } });
  owner = await signedInOwner(service, 'queues');
  await runOperator(service.db, { command: 'grant-credits', flags: { org: owner.org_id, credits: '100000', reason: 'task queue test' } });
});

afterAll(async () => {
  await service?.stop();
});

const call = (method: string, path: string, body?: unknown) =>
  http(service, method, path, { token: owner.session, body, headers: { 'idempotency-key': key() } });

/** The task queue each scheduled activity of a workflow went to, by activity type. */
async function scheduledQueues(workflow_id: string): Promise<Record<string, string>> {
  const history = await service.service.client.workflow.getHandle(workflow_id).fetchHistory();
  const scheduled = (history.events ?? []).flatMap((event) => event.activityTaskScheduledEventAttributes ?? []);
  return Object.fromEntries(scheduled.map((attributes) => [attributes.activityType!.name!, attributes.taskQueue!.name!]));
}

async function pollers(queue: string): Promise<number> {
  const described = await service.service.client.workflowService.describeTaskQueue({
    namespace: service.config.temporal_namespace,
    taskQueue: { name: queue },
    taskQueueType: 2, // TASK_QUEUE_TYPE_ACTIVITY
  });
  return described.pollers?.length ?? 0;
}

describe('task queues by kind of work', () => {
  it('sends a model call to the model queue and a run to the simulation queue, each served by its own worker', async () => {
    const base = service.task_queue;
    // An intake draft: its model call goes to the model queue, which this service's worker serves.
    const project = await call('POST', '/v1/projects', { title: 'Queues', org_id: owner.org_id });
    const extracted = await call('POST', '/v1/intakes/extract', { text: 'Problem: long waits in clinic.\nStage: idea.', project_id: project.body.id });
    const parsed = await call('POST', `/v1/projects/${project.body.id}/intakes/parse`, { source_ids: [extracted.body.sources[0].id] });
    const draft_id = parsed.body.id;
    await service.service.client.workflow.getHandle(intakeDraftWorkflowId(draft_id)).result();
    expect((await call('GET', `/v1/intake-drafts/${draft_id}`)).body.status).toBe('succeeded');
    expect(await scheduledQueues(intakeDraftWorkflowId(draft_id))).toMatchObject({ callModel: workQueueName(base, 'model') });

    // A run: its shards wait on the simulation queue, which nothing polls yet.
    const world = queueWorld({ servers: 1, arrivals_per_minute: 0.5, mean_service_minutes: 1, replications: 2, horizon_minutes: 500, warm_up_minutes: 50 });
    const saved = await call('POST', `/v1/projects/${project.body.id}/worlds`, world);
    const run = await call('POST', '/v1/runs', { world_revision_id: saved.body.world_revision_id, budget_limit_credits: 50_000 });
    expect(run.status).toBe(202);
    const workflow_id = runWorkflowId(run.body.run_id);
    const queues = await eventually(
      async () => {
        const found = await scheduledQueues(workflow_id);
        return found.runShard ? found : null;
      },
      30_000,
      'the replications to be scheduled',
    );
    expect(queues.runShard).toBe(workQueueName(base, 'simulation'));
    expect(await pollers(workQueueName(base, 'simulation'))).toBe(0);
    expect(await pollers(workQueueName(base, 'model'))).toBeGreaterThan(0);
    expect((await call('GET', `/v1/runs/${run.body.run_id}`)).body.status).toBe('running');
    // Readiness names the queue nobody polls and what waits for it; the workflows' queue keeps the service ready.
    const health = await eventually(
      async () => {
        const response = await fetch(`${service.url}/v1/health`);
        const body = (await response.json()) as { checks: { worker: { ok: boolean; detail: string } } };
        return body.checks.worker.detail.includes(`${workQueueName(base, 'simulation')}: no poller (runs wait)`) ? { status: response.status, body } : null;
      },
      10_000,
      'readiness to name the simulation queue',
    );
    expect(health.status).toBe(200);
    expect(health.body.checks.worker.detail).toMatch(new RegExp(`${workQueueName(base, 'model')}: \\d+ poller\\(s\\)`));

    // A simulation-only worker (as `crucible-server worker --queues simulation` on a machine of its own) takes them.
    const { worker, connection } = await createWorker({
      config: service.config,
      db: service.db,
      logger: createLogger({ level: 'silent' }),
      address: inject('temporal_address'),
      queues: ['simulation'],
    });
    expect([...worker.workers.keys()]).toEqual(['simulation']);
    const running = worker.run();
    try {
      await service.service.client.workflow.getHandle(workflow_id).result();
      expect((await call('GET', `/v1/runs/${run.body.run_id}`)).body.status).toBe('succeeded');
    } finally {
      worker.shutdown();
      await running;
      await connection.close();
    }
  });
});
