// Benchmark: does PDF reading stay off the API's event loop? `GET /v1/health` p50/p99 on the real API (its own process,
// embedded PGlite, bench/api.ts's server) while a 300-page text-layer PDF is extracted through
// `POST /v1/intakes/extract` back to back, beside the same figures when the API is idle (the reference, same run).
// The bench server runs without Temporal, so health answers 503 (temporal: not connected) after its database check:
// the latency of that answer is what is measured. Not a timed test.
// Run: node_modules/.bin/node bench/health.ts   (BENCH_HEALTH_SECONDS the seconds per phase)
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { PDF_PAGES_MAX } from '../domain/intake/sources.ts';
import { buildPdf, type PdfPage } from '../test/support/corpus.ts';
import { printGoals } from './goals.ts';

export const BENCH_HEALTH_PAGES = PDF_PAGES_MAX; // 300: the longest PDF the service reads
export const BENCH_HEALTH_LINES_PER_PAGE = 45;
/** Health pollers at once: a monitor and a few clients, not a load test. */
export const BENCH_HEALTH_CONNECTIONS = 10;
/** PDF reading stays off the API's event loop: health answers within this at p99 while a PDF is read. */
export const HEALTH_P99_GOAL_MS = 50;
export const BENCH_HEALTH_SECONDS = Number(process.env.BENCH_HEALTH_SECONDS) || 5;

type Served = { port: number; token: string; paths: Record<string, string> };
type Figure = { phase: string; requests_per_second: number; p50_ms: number; p99_ms: number; max_ms: number; timeouts: number };

function startApi(): Promise<{ child: ChildProcess; served: Served }> {
  const script = fileURLToPath(new URL('./api.ts', import.meta.url));
  const child = spawn(process.execPath, [script, 'serve', 'pglite'], { stdio: ['ignore', 'pipe', 'inherit'] });
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

async function health(port: number, phase: string): Promise<Figure> {
  const result = await autocannon({
    url: `http://127.0.0.1:${port}/v1/health`,
    connections: BENCH_HEALTH_CONNECTIONS,
    duration: BENCH_HEALTH_SECONDS,
    timeout: 10,
  });
  return {
    phase,
    requests_per_second: result.requests.average,
    p50_ms: result.latency.p50,
    p99_ms: result.latency.p99,
    max_ms: result.latency.max,
    timeouts: result.timeouts,
  };
}

function sentence(seed: number): string {
  const words = 'patients clinic referral triage nurse consultant pathway outcome waiting review practice audit evidence'.split(' ');
  let state = seed;
  const out: string[] = [];
  for (let index = 0; index < 14; index++) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    out.push(words[state % words.length]!);
  }
  return `${out.join(' ')} ${seed % 97}.`;
}

async function main(): Promise<void> {
  const pages: PdfPage[] = Array.from({ length: BENCH_HEALTH_PAGES }, (_, page) => ({
    kind: 'text',
    lines: Array.from({ length: BENCH_HEALTH_LINES_PER_PAGE }, (_, line) => sentence(page * 1000 + line + 1)),
  }));
  const pdf = await buildPdf(pages);
  const { child, served } = await startApi();
  try {
    const project_id = served.paths['GET project']!.split('/').pop()!;
    const extract = async (): Promise<number> => {
      const form = new FormData();
      form.append('project_id', project_id);
      form.append('files', new Blob([pdf as Uint8Array<ArrayBuffer>], { type: 'application/pdf' }), 'bench.pdf');
      const started = performance.now();
      const response = await fetch(`http://127.0.0.1:${served.port}/v1/intakes/extract`, {
        method: 'POST',
        headers: { authorization: `Bearer ${served.token}` },
        body: form,
      });
      const body = (await response.json()) as { sources?: Array<{ status: string }> };
      if (response.status !== 201 || body.sources?.[0]?.status !== 'processed')
        throw new Error(`extract answered ${response.status}: ${JSON.stringify(body).slice(0, 300)}`);
      return performance.now() - started;
    };
    // Warm: module loading, the pool's threads, the JIT, on both paths.
    await extract();
    await autocannon({ url: `http://127.0.0.1:${served.port}/v1/health`, connections: BENCH_HEALTH_CONNECTIONS, duration: 1 });

    const idle = await health(served.port, 'idle (reference)');
    // Extractions back to back for the whole measured phase.
    let extracting = true;
    const times: number[] = [];
    const loop = (async () => {
      while (extracting) times.push(await extract());
    })();
    const busy = await health(served.port, `during ${BENCH_HEALTH_PAGES}-page PDF extraction`);
    extracting = false;
    await loop;

    process.stdout.write(`GET /v1/health, ${BENCH_HEALTH_CONNECTIONS} connections, ${BENCH_HEALTH_SECONDS} s per phase, API in its own process (PGlite)\n`);
    process.stdout.write(
      `${'phase'.padEnd(40)} ${'req/s'.padStart(8)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)} ${'max ms'.padStart(7)} ${'timeouts'.padStart(8)}\n`,
    );
    for (const f of [idle, busy]) {
      process.stdout.write(
        `${f.phase.padEnd(40)} ${f.requests_per_second.toFixed(0).padStart(8)} ${String(f.p50_ms).padStart(7)} ${String(f.p99_ms).padStart(7)} ${String(f.max_ms).padStart(7)} ${String(f.timeouts).padStart(8)}\n`,
      );
    }
    const mean_ms = times.reduce((a, b) => a + b, 0) / Math.max(1, times.length);
    process.stdout.write(
      `extractions completed during the phase: ${times.length}, mean ${mean_ms.toFixed(0)} ms each (${((BENCH_HEALTH_PAGES / mean_ms) * 1000).toFixed(0)} pages/s)\n`,
    );
    process.stdout.write(
      `ratio p99 during / idle: ${(busy.p99_ms / Math.max(1, idle.p99_ms)).toFixed(2)}; p50 during / idle: ${(busy.p50_ms / Math.max(1, idle.p50_ms)).toFixed(2)}\n`,
    );
    printGoals([
      {
        goal: `GET /v1/health p99 < ${HEALTH_P99_GOAL_MS} ms during ${BENCH_HEALTH_PAGES}-page PDF extractions`,
        figure: `p99 ${busy.p99_ms} ms (idle ${idle.p99_ms} ms), ${busy.timeouts} timeouts`,
        met: busy.p99_ms < HEALTH_P99_GOAL_MS && busy.timeouts === 0,
      },
    ]);
    process.stdout.write(
      `\nJSON ${JSON.stringify({ connections: BENCH_HEALTH_CONNECTIONS, seconds: BENCH_HEALTH_SECONDS, pages: BENCH_HEALTH_PAGES, idle, busy, extractions: times.length, extraction_mean_ms: mean_ms })}\n`,
    );
  } finally {
    await new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  }
}

await main();
