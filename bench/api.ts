// Benchmark: the API's read path under load. autocannon (200 connections) against the real Koa app on a loopback port,
// in its own process, on PostgreSQL (a database of its own, dropped afterwards) and on the embedded PGlite: an
// authenticated GET of a project and of each pollable resource (intake draft, review, run, authoring session,
// purchase), and a public read. The
// reference is a Koa hello-world measured in the same run; the ratios are req/s against it. Not a timed test.
// Run: node_modules/.bin/node bench/api.ts   (BENCH_POSTGRES_URL overrides postgres://postgres@127.0.0.1:5432/postgres;
// BENCH_API_SECONDS the seconds per target, BENCH_API_DATABASES=pglite or postgresql to run one)
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, Connection } from '@temporalio/client';
import autocannon from 'autocannon';
import Koa from 'koa';
import pg from 'pg';
import pino from 'pino';
import { printGoals } from './goals.ts';
import { encryptedDataConverter } from '../integrations/temporal/codec.ts';

export const BENCH_CONNECTIONS = 200;
export const BENCH_SECONDS = Number(process.env.BENCH_API_SECONDS) || 5;
/** autocannon's per-request timeout: a request slower than this counts as timed out. */
export const BENCH_TIMEOUT_SECONDS = 10;

type Served = { port: number; token: string; paths: Record<string, string> };

// --- the child: one server ------------------------------------------------------------------------------------------

async function serveHello(): Promise<Served> {
  const app = new Koa();
  app.use((ctx) => {
    ctx.body = { hello: 'world' };
  });
  const server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, token: '', paths: { hello: '/' } };
}

async function serveApi(database_url: string | null): Promise<Served> {
  const { loadConfig } = await import('../runtime/config.ts');
  const { openDatabase } = await import('../store/db.ts');
  const { createApp } = await import('../api/app.ts');
  const { createApiToken } = await import('../store/accounts/accounts.ts');
  const { seedPollables } = await import('../test/support/pollables.ts');
  const config = loadConfig({
    PORT: '0',
    LOG_LEVEL: 'info',
    // the purchase read is a billing endpoint; reading one needs no payment provider
    SERVICE_BILLING_ENABLED: 'true',
    SERVICE_MASTER_KEY: randomBytes(32).toString('base64'),
    CRUCIBLE_SESSION_SECRET: randomBytes(32).toString('base64'),
    ...(database_url ? { DATABASE_URL: database_url } : {}),
  });
  const db = await openDatabase({ database_url, pglite_dir: 'memory://' });
  await db.migrate();
  // The service logs one line per request: it is written (to /dev/null) so its cost is measured too.
  const logger = pino({ level: 'info' }, pino.destination({ dest: '/dev/null', sync: false }));
  const world = JSON.parse(readFileSync(new URL('../samples/worlds/gp_triage_digital_front_door.json', import.meta.url), 'utf8'));
  // The authoring session waits on a first checkpoint of a checkpoint's size: the sample world and three questions.
  const questions = ['arrival_rate', 'mean_service', 'servers'].map((slot, index) => ({
    id: `q${index + 1}`,
    slot,
    text: `What is the ${slot}?`,
    unit: 'per_hour',
  }));
  const checkpoint = {
    number: 1,
    reason: 'start',
    world,
    validation: { valid: false, problems: [] },
    smoke_run: null,
    questions,
    next_steps: [],
    ai: { cap_reached: false },
    changes_since_previous: [],
  };
  const seeded = await db.transaction(async (tx) => {
    const ids = await seedPollables(tx, { label: 'bench', world, checkpoint: checkpoint as never });
    const { secret } = await createApiToken(tx, { user_id: ids.user, org_id: ids.org, name: 'bench', scopes: ['read', 'write', 'run'] });
    return { ...ids, secret };
  });
  // BENCH_TEMPORAL_ADDRESS (bench/readiness.ts): readiness probes a real Temporal, as the service's API process does.
  const temporal_address = process.env.BENCH_TEMPORAL_ADDRESS;
  const temporal = temporal_address
    ? {
        client: new Client({ connection: Connection.lazy({ address: temporal_address }), dataConverter: encryptedDataConverter(config.master_key) }),
        task_queue: config.temporal_task_queue,
        namespace: config.temporal_namespace,
      }
    : null;
  const { app } = createApp({ config, db, logger, temporal });
  const server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    token: seeded.secret,
    paths: {
      'public /v1/models': '/v1/models',
      'GET project': `/v1/projects/${seeded.project}`,
      'GET intake draft': `/v1/intake-drafts/${seeded.draft}`,
      'GET review': `/v1/reviews/${seeded.review}`,
      'GET run': `/v1/runs/${seeded.run}`,
      'GET authoring session': `/v1/authoring-sessions/${seeded.session}`,
      'GET purchase': `/v1/billing/purchases/${seeded.intent}`,
    },
  };
}

// --- the parent: load, measure, print ------------------------------------------------------------------------------

type Figure = { target: string; requests_per_second: number; p50_ms: number; p99_ms: number; timeouts: number; errors: number; non_2xx: number };

