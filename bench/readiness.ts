// Benchmark: a probe storm on readiness. autocannon (200 connections, as bench/api.ts) on `GET /v1/health` (database,
// Temporal and worker probes, the result shared for up to a second: api/readiness.ts) and `GET /v1/health/live`,
// against the authenticated project read of the same server in the same run (the reference). The API runs in its own
// process (bench/api.ts's server, embedded PGlite) with a real Temporal dev server behind it; no worker polls its task
// queue, so readiness answers 503 "degraded" after every probe ran, which is what is measured. The aim:
// health at least 50% of the project read's req/s, p99 under 50 ms. Not a timed test.
// Run: node_modules/.bin/node bench/readiness.ts   (BENCH_API_SECONDS the seconds per target)
import { spawn, type ChildProcess } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { findTemporalCli, startDevServer } from '../runtime/temporal.ts';
import { printGoals } from './goals.ts';

export const BENCH_CONNECTIONS = 200;
export const BENCH_SECONDS = Number(process.env.BENCH_API_SECONDS) || 5;
/** The aim: readiness at least this share of the project read's req/s… */
export const HEALTH_RATIO_MIN = 0.5;
/** …with a p99 under this. */
export const HEALTH_P99_MAX_MS = 50;

type Served = { port: number; token: string; paths: Record<string, string> };
type Figure = {
  target: string;
  requests_per_second: number;
  p50_ms: number;
  p99_ms: number;
  timeouts: number;
  errors: number;
  statuses: Record<string, number>;
};

function startApi(temporal_address: string): Promise<{ child: ChildProcess; served: Served }> {
  const script = fileURLToPath(new URL('./api.ts', import.meta.url));
  const child = spawn(process.execPath, [script, 'serve', 'pglite'], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, BENCH_TEMPORAL_ADDRESS: temporal_address },
  });
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

async function load(target: string, port: number, path: string, token: string): Promise<Figure> {
  const url = `http://127.0.0.1:${port}${path}`;
  const headers = token ? { authorization: `Bearer ${token}` } : undefined;
  await autocannon({ url, headers, connections: 20, duration: 1, timeout: 10 });
  const result = await autocannon({ url, headers, connections: BENCH_CONNECTIONS, duration: BENCH_SECONDS, timeout: 10 });
  const statuses = Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([status, stat]) => [status, stat.count]));
  return {
    target,
    requests_per_second: result.requests.average,
    p50_ms: result.latency.p50,
    p99_ms: result.latency.p99,
    timeouts: result.timeouts,
    errors: result.errors,
    statuses,
  };
}

function print(figures: Figure[], reference: Figure): void {
  process.stdout.write(
    `${'target'.padEnd(36)} ${'req/s'.padStart(8)} ${'vs read'.padStart(8)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)} ${'timeouts'.padStart(8)}  statuses\n`,
  );
  for (const f of figures) {
    const ratio = `${((f.requests_per_second / reference.requests_per_second) * 100).toFixed(1)}%`;
    process.stdout.write(
      `${f.target.padEnd(36)} ${f.requests_per_second.toFixed(0).padStart(8)} ${ratio.padStart(8)} ${String(f.p50_ms).padStart(7)} ${String(f.p99_ms).padStart(7)} ${String(f.timeouts).padStart(8)}  ${JSON.stringify(f.statuses)}\n`,
    );
  }
}

async function main(): Promise<void> {
  const cli = await findTemporalCli({ build: false });
  if (!cli) {
    process.stdout.write('no Temporal CLI in the cache (npm start fetches it): readiness is not measured\n');
    return;
  }
  const temporal = await startDevServer({ cli, ui_port: null });
  const { child, served } = await startApi(temporal.address);
  try {
    const read = await load('GET project (reference)', served.port, served.paths['GET project']!, served.token);
    const health = await load('GET /v1/health (readiness)', served.port, '/v1/health', '');
    const live = await load('GET /v1/health/live (liveness)', served.port, '/v1/health/live', '');
    process.stdout.write(
      `autocannon: ${BENCH_CONNECTIONS} connections, ${BENCH_SECONDS} s per target, API in its own process (PGlite), Temporal dev server; load average ${loadavg()
        .map((n) => n.toFixed(2))
        .join(' ')}\n`,
    );
    print([read, health, live], read);
    const ratio = health.requests_per_second / read.requests_per_second;
    const meets = ratio >= HEALTH_RATIO_MIN && health.p99_ms < HEALTH_P99_MAX_MS;
    process.stdout.write(
      `readiness vs project read: ${(ratio * 100).toFixed(1)}% of its req/s, p99 ${health.p99_ms} ms (aim: ≥ ${HEALTH_RATIO_MIN * 100}%, p99 < ${HEALTH_P99_MAX_MS} ms): ${meets ? 'met' : 'NOT met'}\n`,
    );
    printGoals([
      {
        goal: `readiness ≥ ${HEALTH_RATIO_MIN * 100}% of the project read's req/s at ${BENCH_CONNECTIONS} connections, p99 < ${HEALTH_P99_MAX_MS} ms`,
        figure: `${(ratio * 100).toFixed(1)}%, p99 ${health.p99_ms} ms`,
        met: meets,
      },
    ]);
    process.stdout.write(
      `\nJSON ${JSON.stringify({ connections: BENCH_CONNECTIONS, seconds: BENCH_SECONDS, load_average: loadavg(), figures: [read, health, live], health_ratio: ratio })}\n`,
    );
  } finally {
    await new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
    await temporal.stop();
  }
}

await main();
