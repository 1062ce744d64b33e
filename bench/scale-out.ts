// Benchmark: does a run get faster with more workers? The production topology on this machine: a real Temporal Server
// on PostgreSQL (`crucible-server temporal-server`), one `crucible-server api` (no worker), and `crucible-server worker`
// processes whose compute pools have one thread each (CRUCIBLE_COMPUTE_THREADS=1). The same large run (the GP triage
// sample scaled up, a fixed seed) runs with one worker, then with two; then two such runs at once with one worker and
// with two. Prints each run's wall time (POST /v1/runs to `succeeded`), events/s, the speed-up of two workers over one,
// and a digest of each run's results (every figure but ids and times): the digests must be identical, since a run's
// results do not depend on where its replications ran. Not a timed test.
// Run: node_modules/.bin/node bench/scale-out.ts
//   BENCH_SCALE_OUT_FACTOR  the work of the run, in multiples of the sample's replications (default 200: REPLICATIONS_MAX
//   replications over a longer horizon; bench/scaling.ts says how a factor is spread)
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from '../runtime/temporal.ts';
import { findTemporalServer, temporalDatabases } from '../runtime/temporalServer.ts';
import { type Goal, loadLine, printGoals } from './goals.ts';
import { scaledSample } from './scaledSample.ts';
import { CLI, call, createDatabase, type Json, operator, type Proc, startProcess } from './service.ts';

/** The goal: one run on two workers of one pool thread each at least this many times as fast as on one. */
export const GOAL_TWO_WORKERS_SPEED_UP = 1.7;
const FACTOR = Number(process.env.BENCH_SCALE_OUT_FACTOR) || 200;
const RUN_TIMEOUT_MS = 30 * 60_000;

type Measured = { label: string; workers: number; runs: number; wall_ms: number; events: number; digests: string[] };

/** The results without what differs between two runs of the same world: ids and times. */
function comparable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(comparable);
  if (value === null || typeof value !== 'object') return value;
  const kept: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (key === 'id' || key.endsWith('_id') || key.endsWith('_at') || key.endsWith('_ms')) continue;
    kept[key] = comparable(item);
  }
  return kept;
}

export function resultsDigest(results: Json): string {
  return createHash('sha256')
    .update(JSON.stringify(comparable(results)))
    .digest('hex')
    .slice(0, 16);
}

/** `crucible-server temporal-server` with its two databases on the local PostgreSQL; resolves with its address. */
async function startTemporalServer(database_url: string, cleanups: Array<() => Promise<void>>): Promise<string> {
  const tools = await findTemporalServer({ build: true, say: (line) => process.stderr.write(`${line}\n`) });
  if (!tools) throw new Error('temporal-server is not built and Go is not available to build it (runtime/temporalServer.ts)');
  const prefix = `crucible_bench_${randomBytes(4).toString('hex')}_temporal`;
  const databases = temporalDatabases(database_url, prefix);
  const dir = mkdtempSync(join(tmpdir(), 'crucible-bench-scale-out-'));
  const port = await freePort();
  const server = startProcess([CLI, 'temporal-server', '--database-url', database_url, '--prefix', prefix, '--port', String(port), '--dir', dir], {});
  cleanups.push(async () => {
    await server.stop();
    const admin = new pg.Client({ connectionString: database_url });
    await admin.connect();
    for (const name of [databases.database, databases.visibility_database]) await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
    rmSync(dir, { recursive: true, force: true });
  });
  await server.waitFor(/Start API and worker processes/);
  return `127.0.0.1:${port}`;
}

async function runOnce(base: string, token: string, body: Json): Promise<{ events: number; digest: string }> {
  let run = await call(base, 'POST', '/v1/runs', token, body);
  const deadline = Date.now() + RUN_TIMEOUT_MS;
  while ((run.status === 'queued' || run.status === 'running') && Date.now() < deadline) run = await call(base, 'GET', `/v1/runs/${run.run_id}?wait=30`, token);
  if (run.status !== 'succeeded') throw new Error(`the run ended ${run.status}: ${JSON.stringify(run).slice(0, 400)}`);
  const results = await call(base, 'GET', `/v1/runs/${run.run_id}/results`, token);
  return { events: Number(run.events_simulated), digest: resultsDigest(results) };
}

/** `runs` copies of the run at once, timed from the first POST to the last `succeeded`. */
async function measure(label: string, workers: number, runs: number, base: string, token: string, body: Json): Promise<Measured> {
  const started = performance.now();
  const done = await Promise.all(Array.from({ length: runs }, () => runOnce(base, token, body)));
  const wall_ms = performance.now() - started;
  const figure = { label, workers, runs, wall_ms, events: done.reduce((sum, d) => sum + d.events, 0), digests: done.map((d) => d.digest) };
  process.stderr.write(`  ${label}: ${(wall_ms / 1000).toFixed(1)} s (${loadLine()})\n`);
  return figure;
}