function startChild(args: string[]): Promise<{ child: ChildProcess; served: Served }> {
  const child = spawn(process.execPath, [new URL(import.meta.url).pathname, 'serve', ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk) => {
      out += chunk.toString();
      const line = out.split('\n').find((l) => l.startsWith('SERVED '));
      if (line) resolve({ child, served: JSON.parse(line.slice(7)) });
    });
    child.once('exit', (code) => reject(new Error(`bench server exited with ${code}: ${out}`)));
  });
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  await new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

async function load(target: string, port: number, path: string, token: string): Promise<Figure> {
  const url = `http://127.0.0.1:${port}${path}`;
  const headers = token ? { authorization: `Bearer ${token}` } : undefined;
  // A short warm-up (JIT, pool connections, caches), then the measured run.
  await autocannon({ url, headers, connections: 20, duration: 1, timeout: BENCH_TIMEOUT_SECONDS });
  const result = await autocannon({ url, headers, connections: BENCH_CONNECTIONS, duration: BENCH_SECONDS, timeout: BENCH_TIMEOUT_SECONDS });
  return {
    target,
    requests_per_second: result.requests.average,
    p50_ms: result.latency.p50,
    p99_ms: result.latency.p99,
    timeouts: result.timeouts,
    errors: result.errors,
    non_2xx: result.non2xx,
  };
}

async function postgresDatabase(): Promise<{ url: string; drop(): Promise<void> } | null> {
  const base = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const name = `crucible_bench_api_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: base });
  try {
    await admin.connect();
    await admin.query(`create database ${name}`);
  } catch (error) {
    process.stdout.write(`PostgreSQL unavailable at ${base} (${(error as Error).message}); skipping the PostgreSQL figures\n`);
    return null;
  } finally {
    await admin.end().catch(() => {});
  }
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: base });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}

function print(figures: Figure[], reference: Figure): void {
  const rows = figures.map((f) => ({
    ...f,
    ratio: f.requests_per_second / reference.requests_per_second,
  }));
  process.stdout.write(
    `${'target'.padEnd(34)} ${'req/s'.padStart(8)} ${'vs hello'.padStart(8)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)} ${'timeouts'.padStart(8)} ${'errors'.padStart(6)} ${'non-2xx'.padStart(7)}\n`,
  );
  for (const r of rows) {
    process.stdout.write(
      `${r.target.padEnd(34)} ${r.requests_per_second.toFixed(0).padStart(8)} ${`${(r.ratio * 100).toFixed(1)}%`.padStart(8)} ${String(r.p50_ms).padStart(7)} ${String(r.p99_ms).padStart(7)} ${String(r.timeouts).padStart(8)} ${String(r.errors).padStart(6)} ${String(r.non_2xx).padStart(7)}\n`,
    );
  }
}

async function main(): Promise<void> {
  if (process.argv[2] === 'serve') {
    const kind = process.argv[3];
    const served = kind === 'hello' ? await serveHello() : await serveApi(kind === 'postgresql' ? process.argv[4]! : null);
    process.stdout.write(`SERVED ${JSON.stringify(served)}\n`);
    return;
  }
  const wanted = (process.env.BENCH_API_DATABASES ?? 'postgresql,pglite').split(',');
  process.stdout.write(`autocannon: ${BENCH_CONNECTIONS} connections, ${BENCH_SECONDS} s per target, server in its own process\n`);
  const hello = await startChild(['hello']);
  const reference = await load('Koa hello-world (reference)', hello.served.port, '/', '');
  await stopChild(hello.child);
  const figures: Figure[] = [reference];
  for (const kind of wanted) {
    const database = kind === 'postgresql' ? await postgresDatabase() : null;
    if (kind === 'postgresql' && !database) continue;
    const api = await startChild(kind === 'postgresql' ? ['postgresql', database!.url] : ['pglite']);
    try {
      for (const [target, path] of Object.entries(api.served.paths)) {
        figures.push(await load(`${kind}: ${target}`, api.served.port, path, target.startsWith('public') ? '' : api.served.token));
      }
    } finally {
      await stopChild(api.child);
      await database?.drop();
    }
  }
  print(figures, reference);
  // The API-only process's goals; the service as users run it is bench/service's.
  printGoals(
    figures.slice(1).map((f) => {
      const share = f.requests_per_second / reference.requests_per_second;
      const postgresql = f.target.startsWith('postgresql');
      const clean = f.timeouts === 0 && f.errors === 0 && f.non_2xx === 0;
      return postgresql
        ? {
            goal: `API process, ${f.target} ≥ 30% of hello-world, p99 < 50 ms`,
            figure: `${(share * 100).toFixed(1)}%, p99 ${f.p99_ms} ms`,
            met: clean && share >= 0.3 && f.p99_ms < 50,
          }
        : {
            goal: `API process, ${f.target} ≥ 2,000 req/s, no timeouts`,
            figure: `${f.requests_per_second.toFixed(0)} req/s, ${f.timeouts} timeouts`,
            met: clean && f.requests_per_second >= 2000,
          };
    }),
  );
  process.stdout.write(`\nJSON ${JSON.stringify({ connections: BENCH_CONNECTIONS, seconds: BENCH_SECONDS, figures })}\n`);
}

await main();
