// Benchmark: one run over more workers (docs/runs.md, How a run uses the workers). A real Temporal Server on PostgreSQL
// (runtime/temporalServer.ts, as the topology test runs it), one `crucible-server api` and 1, then 2
// `crucible-server worker` processes of one pool thread each (each pinned to a core of its own with taskset, so its pool
// has one thread), all on a fresh database of the local PostgreSQL server. The same large run (an M/M/5 clinic, 1,000
// replications of two variants, its horizon set so the estimate is BENCH_SCALE_OUT_EVENTS events) goes from POST
// /v1/runs to `succeeded` on each, then two such runs at once. Prints wall time, events/s, the speed-up of 2 workers over
// 1, and each run's results digest (stored replications and trace, which must be identical for the same seed), with the
// load average beside each figure. Not a timed test.
// Run: node_modules/.bin/node bench/scale-out.ts
//   BENCH_SCALE_OUT_EVENTS  events per run (default 300000000)
//   BENCH_POSTGRES_URL      the PostgreSQL server (default postgres://postgres@127.0.0.1:5432/postgres)
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { freePort } from '../runtime/temporal.ts';
import { findTemporalServer, startTemporalServer, temporalDatabases } from '../runtime/temporalServer.ts';
import { queueWorld } from '../test/support/worlds.ts';
import { type Goal, loadLine, printGoals } from './goals.ts';
import { CLI, call, createDatabase, type Json, operator, type Proc, startProcess } from './service.ts';

export const SCALE_OUT_EVENTS = Number(process.env.BENCH_SCALE_OUT_EVENTS) || 300_000_000;
/** The goal: a run on 2 workers at least this many times as fast as on 1. */
export const GOAL_SPEED_UP = 1.7;

type Figure = { workers: number; runs: number; wall_ms: number; events: number; digests: string[]; load: string };

/** The stored replications and trace of a run, as the database holds them. */
async function digest(database_url: string, run_id: string): Promise<string> {
  const client = new pg.Client({ connectionString: database_url });
  await client.connect();
  try {
    const replications = await client.query(
      'select variant_id, replication_index, result::text as result from run_replications where run_id = $1 order by replication_index, variant_id',
      [run_id],
    );
    const chunks = await client.query('select variant_order, chunk, events from run_event_chunks where run_id = $1 order by variant_order, chunk', [run_id]);
    return createHash('sha256')
      .update(JSON.stringify([replications.rows, chunks.rows]))
      .digest('hex');
  } finally {
    await client.end();
  }
}

/** `count` runs of the world started at once; the clock runs from the first POST until the last one succeeded. */
async function measure(base: string, token: string, database_url: string, world_revision_id: string, budget: number, workers: number, count: number) {
  const started = performance.now();
  const ids = await Promise.all(
    Array.from(
      { length: count },
      async () => (await call(base, 'POST', '/v1/runs', token, { world_revision_id, budget_limit_credits: budget })).run_id as string,
    ),
  );
  const runs = await Promise.all(
    ids.map(async (run_id) => {
      let run: Json = { status: 'queued' };
      while (run.status === 'queued' || run.status === 'running') run = await call(base, 'GET', `/v1/runs/${run_id}?wait=30`, token);
      if (run.status !== 'succeeded') throw new Error(`run ${run_id} ended ${run.status}`);
      return run;
    }),
  );
  const wall_ms = performance.now() - started;
  const figure: Figure = {
    workers,
    runs: count,
    wall_ms,
    events: runs.reduce((sum, run) => sum + Number(run.events_simulated), 0),
    digests: await Promise.all(ids.map((run_id) => digest(database_url, run_id))),
    load: loadLine(),
  };
  process.stdout.write(
    `${workers} worker(s), ${count} run(s) at once: ${(wall_ms / 1000).toFixed(1)} s, ${(((figure.events / wall_ms) * 1000) / 1e6).toFixed(2)} M events/s, digests ${figure.digests.map((d) => d.slice(0, 12)).join(' ')} (${figure.load})\n`,
  );
  return figure;
}