async function main(): Promise<void> {
  const cleanups: Array<() => Promise<void>> = [];
  const processes: Proc[] = [];
  try {
    const database = await createDatabase();
    cleanups.push(database.drop);
    const temporal_address = await startTemporalServer(database.url, cleanups);
    const data_dir = mkdtempSync(join(tmpdir(), 'crucible-bench-scale-out-data-'));
    cleanups.push(async () => rmSync(data_dir, { recursive: true, force: true }));
    const env = {
      DATABASE_URL: database.url,
      TEMPORAL_ADDRESS: temporal_address,
      CRUCIBLE_DATA_DIR: data_dir,
      CRUCIBLE_TASK_QUEUE: `bench-${randomBytes(4).toString('hex')}`,
      SERVICE_MASTER_KEY: randomBytes(32).toString('base64'),
      CRUCIBLE_SESSION_SECRET: randomBytes(32).toString('base64'),
      PORT: String(await freePort()),
      LOG_LEVEL: 'warn',
    };
    const owner = await operator(env, ['bootstrap', '--email', `bench-${randomBytes(3).toString('hex')}@example.org`, '--org', 'Bench']);
    await operator(env, ['grant-credits', '--org', owner.org_id, '--credits', '1000000000', '--reason', 'bench grant']);
    const api = startProcess([CLI, 'api'], env);
    processes.push(api);
    const base = (await api.waitFor(/API listening on (http:\/\/\S+)/))[1]!;
    const worker = () => {
      const proc = startProcess([CLI, 'worker'], { ...env, CRUCIBLE_COMPUTE_THREADS: '1', LOG_LEVEL: 'info' });
      processes.push(proc);
      return proc.waitFor(/worker polling task queue/);
    };
    await worker();

    const token = (await call(base, 'POST', '/v1/auth/sessions', null, { email: owner.email, password: owner.password })).token as string;
    const project = await call(base, 'POST', '/v1/projects', token, { title: 'Scale-out', org_id: owner.org_id });
    const { world, how } = scaledSample(FACTOR);
    const saved = await call(base, 'POST', `/v1/projects/${project.id}/worlds`, token, world);
    const quote = await call(base, 'POST', '/v1/runs/estimate', token, { world_revision_id: saved.world_revision_id, budget_limit_credits: 1_000_000_000 });
    const body = { world_revision_id: saved.world_revision_id, budget_limit_credits: Number(quote.credits_estimate) * 2 };
    process.stderr.write(`the run: GP triage ×${FACTOR} (${how}), about ${Number(quote.events_estimate ?? 0).toLocaleString('en')} events\n`);

    // warm-up (not counted): the worker's pool thread, its compile cache, the database's plans
    const small = await call(base, 'POST', `/v1/projects/${project.id}/worlds`, token, scaledSample(1).world);
    const warmUp = () => runOnce(base, token, { world_revision_id: small.world_revision_id, budget_limit_credits: 1_000_000 });
    await warmUp();
    const figures: Measured[] = [];
    figures.push(await measure('one run, 1 worker', 1, 1, base, token, body));
    figures.push(await measure('two runs at once, 1 worker', 1, 2, base, token, body));
    await worker();
    await Promise.all([warmUp(), warmUp()]); // the new worker's pool thread too
    figures.push(await measure('one run, 2 workers', 2, 1, base, token, body));
    figures.push(await measure('two runs at once, 2 workers', 2, 2, base, token, body));

    const one = figures[0]!;
    process.stdout.write('\nscale-out: the same run on workers of one pool thread each (real Temporal Server on PostgreSQL)\n');
    for (const f of figures) {
      // against the same number of runs on one worker
      const reference = figures.find((r) => r.workers === 1 && r.runs === f.runs)!;
      const speed_up = reference.wall_ms / f.wall_ms;
      process.stdout.write(
        `  ${f.label.padEnd(28)} ${(f.wall_ms / 1000).toFixed(1).padStart(7)} s  ${Math.round(f.events / (f.wall_ms / 1000))
          .toLocaleString('en')
          .padStart(12)} events/s  speed-up ${speed_up.toFixed(2)}×  results ${f.digests.join(' ')}\n`,
      );
    }
    const digests = new Set(figures.flatMap((f) => f.digests));
    const single = one.wall_ms / figures[2]!.wall_ms;
    const concurrent = figures[1]!.wall_ms / figures[3]!.wall_ms;
    const goals: Goal[] = [
      { goal: `one run on 2 workers ≥ ${GOAL_TWO_WORKERS_SPEED_UP}× one worker`, figure: `${single.toFixed(2)}×`, met: single >= GOAL_TWO_WORKERS_SPEED_UP },
      { goal: 'two runs at once on 2 workers, against 1 worker (no goal: for the curve)', figure: `${concurrent.toFixed(2)}×`, met: null },
      {
        goal: 'results identical whatever the number of workers',
        figure: digests.size === 1 ? `one digest, ${[...digests][0]}` : `${digests.size} digests`,
        met: digests.size === 1,
      },
    ];
    printGoals(goals);
  } finally {
    for (const proc of processes.reverse()) await proc.stop();
    for (const cleanup of cleanups.reverse()) await cleanup().catch((error) => process.stderr.write(`cleanup: ${(error as Error).message}\n`));
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((error) => {
    process.stderr.write(`${(error as Error).stack ?? error}\n`);
    process.exit(1);
  });
}
