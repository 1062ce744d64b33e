// The production topology on one machine: a real Temporal Server (temporal-server built from
// go.temporal.io/server, its state in PostgreSQL, not the dev server's SQLite), two `crucible-server api` and two
// `crucible-server worker` processes on one PostgreSQL database. A world run, an intake draft and a concept review
// (offline provider, fake Europe PMC) go through it; one worker and one API process are killed with SIGKILL mid-run.
// Every job ends once and is charged once, and the API processes left (and the one restarted) answer. A run's shards
// spread over two workers, one killed mid-run: the run's results are those of the same run on one worker.
// PostgreSQL suite only.
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import type { WorldSpec } from '../../domain/contracts/worldSpec.ts';
import { freePort } from '../../runtime/temporal.ts';
import { temporalDatabases } from '../../runtime/temporalServer.ts';
import { type FakeEuropePmc, startFakeEuropePmc } from '../fakes/europepmc.ts';
import { eventually, freshPostgresDatabase } from '../support/harness.ts';
import { deploymentEnv, killed, killLaunched, launch, type Launched, stopped } from '../support/processes.ts';
import { fiveLiteratureRecords } from '../support/reviewFixtures.ts';

const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  killLaunched();
  for (const cleanup of cleanups.reverse()) await cleanup();
}, 60_000);

/** Replications per variant of the run killed mid-way: long enough to be caught running on a fast machine. */
const REPLICATIONS = 1000;
const TERMINAL = ['succeeded', 'failed', 'canceled', 'timed_out'];

type Api = { launched: Launched; url: string };

async function launchApi(env: NodeJS.ProcessEnv): Promise<Api> {
  const port = await freePort();
  const launched = launch(['runtime/cli.ts', 'api'], { ...env, PORT: String(port) });
  await eventually(async () => launched.output().includes('API listening on') || launched.child.exitCode !== null, 90_000, 'an API process');
  expect(launched.child.exitCode, launched.output()).toBeNull();
  return { launched, url: `http://127.0.0.1:${port}` };
}

async function launchWorker(env: NodeJS.ProcessEnv): Promise<Launched> {
  const worker = launch(['runtime/cli.ts', 'worker'], env);
  await eventually(async () => worker.output().includes('worker polling') || worker.child.exitCode !== null, 90_000, 'a worker process');
  expect(worker.child.exitCode, worker.output()).toBeNull();
  return worker;
}

async function call(api: Api, token: string, method: string, path: string, body?: unknown, key?: string): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (key) headers['idempotency-key'] = key;
  const response = await fetch(`${api.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

/** `crucible-server temporal-server`, as an operator starts it: Temporal's two databases on the suite's PostgreSQL server. */
async function temporalServerOnPostgres(database_url: string): Promise<string> {
  const prefix = `crucible_t_${randomBytes(6).toString('hex')}_temporal`;
  const databases = temporalDatabases(database_url, prefix);
  const dir = mkdtempSync(join(tmpdir(), 'crucible-topology-'));
  cleanups.push(async () => {
    const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
    for (const name of [databases.database, databases.visibility_database]) await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
    rmSync(dir, { recursive: true, force: true });
  });
  const port = await freePort();
  const server = launch(
    ['runtime/cli.ts', 'temporal-server', '--database-url', database_url, '--prefix', prefix, '--port', String(port), '--dir', dir],
    process.env,
  );
  cleanups.push(async () => void (await stopped(server.child)));
  // the first build of temporal-server with Go takes minutes; later runs reuse the cache
  await eventually(async () => server.output().includes('Start API and worker processes') || server.child.exitCode !== null, 600_000, 'temporal-server');
  expect(server.child.exitCode, server.output()).toBeNull();
  return `127.0.0.1:${port}`;
}

/** A fresh database and temporal-server on it, migrated, with one organization holding credits; `extra` joins the env. */
async function startDeployment(label: string, extra: NodeJS.ProcessEnv) {
  const database = (await freshPostgresDatabase())!;
  cleanups.push(database.drop);
  const temporal_address = await temporalServerOnPostgres(database.url);
  const env = { ...deploymentEnv(database.url, temporal_address, label), ...extra };
  const node = (args: string[]) => execFileSync(process.execPath, ['runtime/cli.ts', ...args], { env }).toString();
  expect(node(['migrate'])).toContain('applied');
  const email = `${label}@example.org`;
  const user = JSON.parse(node(['operator', 'bootstrap', '--email', email, '--org', label, '--json']));
  node(['operator', 'grant-credits', '--org', user.org_id, '--credits', '1000000', '--reason', `${label} test`]);
  return { database, env, email, user };
}

async function signedIn(api: Api, email: string, password: string): Promise<string> {
  const signIn = await fetch(`${api.url}/v1/auth/sessions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  return ((await signIn.json()) as { token: string }).token;
}