async function main(): Promise<void> {
  const tools = await findTemporalServer({ build: false });
  if (!tools) throw new Error('no temporal-server in the cache (`crucible-server temporal-server` builds it with Go once)');
  if (availableParallelism() < 2) process.stdout.write('fewer than 2 cores: both workers share one, the speed-up cannot show\n');
  process.stdout.write(`${loadLine()} at the start\n`);
  const database = await createDatabase();
  const prefix = `crucible_bench_${randomBytes(4).toString('hex')}_temporal`;
  const databases = temporalDatabases(database.url, prefix);
  const dir = mkdtempSync(join(tmpdir(), 'crucible-bench-scale-out-'));
  const processes: Proc[] = [];
  const temporal = await startTemporalServer({ tools, databases, dir: join(dir, 'temporal') });
  try {
    const env = {
      DATABASE_URL: database.url,
      TEMPORAL_ADDRESS: temporal.address,
      CRUCIBLE_DATA_DIR: join(dir, 'data'),
      CRUCIBLE_TASK_QUEUE: `bench-${randomBytes(4).toString('hex')}`,
      SERVICE_MASTER_KEY: randomBytes(32).toString('base64'),
      CRUCIBLE_SESSION_SECRET: randomBytes(32).toString('base64'),
      PORT: String(await freePort()),
      LOG_LEVEL: 'warn',
    };
    const migrate = startProcess([CLI, 'migrate'], env);
    await migrate.waitFor(/applied/);
    await migrate.stop();
    const owner = await operator(env, ['bootstrap', '--email', `bench-${randomBytes(3).toString('hex')}@example.org`, '--org', 'Bench']);
    await operator(env, ['grant-credits', '--org', owner.org_id, '--credits', '1000000000', '--reason', 'bench grant']);
    processes.push(startProcess([CLI, 'api'], env));
    const base = (await processes[0]!.waitFor(/API listening on (http:\/\/\S+)/))[1]!;
    const token = (await call(base, 'POST', '/v1/auth/sessions', null, { email: owner.email, password: owner.password })).token as string;
    const project = await call(base, 'POST', '/v1/projects', token, { title: 'Scale-out', org_id: owner.org_id });

    // The horizon that makes the estimate SCALE_OUT_EVENTS events: estimated once at a known horizon, then scaled.
    const shape = { servers: 5, arrivals_per_minute: 4, mean_service_minutes: 1, replications: 1000, warm_up_minutes: 100 };
    const save = async (horizon_minutes: number) => {
      const saved = await call(base, 'POST', `/v1/projects/${project.id}/worlds`, token, queueWorld({ ...shape, horizon_minutes }));
      const quote = await call(base, 'POST', '/v1/runs/estimate', token, { world_revision_id: saved.world_revision_id, budget_limit_credits: 1_000_000 });
      return { world_revision_id: saved.world_revision_id as string, events: Number(quote.events_estimate), credits: Number(quote.credits_estimate) };
    };
    const probe = await save(1_000);
    const world = await save(Math.max(1_000, Math.round((1_000 * SCALE_OUT_EVENTS) / probe.events)));
    process.stdout.write(`the run: M/M/5, 1,000 replications × 2 variants, about ${(world.events / 1e6).toFixed(0)} M events (the estimate)\n`);

    const worker = async (core: number) => {
      const proc = startProcess([CLI, 'worker'], env, ['taskset', '-c', String(core % availableParallelism())]);
      processes.push(proc);
      await proc.waitFor(/worker polling task queue/);
    };
    const figures: Figure[] = [];
    const budget = world.credits * 2;
    await worker(0);
    figures.push(await measure(base, token, database.url, world.world_revision_id, budget, 1, 1));
    figures.push(await measure(base, token, database.url, world.world_revision_id, budget, 1, 2));
    await worker(1);
    figures.push(await measure(base, token, database.url, world.world_revision_id, budget, 2, 1));
    figures.push(await measure(base, token, database.url, world.world_revision_id, budget, 2, 2));

    const identical = new Set(figures.flatMap((figure) => figure.digests)).size === 1;
    process.stdout.write(`results digests identical across every run: ${identical ? 'yes' : 'NO'}\n`);
    const speedUp = (runs: number) =>
      figures.find((f) => f.workers === 1 && f.runs === runs)!.wall_ms / figures.find((f) => f.workers === 2 && f.runs === runs)!.wall_ms;
    const goals: Goal[] = [1, 2].map((runs) => ({
      goal: `${runs === 1 ? 'one run' : 'two runs at once'}: 2 workers (one pool thread each) ≥ ${GOAL_SPEED_UP}× 1 worker, results identical`,
      figure: `${speedUp(runs).toFixed(2)}× (${(figures.find((f) => f.workers === 1 && f.runs === runs)!.wall_ms / 1000).toFixed(1)} s → ${(figures.find((f) => f.workers === 2 && f.runs === runs)!.wall_ms / 1000).toFixed(1)} s)${identical ? '' : ', results DIFFER'}`,
      met: identical && speedUp(runs) >= GOAL_SPEED_UP,
    }));
    printGoals(goals);
    process.stdout.write(`\nJSON ${JSON.stringify({ events: world.events, figures })}\n`);
    if (!identical) process.exitCode = 1;
  } finally {
    for (const proc of processes.reverse()) await proc.stop();
    await temporal.stop();
    const admin = new pg.Client({ connectionString: process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' });
    await admin.connect();
    for (const name of [databases.database, databases.visibility_database]) await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await main();
  process.exit(process.exitCode ?? 0);
}
