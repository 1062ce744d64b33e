// Records the workflow histories the replay tests check (test/support/histories.ts): each workflow run once, on the real
// service against the dev server, through the requests a user sends (the walkthrough's intake draft and review, an
// authoring session approved into a world that then runs, a world run in shards, a paid checkout, a maintenance tick, a
// PDF read on a worker). Run it on purpose only,
// when a workflow changed on purpose and its old histories need no longer replay:
//   npx vitest run --config test/support/record-histories.config.ts
// A history recorded before a change is what catches a change that breaks running workflows: re-record with care.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { jobWorkflowId } from '../../domain/jobs.ts';
import { runOperator } from '../../runtime/operator.ts';
import type { maintenanceWorkflow as MaintenanceWorkflow } from '../../workflows/maintenance.ts';
import { type FakeEuropePmc, startFakeEuropePmc } from '../fakes/europepmc.ts';
import { startStripeFake, stripeEnv, type StripeFake } from '../fakes/stripe.ts';
import { key, projectWithIntake, waiting } from './authoring.ts';
import { eventually, http, signedInOwner, startTestService, type TestService, type TestUser } from './harness.ts';
import { HISTORY_FIXTURE_MASTER_KEY, type HistoryFixture, writeHistoryFixture } from './histories.ts';
import { textLayerPdf } from './corpus.ts';
import { fiveLiteratureRecords } from './reviewFixtures.ts';
import { queueWorld } from './worlds.ts';

let service: TestService;
let pmc: FakeEuropePmc;
let stripe: StripeFake;
let owner: TestUser;

beforeAll(async () => {
  pmc = await startFakeEuropePmc(fiveLiteratureRecords());
  stripe = await startStripeFake();
  service = await startTestService({
    env: { CRUCIBLE_EUROPE_PMC_BASE_URL: pmc.base_url, SERVICE_MASTER_KEY: HISTORY_FIXTURE_MASTER_KEY.toString('base64'), ...stripeEnv(stripe) },
  });
  owner = await signedInOwner(service, 'histories');
  await runOperator(service.db, { command: 'grant-credits', flags: { org: owner.org_id, credits: '100000', reason: 'recording histories' } });
}, 240_000);

afterAll(async () => {
  await service?.stop();
  await pmc?.close();
  await stripe?.close();
});

const call = (method: string, path: string, body?: unknown) =>
  http(service, method, path, { token: owner.session, body, headers: { 'idempotency-key': key() } });

/** Waits for the workflow to close, then stores its history as the fixture. */
async function record(name: HistoryFixture, workflow_id: string): Promise<void> {
  const handle = service.service.client.workflow.getHandle(workflow_id);
  await handle.result();
  const history = await handle.fetchHistory();
  writeHistoryFixture(name, history);
}

async function ended(path: string, what: string): Promise<any> {
  return eventually(
    async () => {
      const read = await call('GET', path);
      return ['succeeded', 'failed', 'canceled', 'timed_out'].includes(read.body.status) ? read.body : null;
    },
    120_000,
    what,
  );
}

it('records an intake draft and a concept review (the walkthrough)', async () => {
  const project = await call('POST', '/v1/projects', { title: 'Heart failure remote monitoring', org_id: owner.org_id });
  const paragraph = 'Problem: heart failure patients are readmitted within 30 days.\nOur solution: a remote monitoring app.\nStage: idea.';
  const extracted = await call('POST', '/v1/intakes/extract', { text: paragraph, project_id: project.body.id });
  const parsed = await call('POST', `/v1/projects/${project.body.id}/intakes/parse`, { source_ids: [extracted.body.sources[0].id] });
  const draft = await ended(`/v1/intake-drafts/${parsed.body.id}`, 'the intake draft');
  expect(draft.status).toBe('succeeded');
  await record('intake-draft', jobWorkflowId('intake_draft', parsed.body.id));
  expect((await call('POST', `/v1/projects/${project.body.id}/intakes`, { spec: draft.spec, draft_id: draft.id })).status).toBe(201);
  const plan = await call('POST', `/v1/projects/${project.body.id}/evaluation-plans`, {});
  await call('POST', `/v1/projects/${project.body.id}/evaluation-plans/${plan.body.id}/approve`, { scope: 'hosted_inference' });
  const started = await call('POST', `/v1/projects/${project.body.id}/reviews`, { plan_id: plan.body.id });
  expect((await ended(`/v1/reviews/${started.body.id}`, 'the review')).status).toBe('succeeded');
  await record('review', jobWorkflowId('review', started.body.id));
});