describe.runIf(process.env.DATABASE_URL)('the production topology: temporal-server on PostgreSQL, two APIs, two workers', () => {
  it('finishes a run, a draft and a review once each, charged once, through a worker and an API killed mid-run', async () => {
    const pmc: FakeEuropePmc = await startFakeEuropePmc(fiveLiteratureRecords());
    cleanups.push(() => pmc.close());
    const { env, user } = await startDeployment('topology', { CRUCIBLE_EUROPE_PMC_BASE_URL: pmc.base_url });

    const apis = [await launchApi(env), await launchApi(env)];
    // one worker first, so the run's replications are computed by the worker that will be killed
    const workers = [await launchWorker(env)];
    const token = await signedIn(apis[0]!, 'topology@example.org', user.password);
    const [first, second] = apis as [Api, Api];
    const available = async (api: Api) => (await call(api, token, 'GET', `/v1/orgs/${user.org_id}/credits`)).body.available_credits as number;

    const project = await call(first, token, 'POST', '/v1/projects', { title: 'Topology', org_id: user.org_id }, 'topology-project');
    expect(project.status).toBe(201);
    const project_id = project.body.id as string;

    // an intake draft, drafted before the crash: a model call held by a killed worker is retried only after the model
    // profile's start-to-close timeout (6 minutes; docs/deploy.md), too long for CI
    const extracted = await call(first, token, 'POST', '/v1/intakes/extract', {
      project_id,
      text: 'Problem: heart failure patients are readmitted within 30 days.\nOur solution: a remote monitoring app for nurses.\nIntended users: heart failure nurses.\nStage: idea.',
    });
    expect(extracted.status).toBe(201);
    const parsed = await call(
      first,
      token,
      'POST',
      `/v1/projects/${project_id}/intakes/parse`,
      { source_ids: [extracted.body.sources[0].id] },
      'topology-parse',
    );
    expect(parsed.status).toBe(202);

    const draft = await eventually(
      async () => {
        const read = await call(first, token, 'GET', `/v1/intake-drafts/${parsed.body.id}`);
        return TERMINAL.includes(read.body.status) ? read.body : null;
      },
      180_000,
      'the intake draft',
    );
    expect(draft.status).toBe('succeeded');

    // a long run, started through the API that will be killed
    const world = JSON.parse(readFileSync(new URL('../../samples/worlds/gp_triage_digital_front_door.json', import.meta.url), 'utf8')) as WorldSpec;
    world.replications = REPLICATIONS;
    const saved = await call(second, token, 'POST', `/v1/projects/${project_id}/worlds`, world);
    expect(saved.status).toBe(201);
    const quote = await call(second, token, 'POST', '/v1/runs/estimate', { world_revision_id: saved.body.world_revision_id, budget_limit_credits: 1_000_000 });
    expect(quote.body.runnable).toBe(true);
    const before = await available(first);
    const created = await call(
      second,
      token,
      'POST',
      '/v1/runs',
      { world_revision_id: saved.body.world_revision_id, budget_limit_credits: quote.body.credits_estimate * 2 },
      'topology-run',
    );
    expect(created.status).toBe(202);
    const run_id = created.body.run_id as string;

    // SIGKILL one worker and one API process once the run is computing
    const underway = await eventually(
      async () => {
        const read = await call(first, token, 'GET', `/v1/runs/${run_id}`);
        return (read.body.status === 'running' && read.body.replications_completed > 0) || TERMINAL.includes(read.body.status) ? read.body : null;
      },
      120_000,
      'the run to be under way',
    );
    expect(underway.status, 'the run ended before the crash: raise REPLICATIONS').toBe('running');
    workers.push(await launchWorker(env));
    await killed(workers[0]!.child);
    await killed(second.launched.child);

    // the review starts after the crash, on the processes left
    const confirmed = await call(first, token, 'POST', `/v1/projects/${project_id}/intakes`, { spec: draft.spec, draft_id: draft.id }, 'topology-confirm');
    expect(confirmed.status).toBe(201);
    const plan = await call(first, token, 'POST', `/v1/projects/${project_id}/evaluation-plans`, {}, 'topology-plan');
    expect(plan.status).toBe(201);
    expect(
      (await call(first, token, 'POST', `/v1/projects/${project_id}/evaluation-plans/${plan.body.id}/approve`, { scope: 'hosted_inference' })).status,
    ).toBe(200);
    const started = await call(first, token, 'POST', `/v1/projects/${project_id}/reviews`, { plan_id: plan.body.id }, 'topology-review');
    expect(started.status).toBe(201);

    const run = await eventually(
      async () => {
        const read = await call(first, token, 'GET', `/v1/runs/${run_id}`);
        return TERMINAL.includes(read.body.status) && read.body.settled_at ? read.body : null;
      },
      300_000,
      'the run to end and settle',
    );
    expect(run.status).toBe('succeeded');
    expect(run.replications_completed).toBe(REPLICATIONS * world.variants.length);
    const review = await eventually(
      async () => {
        const read = await call(first, token, 'GET', `/v1/reviews/${started.body.id}`);
        return TERMINAL.includes(read.body.status) ? read.body : null;
      },
      180_000,
      'the review',
    );
    expect(review.status).toBe('succeeded');

    // charged once: one settlement per job in the ledger, and the balance moved by exactly what the jobs used
    const ledger = await call(first, token, 'GET', `/v1/orgs/${user.org_id}/ledger?limit=200`);
    const settlements = (subject_id: string) => ledger.body.data.filter((entry: any) => entry.kind === 'settlement' && entry.subject?.id === subject_id);
    expect(settlements(run_id)).toHaveLength(1);
    expect(settlements(started.body.id)).toHaveLength(1);
    expect(await available(first)).toBe(before - run.credits_used - review.credits_used);

    // the API left answers, and the one killed comes back on the same database and Temporal
    const restarted = await launchApi(env);
    for (const api of [first, restarted]) expect((await call(api, token, 'GET', `/v1/runs/${run_id}`)).body.status).toBe('succeeded');
    expect(await stopped(workers[1]!.child)).toBe(0);
    for (const api of [first, restarted]) expect(await stopped(api.launched.child)).toBe(0);
  }, 900_000);

  it("spreads a run's shards over both workers; a worker killed mid-run changes neither its results nor its charge", async () => {
    // Small shards, so the run has many for both workers to take: 1,000 replication indexes in shards of 10.
    const { database, env, email, user } = await startDeployment('shards', { LOG_LEVEL: 'info', CRUCIBLE_RUN_SHARD_REPLICATIONS: '10' });
    const api = await launchApi(env);
    const token = await signedIn(api, email, user.password);
    const project = await call(api, token, 'POST', '/v1/projects', { title: 'Shards', org_id: user.org_id }, 'shards-project');
    const world = JSON.parse(readFileSync(new URL('../../samples/worlds/gp_triage_digital_front_door.json', import.meta.url), 'utf8')) as WorldSpec;
    world.replications = REPLICATIONS;
    const saved = await call(api, token, 'POST', `/v1/projects/${project.body.id}/worlds`, world);
    expect(saved.status).toBe(201);
    const quote = await call(api, token, 'POST', '/v1/runs/estimate', { world_revision_id: saved.body.world_revision_id, budget_limit_credits: 1_000_000 });
    const startRun = async (key: string) => {
      const created = await call(
        api,
        token,
        'POST',
        '/v1/runs',
        { world_revision_id: saved.body.world_revision_id, budget_limit_credits: quote.body.credits_estimate * 2 },
        key,
      );
      expect(created.status).toBe(202);
      return created.body.run_id as string;
    };
    const ended = (run_id: string) =>
      eventually(
        async () => {
          const read = await call(api, token, 'GET', `/v1/runs/${run_id}`);
          return TERMINAL.includes(read.body.status) && read.body.settled_at ? read.body : null;
        },
        600_000,
        `run ${run_id} to end and settle`,
      );
    // The stored results and trace, as the database holds them.
    const results = async (run_id: string) => {
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      try {
        const replications = await client.query(
          'select variant_id, replication_index, result::text as result from run_replications where run_id = $1 order by replication_index, variant_id',
          [run_id],
        );
        const chunks = await client.query('select variant_order, chunk, events from run_event_chunks where run_id = $1 order by variant_order, chunk', [
          run_id,
        ]);
        return createHash('sha256')
          .update(JSON.stringify([replications.rows, chunks.rows]))
          .digest('hex');
      } finally {
        await client.end();
      }
    };
    const shardsEnded = (worker: Launched, run_id: string) =>
      worker
        .output()
        .split('\n')
        .filter((line) => line.includes('run shard ended') && line.includes(run_id)).length;

    // The reference: the same run on one worker.
    const workers = [await launchWorker(env)];
    const reference = await ended(await startRun('shards-reference'));
    expect(reference.status).toBe('succeeded');
    expect(shardsEnded(workers[0]!, reference.run_id)).toBe(REPLICATIONS / 10);

    workers.push(await launchWorker(env));
    const before = (await call(api, token, 'GET', `/v1/orgs/${user.org_id}/credits`)).body.available_credits as number;
    const run_id = await startRun('shards-two-workers');
    // Both workers have each ended a shard of the run: then one is killed while the run computes.
    await eventually(async () => shardsEnded(workers[0]!, run_id) > 0 && shardsEnded(workers[1]!, run_id) > 0, 300_000, 'a shard ended on each worker');
    const underway = await call(api, token, 'GET', `/v1/runs/${run_id}`);
    expect(underway.body.status, 'the run ended before the kill: raise REPLICATIONS').toBe('running');
    const onKilled = shardsEnded(workers[0]!, run_id);
    await killed(workers[0]!.child);

    const run = await ended(run_id);
    expect(run.status).toBe('succeeded');
    expect(run.replications_completed).toBe(REPLICATIONS * world.variants.length);
    expect(onKilled).toBeGreaterThan(0);
    expect(shardsEnded(workers[1]!, run_id)).toBeGreaterThan(0);
    // Identical to the one-worker run with the same seed, charged the same, once.
    expect(await results(run_id)).toBe(await results(reference.run_id));
    expect(run.events_simulated).toBe(reference.events_simulated);
    expect(run.credits_used).toBe(reference.credits_used);
    const ledger = await call(api, token, 'GET', `/v1/orgs/${user.org_id}/ledger?limit=200`);
    expect(ledger.body.data.filter((entry: any) => entry.kind === 'settlement' && entry.subject?.id === run_id)).toHaveLength(1);
    expect((await call(api, token, 'GET', `/v1/orgs/${user.org_id}/credits`)).body.available_credits).toBe(before - run.credits_used);
    expect(await stopped(workers[1]!.child)).toBe(0);
    expect(await stopped(api.launched.child)).toBe(0);
  }, 900_000);
});
