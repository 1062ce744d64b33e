// Runs over the real service (PGlite or PostgreSQL, the Temporal dev server, the worker pool): estimate and create
// under a budget, the sample worlds to succeeded, a budget met mid-way, cancel with a late worker, events paging,
// comparison, signed-link exports and tenant isolation.
import { createHash } from 'node:crypto';
import { encryptedDataConverter } from '../../integrations/temporal/codec.ts';
import { readFileSync } from 'node:fs';
import { unzipSync, strFromU8 } from 'fflate';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { schemaErrors } from '../../api/http/request.ts';
import { RunComparison, RunResultsBody } from '../../domain/contracts/runs.ts';
import type { WorldSpec } from '../../domain/contracts/worldSpec.ts';
import { creditsForEvents, EXPORT_FILE_NAMES, eventTrace, runReplication, runSequential } from '../../domain/simulation/index.ts';
import { runWorkflowId } from '../../domain/jobs.ts';
import { grantCredits } from '../../store/credits/ledger.ts';
import { EXPORT_LINK_LIFETIME_SECONDS, signExportToken } from '../../store/runs/exportLinks.ts';
import { EXPORT_PART_BYTES, storeRunExport } from '../../store/runs/exports.ts';
import { finishRun, recordReplications, runReservation } from '../../store/runs/runs.ts';
import { apiToken, eventually, http, signedInOwner, startTestService, type TestService, type TestUser } from '../support/harness.ts';
import { burstyWorld, queueWorld } from '../support/worlds.ts';

let service: TestService;
let owner: TestUser;
let project_id: string;

beforeAll(async () => {
  service = await startTestService();
  owner = await signedInOwner(service, 'runs');
  const project = await http(service, 'POST', '/v1/projects', { token: owner.session, body: { title: 'Runs', org_id: owner.org_id } });
  project_id = project.body.id;
});
afterAll(async () => {
  await service?.stop();
});

async function grant(org_id: string, credits: number): Promise<void> {
  await service.db.transaction((tx) => grantCredits(tx, { org_id, credits, reason: 'test grant', caused_by: 'test' }));
}

async function available(user: TestUser): Promise<number> {
  const response = await http(service, 'GET', `/v1/orgs/${user.org_id}/credits`, { token: user.session });
  return response.body.available_credits;
}

async function saveWorld(world: WorldSpec, user = owner, project = project_id): Promise<string> {
  const saved = await http(service, 'POST', `/v1/projects/${project}/worlds`, { token: user.session, body: world });
  if (saved.status !== 201) throw new Error(`save failed: ${JSON.stringify(saved.body)}`);
  return saved.body.world_revision_id;
}

async function estimate(world_revision_id: string, budget_limit_credits: number) {
  return http(service, 'POST', '/v1/runs/estimate', { token: owner.session, body: { world_revision_id, budget_limit_credits } });
}

async function startRun(world_revision_id: string, budget_limit_credits: number, key?: string) {
  return http(service, 'POST', '/v1/runs', {
    token: owner.session,
    body: { world_revision_id, budget_limit_credits },
    headers: key ? { 'idempotency-key': key } : {},
  });
}

/** Polls the run until it has ended and its credits settled. */
async function settled(run_id: string, timeout_ms = 90_000) {
  return eventually(
    async () => {
      const response = await http(service, 'GET', `/v1/runs/${run_id}`, { token: owner.session });
      return response.body.settled_at !== null && !['queued', 'running'].includes(response.body.status) ? response.body : null;
    },
    timeout_ms,
    `run ${run_id} to end and settle`,
  );
}

/**
 * A burst: 1,100 scheduled instants of 1,000 arrivals each in the first minutes, each held 50,000 minutes. On average
 * (Little's law over the horizon) about 11,000 are in the system, but at the burst 1.1 million are.
 */