it('records an authoring session approved into a world, and that world run', async () => {
  const project_id = await projectWithIntake(service, owner);
  const created = await call('POST', `/v1/projects/${project_id}/authoring-sessions`, {});
  const session_id = created.body.id;
  const first = await waiting(service, owner, session_id);
  const values: Record<string, number> = { arrival_rate: 4, mean_service: 20, servers: 2, 'treatment.mean_service': 12 };
  const answers = first.checkpoint.questions.map((q: any) => ({ question_id: q.id, value: values[q.slot] }));
  expect((await call('POST', `/v1/authoring-sessions/${session_id}/answers`, { answers })).status).toBe(200);
  const approved = await call('POST', `/v1/authoring-sessions/${session_id}/approve`, {});
  expect(approved.body.status).toBe('approved');
  await record('authoring', jobWorkflowId('authoring', session_id));
  const run = await call('POST', '/v1/runs', { world_revision_id: approved.body.world_revision_id, budget_limit_credits: 50_000 });
  expect((await ended(`/v1/runs/${run.body.run_id}`, 'the run')).status).toBe('succeeded');
});

it('records a world run in shards', async () => {
  const project = await call('POST', '/v1/projects', { title: 'Clinic queue', org_id: owner.org_id });
  const world = queueWorld({ servers: 2, arrivals_per_minute: 1.5, mean_service_minutes: 1, replications: 5, horizon_minutes: 4_000 });
  const saved = await call('POST', `/v1/projects/${project.body.id}/worlds`, world);
  // Two replications per shard, two at once: three shards, the third started as the first ends.
  service.config.run_shards.replications = 2;
  service.config.run_shards.in_flight = 2;
  const run = await call('POST', '/v1/runs', { world_revision_id: saved.body.world_revision_id, budget_limit_credits: 1_000 });
  expect((await ended(`/v1/runs/${run.body.run_id}`, 'the run')).status).toBe('succeeded');
  await record('run', jobWorkflowId('run', run.body.run_id));
});

it('records a paid checkout', async () => {
  const price = stripe.addPrice({ unit_amount: 1500 });
  await runOperator(service.db, {
    command: 'pack bind',
    flags: { key: 'starter', title: 'Starter pack', price: price.id, credits: '5000' },
    config: service.config,
  });
  const checkout = await call('POST', '/v1/billing/checkout', { pack_key: 'starter', org_id: owner.org_id });
  expect(checkout.status).toBe(201);
  stripe.markPaid(checkout.body.session_id);
  const { body, signature } = stripe.signedEvent('checkout.session.completed', checkout.body.session_id);
  const headers = { 'content-type': 'application/json', 'stripe-signature': signature };
  expect((await http(service, 'POST', '/v1/billing/stripe/webhook', { raw: body, headers })).status).toBe(200);
  await record('checkout', jobWorkflowId('checkout', checkout.body.intent_id));
});

it('records a maintenance tick', async () => {
  const workflow_id = `maintenance-history-${key()}`;
  await service.service.client.workflow.start<typeof MaintenanceWorkflow>('maintenanceWorkflow', {
    taskQueue: service.task_queue,
    workflowId: workflow_id,
    args: [{}],
  });
  await record('maintenance', workflow_id);
});

it('records a PDF request read on a worker', async () => {
  const pdf = (await textLayerPdf()).input as { filename: string; bytes: Uint8Array };
  const form = new FormData();
  form.append('org_id', owner.org_id);
  form.append('files', new Blob([pdf.bytes as Uint8Array<ArrayBuffer>], { type: 'application/pdf' }), pdf.filename);
  const response = await fetch(`${service.url}/v1/intakes/extract`, { method: 'POST', headers: { authorization: `Bearer ${owner.session}` }, body: form });
  expect(response.status).toBe(201);
  const query = `CrucibleOrgId = '${owner.org_id}' AND CrucibleResourceKind = 'intake_read'`;
  const workflow_id = await eventually(
    async () => {
      for await (const execution of service.service.client.workflow.list({ query })) return execution.workflowId;
      return null;
    },
    30_000,
    'the read to be listed',
  );
  await record('intake-read', workflow_id);
});