function burstWorld(): WorldSpec {
  return {
    contract: 'WorldSpec',
    version: '1.0.0',
    name: 'A burst the averages cannot see',
    synthetic: true,
    time_unit: 'minutes',
    horizon: 5_000_000,
    warm_up: 0,
    replications: 1,
    seed: 4,
    settings: {},
    arrivals: [{ id: 'burst', kind: 'scheduled', times: Array.from({ length: 1100 }, (_, k) => k / 1000), batch_size: 1000, to_step: 'hold' }],
    resources: [],
    steps: [
      { id: 'hold', kind: 'delay', duration: { dist: 'fixed', value: 50_000 }, next: 'done' },
      { id: 'done', kind: 'exit' },
    ],
    measured: [{ id: 'held', kind: 'count', event: { step: 'hold', at: 'end' }, unit: 'count', denominator: 'replication', censoring: 'none' }],
    variants: [
      { id: 'baseline', label: 'Current', role: 'baseline', changes: [] },
      { id: 'treatment', label: 'Same', role: 'treatment', changes: [] },
    ],
  } as WorldSpec;
}

const SAMPLES = ['gp_triage_digital_front_door', 'remote_monitoring_admissions', 'ai_imaging_reading_queue', 'community_diagnostic_pathway'];

describe('estimate and create under a budget', () => {
  it('reports a budget below the estimate and a balance that cannot cover, and runnable once both are fine', async () => {
    const fresh = await signedInOwner(service, 'estimator');
    const project = await http(service, 'POST', '/v1/projects', { token: fresh.session, body: { title: 'Estimates', org_id: fresh.org_id } });
    const world = queueWorld({ servers: 2, arrivals_per_minute: 1, mean_service_minutes: 1, replications: 10 });
    const wrev = await saveWorld(world, fresh, project.body.id);
    const ask = (budget: number) =>
      http(service, 'POST', '/v1/runs/estimate', { token: fresh.session, body: { world_revision_id: wrev, budget_limit_credits: budget } });

    const first = await ask(1_000_000);
    expect(first.status).toBe(200);
    const credits_estimate = first.body.credits_estimate;
    expect(credits_estimate).toBeGreaterThan(1);
    expect(first.body.runnable).toBe(false);
    expect(first.body.available_credits).toBe(0);
    expect(first.body.reserved_credits).toBe(runReservation(1_000_000, credits_estimate));
    expect(first.body.issues).toEqual([expect.objectContaining({ kind: 'balance', pointer: '/budget_limit_credits' })]);

    const low = await ask(credits_estimate - 1);
    expect(low.status).toBe(200);
    expect(low.body.runnable).toBe(false);
    const budgetIssue = low.body.issues.find((issue: any) => issue.kind === 'budget');
    expect(budgetIssue.message).toContain(`estimate of ${credits_estimate} credits`);

    await grant(fresh.org_id, 10_000);
    const fine = await ask(credits_estimate);
    expect(fine.body).toMatchObject({ runnable: true, issues: [], reserved_credits: credits_estimate, available_credits: 10_000 });
  });

  it('refuses a budget below the estimate at create with 422 naming the estimate, and a balance that cannot cover with 402', async () => {
    const fresh = await signedInOwner(service, 'creator');
    const project = await http(service, 'POST', '/v1/projects', { token: fresh.session, body: { title: 'Creates', org_id: fresh.org_id } });
    const wrev = await saveWorld(queueWorld({ servers: 2, arrivals_per_minute: 1, mean_service_minutes: 1, replications: 10 }), fresh, project.body.id);
    const { credits_estimate } = (
      await http(service, 'POST', '/v1/runs/estimate', { token: fresh.session, body: { world_revision_id: wrev, budget_limit_credits: 1 } })
    ).body;
    const create = (budget: number) =>
      http(service, 'POST', '/v1/runs', { token: fresh.session, body: { world_revision_id: wrev, budget_limit_credits: budget } });

    const low = await create(credits_estimate - 1);
    expect(low.status).toBe(422);
    expect(low.body.code).toBe('VALIDATION_FAILED');
    expect(low.body.message).toContain(`estimate of ${credits_estimate} credits`);
    expect(low.body.details[0]).toMatchObject({ path: '/budget_limit_credits', credits_estimate });

    const poor = await create(credits_estimate);
    expect(poor.status).toBe(402);
    expect(poor.body.code).toBe('INSUFFICIENT_CREDITS');

    for (const budget of [0, 9007199254740992, 1.5]) {
      const invalid = await create(budget);
      expect(invalid.status, String(budget)).toBe(422);
    }
    const runs = await http(service, 'GET', `/v1/projects/${project.body.id}/runs`, { token: fresh.session });
    expect(runs.body.data).toEqual([]);
  });

  it('needs the run scope to create a run', async () => {
    const wrev = await saveWorld(queueWorld({ servers: 1, arrivals_per_minute: 0.5, mean_service_minutes: 1, replications: 2 }));
    const readOnly = await apiToken(service, owner, ['read', 'write']);
    const refused = await http(service, 'POST', '/v1/runs', { token: readOnly, body: { world_revision_id: wrev, budget_limit_credits: 100 } });
    expect(refused.status).toBe(403);
  });

  it('carries the model check on the estimate and the created run: a treatment that changes nothing still runs, with the warning', async () => {
    await grant(owner.org_id, 1000);
    const changed = await saveWorld(
      queueWorld({
        servers: 2,
        arrivals_per_minute: 1,
        mean_service_minutes: 1.5,
        treatment_mean_service_minutes: 1.2,
        replications: 2,
        horizon_minutes: 4000,
      }),
    );
    expect((await estimate(changed, 100)).body.warnings).toEqual([]);
    const same = await saveWorld(queueWorld({ servers: 2, arrivals_per_minute: 1, mean_service_minutes: 1.5, replications: 2, horizon_minutes: 4000 }));
    const estimated = await estimate(same, 100);
    expect(estimated.status).toBe(200);
    expect(estimated.body.runnable).toBe(true);
    expect(estimated.body.warnings).toEqual([expect.objectContaining({ kind: 'variant_changes_nothing', pointer: '/variants/1' })]);
    expect(estimated.body.warnings[0].message).toContain('changes nothing');
    const created = await startRun(same, 100);
    expect(created.status).toBe(202);
    expect(created.body.warnings).toEqual(estimated.body.warnings);
    expect((await settled(created.body.run_id)).status).toBe('succeeded');
  });
});

describe('runs to the end', () => {
  it('runs each sample world to succeeded, charging exactly the credits of the events simulated', async () => {
    await grant(owner.org_id, 1_000_000);
    const sample_runs = new Set<string>();
    for (const name of SAMPLES) {
      const world = JSON.parse(readFileSync(new URL(`../../samples/worlds/${name}.json`, import.meta.url), 'utf8')) as WorldSpec;
      const wrev = await saveWorld(world);
      const quote = (await estimate(wrev, 1_000_000)).body;
      expect(quote.runnable, name).toBe(true);
      const before = await available(owner);
      const created = await startRun(wrev, quote.credits_estimate * 2, `sample-${name}`);
      expect(created.status, name).toBe(202);
      expect(created.body.status).toBe('queued');
      const run = await settled(created.body.run_id);
      sample_runs.add(run.run_id);
      expect(run.status, name).toBe('succeeded');
      expect(run.replications_completed).toBe(world.replications * world.variants.length);
      expect(run.credits_used).toBe(creditsForEvents(run.events_simulated));
      expect(await available(owner)).toBe(before - run.credits_used);

      const results = await http(service, 'GET', `/v1/runs/${run.run_id}/results`, { token: owner.session });
      expect(results.status).toBe(200);
      expect(results.body.manifest).toMatchObject({
        contract: 'RunManifest',
        run_id: run.run_id,
        world_revision_id: wrev,
        status: 'succeeded',
        replications_completed: run.replications_completed,
        credits_used: run.credits_used,
        seed: world.seed,
        synthetic: true,
      });
      expect(results.body.metrics).toHaveLength(world.measured.length * world.variants.length);
      expect(results.body.findings.length).toBeGreaterThan(0);
      expect(results.body.findings.every((finding: any) => finding.label === 'synthetic')).toBe(true);
      if (world.cost_scenarios) expect(results.body.cost_report.variants).toHaveLength(world.variants.length);
      // The OpenAPI document describes the results and the comparison by these schemas: what is served fits them.
      expect(schemaErrors(RunResultsBody, results.body), name).toEqual([]);
      const comparison = await http(service, 'POST', '/v1/experiments/compare', { token: owner.session, body: { run_id: run.run_id } });
      expect(comparison.status, name).toBe(200);
      expect(schemaErrors(RunComparison, comparison.body), name).toEqual([]);

      // The same key replays the same run and starts nothing new.
      const replay = await startRun(wrev, quote.credits_estimate * 2, `sample-${name}`);
      expect(replay.status).toBe(202);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.body.run_id).toBe(run.run_id);
    }
    const runs = await http(service, 'GET', `/v1/projects/${project_id}/runs?limit=200`, { token: owner.session });
    // the project's list holds each sample's run, succeeded (the project's other tests add runs of their own)
    expect(runs.body.data.filter((run: any) => sample_runs.has(run.run_id) && run.status === 'succeeded').length).toBe(SAMPLES.length);
  });

  it('takes round trips through Temporal for the shards only: the row and ledger steps are local activities', async () => {
    await grant(owner.org_id, 1_000_000);
    const world = JSON.parse(readFileSync(new URL('../../samples/worlds/gp_triage_digital_front_door.json', import.meta.url), 'utf8')) as WorldSpec;
    const wrev = await saveWorld(world);
    const quote = (await estimate(wrev, 1_000_000)).body;
    const created = await startRun(wrev, quote.credits_estimate * 2);
    expect((await settled(created.body.run_id)).status).toBe('succeeded');
    // The run's row says succeeded from within the last local activity, before the workflow task that records the
    // markers completes: wait for the workflow itself to end before reading its history.
    const handle = service.service.client.workflow.getHandle(runWorkflowId(created.body.run_id));
    await handle.result();
    const history = await handle.fetchHistory();
    const events = history.events ?? [];
    const activities = events.flatMap((event) => event.activityTaskScheduledEventAttributes?.activityType?.name ?? []);
    // One activity per shard (this small run is one shard at the default shard size), on the simulation queue.
    expect(activities).toEqual(['runShard']);
    // startRun, reserveCredits, planRunShards, readRunUsage, settleCredits, finishRun: local-activity markers.
    const local = events.filter((event) => event.markerRecordedEventAttributes?.markerName === 'core_local_activity');
    expect(local).toHaveLength(6);
    // The workflow marks its runs with the patches (local steps, a start a cancel waits for, shards), so runs started
    // before each change replay on their old path.
    expect(events.filter((event) => event.markerRecordedEventAttributes?.markerName === 'core_patch')).toHaveLength(3);
    // And the history replays on the same code (test/integration/workflow-replay.test.ts replays one of the old path).
    // Its payloads are encrypted: the replay decodes them with the service's codec, as a production worker does.
    const dataConverter = encryptedDataConverter(service.config.master_key, service.config.master_keys_previous);
    await Worker.runReplayHistory({ workflowBundle: { codePath: inject('workflow_bundle_path') }, dataConverter }, history, 'run-local-steps');
  });

  it('ends timed_out when the budget is met mid-way, charges what it used and keeps complete pairs readable', async () => {
    const world = burstyWorld();
    const wrev = await saveWorld(world);
    const quote = (await estimate(wrev, 1_000_000)).body;
    const before = await available(owner);
    const created = await startRun(wrev, quote.credits_estimate);
    expect(created.status).toBe(202);
    expect(created.body.credits_reserved).toBe(quote.credits_estimate);
    const run = await settled(created.body.run_id);
    expect(run.status).toBe('timed_out');
    expect(run.stop_reason).toBe('budget');
    expect(run.replications_completed).toBeGreaterThan(0);
    expect(run.replications_completed).toBeLessThan(run.replications_requested);
    // The kept replications fit the budget; the work that ran past it is charged only up to the budget.
    expect(creditsForEvents(run.events_simulated)).toBeLessThanOrEqual(run.credits_reserved);
    expect(run.credits_used).toBe(Math.min(run.credits_reserved, creditsForEvents(run.events_simulated + run.events_discarded)));
    expect(run.credits_used).toBeLessThanOrEqual(run.budget_limit_credits);
    expect(await available(owner)).toBe(before - run.credits_used);

    const results = await http(service, 'GET', `/v1/runs/${run.run_id}/results`, { token: owner.session });
    expect(results.status).toBe(200);
    expect(results.body.manifest).toMatchObject({
      status: 'timed_out',
      replications_completed: run.replications_completed,
      events_simulated: run.events_simulated,
    });
    // Complete pairs: every variant holds the same replications (docs/simulation.md, Complete pairs).
    const [baselineCount, treatmentCount] = results.body.manifest.variants.map((variant: any) => variant.replications_completed);
    expect(baselineCount).toBeGreaterThan(0);
    expect(treatmentCount).toBe(baselineCount);
    expect(run.replications_completed).toBe(2 * baselineCount);
    const completedMetric = results.body.metrics.find((m: any) => m.measure_id === 'completed' && m.variant_id === 'baseline');
    expect(completedMetric.n).toBe(results.body.manifest.variants[0].replications_completed);
    const comparison = await http(service, 'POST', '/v1/experiments/compare', { token: owner.session, body: { run_id: run.run_id } });
    expect(comparison.status).toBe(200);
    expect(schemaErrors(RunResultsBody, results.body)).toEqual([]);
    expect(schemaErrors(RunComparison, comparison.body)).toEqual([]);
  });
  it('ends failed with WORLD_LIMIT_EXCEEDED when the world makes the engine stop mid-way, releasing the reservation', { timeout: 180_000 }, async () => {
    const wrev = await saveWorld(burstWorld());
    const quote = (await estimate(wrev, 1_000_000)).body;
    expect(quote.runnable).toBe(true);
    const before = await available(owner);
    const created = await startRun(wrev, quote.credits_estimate);
    expect(created.status).toBe(202);
    const run = await settled(created.body.run_id, 170_000);
    expect(run.status).toBe('failed');
    expect(run.failure).toMatchObject({ code: 'WORLD_LIMIT_EXCEEDED', message: expect.stringContaining('the world caused this failure') });
    expect(run.error.message).toContain('ENTITIES_IN_SYSTEM_MAX');
    // docs/decisions.md, Simulation: a world-caused failure is not charged; the reservation is released.
    expect(run.credits_used).toBe(0);
    expect(await available(owner)).toBe(before);
    const credits = await http(service, 'GET', `/v1/orgs/${owner.org_id}/credits`, { token: owner.session });
    expect(credits.body.reserved_credits).toBe(0);
    const results = await http(service, 'GET', `/v1/runs/${run.run_id}/results`, { token: owner.session });
    expect(results.status).toBe(409);
  });
});

describe('cancel', () => {
  it('ends canceled, settles the work done, and a late worker completion does not overwrite it', async () => {
    // 1.2 B events (1.2 M per replication): some 20 s on both cores at the engine's fastest, so the cancel arrives mid-way.
    const world = queueWorld({ servers: 5, arrivals_per_minute: 4, mean_service_minutes: 1, horizon_minutes: 150_000, replications: 500 });
    const wrev = await saveWorld(world);
    const quote = (await estimate(wrev, 1_000_000)).body;
    const before = await available(owner);
    const created = await startRun(wrev, quote.credits_estimate);
    const run_id = created.body.run_id;
    await eventually(
      async () => {
        const response = await http(service, 'GET', `/v1/runs/${run_id}`, { token: owner.session });
        return response.body.status === 'running' && response.body.replications_completed >= 2;
      },
      60_000,
      'two replications stored',
    );

    const canceled = await http(service, 'POST', `/v1/runs/${run_id}/cancel`, { token: owner.session });
    expect(canceled.status).toBe(200);
    expect(canceled.body.status).toBe('canceled');
    const again = await http(service, 'POST', `/v1/runs/${run_id}/cancel`, { token: owner.session });
    expect(again.status).toBe(200);

    const run = await settled(run_id);
    expect(run.status).toBe('canceled');
    expect(run.replications_completed).toBeLessThan(run.replications_requested);
    expect(run.credits_used).toBeGreaterThan(0);
    expect(run.credits_used).toBe(Math.min(run.credits_reserved, creditsForEvents(run.events_simulated + run.events_discarded)));
    expect(await available(owner)).toBe(before - run.credits_used);
    const balance = await http(service, 'GET', `/v1/orgs/${owner.org_id}/credits`, { token: owner.session });
    expect(balance.body.reserved_credits).toBe(0);

    // A worker finishing late: its replication is discarded and its "succeeded" does not replace canceled.
    const late = runReplication(world, { variant_id: 'baseline', replication_index: world.replications - 1 });
    expect(await recordReplications(service.db, run_id, [{ variant_order: 0, result: late }])).toBe('not_running');
    expect(await finishRun(service.db, { run_id, status: 'succeeded', credits_used: run.credits_used })).toBe('canceled');
    const after = await http(service, 'GET', `/v1/runs/${run_id}`, { token: owner.session });
    expect(after.body).toMatchObject({ status: 'canceled', replications_completed: run.replications_completed, credits_used: run.credits_used });
    expect(await available(owner)).toBe(before - run.credits_used);

    const results = await http(service, 'GET', `/v1/runs/${run_id}/results`, { token: owner.session });
    expect(results.status).toBe(409);
    expect(results.body.code).toBe('CONFLICT');
  });

  it('refuses to cancel a run that already succeeded', async () => {
    const wrev = await saveWorld(
      queueWorld({ servers: 1, arrivals_per_minute: 0.5, mean_service_minutes: 1, replications: 2, horizon_minutes: 2000, warm_up_minutes: 100 }),
    );
    const created = await startRun(wrev, 10);
    const run = await settled(created.body.run_id);
    expect(run.status).toBe('succeeded');
    const response = await http(service, 'POST', `/v1/runs/${run.run_id}/cancel`, { token: owner.session });
    expect(response.status).toBe(409);
    expect(response.body.code).toBe('CONFLICT');
  });
});

describe('events, comparison and export of a finished run', () => {
  let world: WorldSpec;
  let run_id: string;

  beforeAll(async () => {
    world = queueWorld({ servers: 2, arrivals_per_minute: 1.5, mean_service_minutes: 1, replications: 3, horizon_minutes: 4000, warm_up_minutes: 200 });
    await grant(owner.org_id, 1000);
    const wrev = await saveWorld(world);
    const created = await startRun(wrev, 100);
    run_id = (await settled(created.body.run_id)).run_id;
  });

  it('pages through the stored events, returning each exactly once and exactly the trace the engine produces', async () => {
    const seen: any[] = [];
    let offset: number | null = 0;
    let included = -1;
    let pages = 0;
    while (offset !== null) {
      const response: { status: number; body: any } = await http(service, 'GET', `/v1/runs/${run_id}/events?limit=997&offset=${offset}`, {
        token: owner.session,
      });
      expect(response.status).toBe(200);
      included = response.body.events_included;
      seen.push(...response.body.events);
      offset = response.body.next_offset;
      pages++;
    }
    const expected = eventTrace(world, runSequential(world)).events;
    expect(included).toBe(expected.length);
    expect(pages).toBe(Math.ceil(expected.length / 997));
    expect(seen).toEqual(expected);
    expect(new Set(seen.map((event) => `${event.variant_id}:${event.sequence}`)).size).toBe(seen.length);
    const past = await http(service, 'GET', `/v1/runs/${run_id}/events?offset=${expected.length}`, { token: owner.session });
    expect(past.body).toMatchObject({ events: [], next_offset: null, events_included: expected.length });
    const bad = await http(service, 'GET', `/v1/runs/${run_id}/events?limit=1001`, { token: owner.session });
    expect(bad.status).toBe(422);
  });

  it('compares a treatment that changes nothing with differences of exactly zero', async () => {
    const response = await http(service, 'POST', '/v1/experiments/compare', { token: owner.session, body: { run_id } });
    expect(response.status).toBe(200);
    expect(response.body.metrics).toHaveLength(world.measured.length);
    for (const metric of response.body.metrics) {
      expect(metric.n_pairs).toBe(world.replications);
      expect(metric.mean_difference).toBe(0);
      expect(metric.differences.every((pair: any) => pair.difference === 0)).toBe(true);
    }
  });

  it('exports through a signed link that works without the bearer credential and holds the listed files', async () => {
    const link = await http(service, 'POST', `/v1/runs/${run_id}/export`, { token: owner.session });
    expect(link.status).toBe(200);
    const expires = Date.parse(link.body.expires_at);
    expect(expires - Date.now()).toBeGreaterThan((EXPORT_LINK_LIFETIME_SECONDS - 60) * 1000);
    expect(expires - Date.now()).toBeLessThanOrEqual(EXPORT_LINK_LIFETIME_SECONDS * 1000);
    const download = await fetch(link.body.url);
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('application/zip');
    expect(download.headers.get('content-disposition')).toContain(`crucible-${run_id}.zip`);
    const files = unzipSync(new Uint8Array(await download.arrayBuffer()));
    expect(Object.keys(files).sort()).toEqual([...EXPORT_FILE_NAMES].sort());
    const manifest = JSON.parse(strFromU8(files['manifest.json']!));
    expect(manifest).toMatchObject({ run_id, status: 'succeeded', synthetic: true });
    expect(JSON.parse(strFromU8(files['world.json']!))).toEqual(world);
    expect(strFromU8(files['events.csv']!).split('\n').length).toBeGreaterThan(100);
    expect(strFromU8(files['report.html']!)).toContain('<svg');
  });

  it('builds the export once: the archive is stored, and a later download serves the same bytes without building again', async () => {
    const download = async () => {
      const link = await http(service, 'POST', `/v1/runs/${run_id}/export`, { token: owner.session });
      const response = await fetch(link.body.url);
      expect(response.status).toBe(200);
      return { etag: response.headers.get('etag'), bytes: Buffer.from(await response.arrayBuffer()) };
    };
    const first = await download();
    const rows = await service.db.query<{ sha256: string; size_bytes: number; created_at: unknown }>(
      'select sha256, size_bytes, created_at from run_exports where run_id = ?',
      [run_id],
    );
    expect(rows).toHaveLength(1);
    expect(Number(rows[0]!.size_bytes)).toBe(first.bytes.byteLength);
    expect(rows[0]!.sha256).toBe(createHash('sha256').update(first.bytes).digest('hex'));
    expect(first.etag).toBe(`"${rows[0]!.sha256}"`);
    // Three more at once and one after: the same stored row (not built again, created_at unchanged), the same bytes.
    const later = [...(await Promise.all([download(), download(), download()])), await download()];
    for (const again of later) expect(again.bytes.equals(first.bytes)).toBe(true);
    expect(await service.db.query('select sha256, size_bytes, created_at from run_exports where run_id = ?', [run_id])).toEqual(rows);
    expect(Object.keys(unzipSync(new Uint8Array(first.bytes))).sort()).toEqual([...EXPORT_FILE_NAMES].sort());
    const parts = await service.db.query<{ n: number | string }>('select count(*) as n from run_export_parts where run_id = ?', [run_id]);
    expect(Number(parts[0]!.n)).toBe(Math.ceil(first.bytes.byteLength / EXPORT_PART_BYTES));
  });

  it('serves an archive stored in many parts as the same bytes, read part by part', async () => {
    const link = await http(service, 'POST', `/v1/runs/${run_id}/export`, { token: owner.session });
    const before = Buffer.from(await (await fetch(link.body.url)).arrayBuffer());
    await service.db.query('delete from run_exports where run_id = ?', [run_id]);
    const stored = await storeRunExport(service.db, { run_id, org_id: owner.org_id, archive: before, part_bytes: 1000 });
    const parts = await service.db.query<{ part: number; n: number }>('select part, length(bytes) as n from run_export_parts where run_id = ? order by part', [
      run_id,
    ]);
    expect(parts.map((row) => Number(row.part))).toEqual(Array.from({ length: Math.ceil(before.byteLength / 1000) }, (_, index) => index));
    expect(parts.slice(0, -1).every((row) => Number(row.n) === 1000)).toBe(true);
    expect(stored.size_bytes).toBe(before.byteLength);
    const response = await fetch(link.body.url);
    expect(Number(response.headers.get('content-length'))).toBe(before.byteLength);
    expect(Buffer.from(await response.arrayBuffer()).equals(before)).toBe(true);
  });

  it("answers 404 for a link signed for another organization, though the run's archive is stored", async () => {
    const stranger = await signedInOwner(service, 'export-stranger');
    const expires_at_seconds = Math.floor(Date.now() / 1000) + 60;
    const token = signExportToken(service.config.session_secret!, { run_id, org_id: stranger.org_id, expires_at_seconds });
    expect(await service.db.query('select run_id from run_exports where run_id = ?', [run_id])).toHaveLength(1);
    const response = await http(service, 'GET', `/v1/exports/${token}`);
    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ code: 'NOT_FOUND', request_id: expect.any(String) });
  });

  it('refuses a tampered or expired link with 401 and the envelope', async () => {
    const link = await http(service, 'POST', `/v1/runs/${run_id}/export`, { token: owner.session });
    const url = new URL(link.body.url);
    const token = url.pathname.split('/').pop()!;
    const [payload, signature] = token.split('.');
    const flipped = `${signature!.slice(0, -2)}${signature!.endsWith('AA') ? 'BB' : 'AA'}`;
    const forgedPayload = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), e: 4_102_444_800 })).toString('base64url');
    const expired = signExportToken(service.config.session_secret!, { run_id, org_id: owner.org_id, expires_at_seconds: Math.floor(Date.now() / 1000) - 1 });
    for (const [bad, reason] of [
      [`${payload}.${flipped}`, 'invalid'],
      [`${forgedPayload}.${signature}`, 'invalid'],
      [payload!, 'invalid'],
      [expired, 'expired'],
    ] as const) {
      const response = await http(service, 'GET', `/v1/exports/${bad}`);
      expect(response.status, bad).toBe(401);
      expect(response.body).toMatchObject({ code: 'UNAUTHENTICATED', details: { reason }, request_id: expect.any(String) });
    }
  });

  it("answers every run endpoint with 404 for another organization's caller", async () => {
    const stranger = await signedInOwner(service, 'stranger');
    await grant(stranger.org_id, 1000);
    const run = await http(service, 'GET', `/v1/runs/${run_id}`, { token: owner.session });
    const wrev = run.body.world_revision_id;
    const calls = [
      http(service, 'GET', `/v1/runs/${run_id}`, { token: stranger.session }),
      http(service, 'POST', `/v1/runs/${run_id}/cancel`, { token: stranger.session }),
      http(service, 'GET', `/v1/runs/${run_id}/results`, { token: stranger.session }),
      http(service, 'GET', `/v1/runs/${run_id}/events`, { token: stranger.session }),
      http(service, 'POST', `/v1/runs/${run_id}/export`, { token: stranger.session }),
      http(service, 'POST', '/v1/experiments/compare', { token: stranger.session, body: { run_id } }),
      http(service, 'POST', '/v1/runs/estimate', { token: stranger.session, body: { world_revision_id: wrev, budget_limit_credits: 100 } }),
      http(service, 'POST', '/v1/runs', { token: stranger.session, body: { world_revision_id: wrev, budget_limit_credits: 100 } }),
      http(service, 'GET', `/v1/projects/${project_id}/runs`, { token: stranger.session }),
      http(service, 'GET', '/v1/runs/run_doesnotexist', { token: owner.session }),
    ];
    for (const response of await Promise.all(calls)) {
      expect(response.status).toBe(404);
      expect(response.body.code).toBe('NOT_FOUND');
    }
  });
});
