// Benchmark: how cost grows with the work. The GP triage sample at 1×, 10× and 100× its replications, and a world
// with about 10⁶ entities in the system at once, each run through `crucible-server api` + `crucible-server worker` on
// PostgreSQL (bench/service.ts starts them as real processes) from POST /v1/runs to `succeeded`; then PDFs of 10, 100
// and 1,000 pages through extractSources (as POST /v1/intakes/extract reads them; PDF_PAGES_MAX = 300 refuses a longer
// PDF, so 1,000 pages are four files, as a user told to split it sends them). Prints the curve, the goals with MET / NOT MET and the load average, and
// draws the curve as a PNG (an SVG rasterised by the Chromium playwright-core drives). Not a timed test.
// The work of a factor f is f times the sample's replications. REPLICATIONS_MAX (domain/simulation/limits.ts) caps the
// replications; past it the horizon grows by the rest of the factor (100× = 1,000 replications × a 2× horizon), so the
// simulated events still grow f-fold. Linear is judged on events: run time / (events / events at 1×) / time at 1×.
// Peak memory is each process's VmHWM (Linux), reset before each run by writing 5 to /proc/<pid>/clear_refs. The event
// trace cannot be switched off; it is bounded (replication 0 of each variant, EVENT_TRACE_CAP_PER_VARIANT events), so
// it is counted apart from the rows that grow with the replications.
// Run: node_modules/.bin/node bench/scaling.ts
//   BENCH_SCALING_FACTORS  the factors (default 1,10,100); BENCH_SCALING_ENTITIES entities in the big world (default
//   950000; 0 skips it); BENCH_SCALING_PAGES the PDF sizes (default 10,100,1000); BENCH_SCALING_CHART the PNG's path
//   (default docs/performance-scaling.png; "none" draws nothing)
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { extractSources } from '../compute/extraction.ts';
import { closeComputePool } from '../compute/pool.ts';
import { PDF_PAGES_MAX } from '../domain/intake/sources.ts';
import { HORIZON_DAYS_MAX, REPLICATIONS_MAX } from '../domain/simulation/limits.ts';
import { buildPdf, type PdfPage } from '../test/support/corpus.ts';
import { queueWorld } from '../test/support/worlds.ts';
import { type Goal, loadLine, median, printGoals } from './goals.ts';
import { drawChart } from './chart.ts';
import { SAMPLE, scaledSample } from './scaledSample.ts';
import { call, type Json, type PostgresqlService, startPostgresqlService } from './service.ts';

export const GOAL_LINEAR = 1.05;
export const GOAL_MEMORY = 1.5;
const numbers = (text: string | undefined, fallback: number[]) => (text ? text.split(',').map(Number) : fallback);
const FACTORS = numbers(process.env.BENCH_SCALING_FACTORS, [1, 10, 100]);
const ENTITIES = process.env.BENCH_SCALING_ENTITIES === undefined ? 950_000 : Number(process.env.BENCH_SCALING_ENTITIES);
const PAGES = numbers(process.env.BENCH_SCALING_PAGES, [10, 100, 1000]);
const CHART = process.env.BENCH_SCALING_CHART ?? fileURLToPath(new URL('../docs/performance-scaling.png', import.meta.url));

export type RunFigure = {
  label: string;
  factor: number | null;
  replications: number;
  horizon: number;
  variants: number;
  events: number;
  wall_ms: number;
  /** by the run's own timestamps (database clock): created → started, started → finished, finished → the last poll's answer */
  queued_ms: number;
  running_ms: number;
  api_peak_mb: number;
  worker_peak_mb: number;
  rows: Record<string, number>;
};

/**
 * An overloaded clinic whose queue holds about `entities` patients at the horizon: 96 arrivals a minute to one clinician
 * who sees one a minute, so the queue grows by 95 a minute (the two variants a world needs are the same clinic).
 */
export function crowdedWorld(entities: number): Json {
  const growth_per_minute = 95;
  const world = queueWorld({
    servers: 1,
    arrivals_per_minute: growth_per_minute + 1,
    mean_service_minutes: 1,
    horizon_minutes: Math.round(entities / growth_per_minute),
    warm_up_minutes: 0,
    replications: 1,
  });
  return { ...world, name: `${entities} entities in the system` };
}

function peakMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(status.match(/VmHWM:\s+(\d+) kB/)![1]) / 1024;
}

function resetPeak(pid: number): void {
  // "5" resets the peak resident set size to the current one (Linux 4.0+, proc(5)).
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
}

/** Rows of every table with a run_id column that belong to the run. */
async function countRows(database_url: string, run_id: string): Promise<Record<string, number>> {
  const client = new pg.Client({ connectionString: database_url });
  await client.connect();
  try {
    const tables = await client.query<{ table_name: string }>(
      "select table_name from information_schema.columns where column_name = 'run_id' and table_schema = 'public' order by table_name",
    );
    const rows: Record<string, number> = {};
    for (const { table_name } of tables.rows) {
      rows[table_name] = Number((await client.query(`select count(*)::int as n from ${table_name} where run_id = $1`, [run_id])).rows[0].n);
    }
    rows.runs = 1;
    return rows;
  } finally {
    await client.end();
  }
}

async function runWorld(
  service: PostgresqlService,
  session: { token: string; project_id: string },
  label: string,
  factor: number | null,
  world: Json,
): Promise<RunFigure> {
  const { base } = service;
  const saved = await call(base, 'POST', `/v1/projects/${session.project_id}/worlds`, session.token, world);
  const quote = await call(base, 'POST', '/v1/runs/estimate', session.token, {
    world_revision_id: saved.world_revision_id,
    budget_limit_credits: 1_000_000_000,
  });
  const pids = [service.api.child.pid!, service.worker.child.pid!];
  pids.forEach(resetPeak);
  const started = performance.now();
  const body = { world_revision_id: saved.world_revision_id, budget_limit_credits: Number(quote.credits_estimate) * 2 };
  let run = await call(base, 'POST', '/v1/runs', session.token, body);
  while (run.status === 'queued' || run.status === 'running') run = await call(base, 'GET', `/v1/runs/${run.run_id}?wait=30`, session.token);
  const wall_ms = performance.now() - started;
  if (run.status !== 'succeeded') throw new Error(`${label}: the run ended ${run.status}: ${JSON.stringify(run).slice(0, 400)}`);
  const [api_peak_mb, worker_peak_mb] = pids.map(peakMb) as [number, number];
  return {
    label,
    factor,
    replications: world.replications,
    horizon: world.horizon,
    variants: world.variants.length,
    events: Number(run.events_simulated),
    wall_ms,
    queued_ms: Date.parse(run.started_at) - Date.parse(run.created_at),
    running_ms: Date.parse(run.finished_at) - Date.parse(run.started_at),
    api_peak_mb,
    worker_peak_mb,
    rows: await countRows(service.database_url, run.run_id),
  };
}

/** Rows that grow with the replications (everything but the run's own row and its bounded trace), per replication. */
export function rowsPerReplication(figure: RunFigure): number {
  const fixed = (figure.rows.runs ?? 0) + (figure.rows.run_event_chunks ?? 0) + (figure.rows.run_events ?? 0);
  const all = Object.values(figure.rows).reduce((sum, n) => sum + n, 0);
  return (all - fixed) / (figure.replications * figure.variants);
}

async function runs(): Promise<RunFigure[]> {
  const service = await startPostgresqlService(null);
  try {
    const { owner, base } = service;
    const token = (await call(base, 'POST', '/v1/auth/sessions', null, { email: owner.email, password: owner.password })).token as string;
    const project = await call(base, 'POST', '/v1/projects', token, { title: 'Scaling', org_id: owner.org_id });
    const session = { token, project_id: project.id as string };
    await runWorld(service, session, 'warm-up (not counted)', null, scaledSample(1).world);
    const figures: RunFigure[] = [];
    for (const factor of FACTORS) {
      const { world, how } = scaledSample(factor);
      figures.push(await runWorld(service, session, `GP triage ×${factor}: ${how}`, factor, world));
      process.stderr.write(`  done: ${figures.at(-1)!.label}\n`);
    }
    if (ENTITIES > 0)
      figures.push(await runWorld(service, session, `${ENTITIES.toLocaleString('en')} entities in the system (1 replication)`, null, crowdedWorld(ENTITIES)));
    return figures;
  } finally {
    await service.stop();
  }
}

export type PdfFigure = { pages: number; files: number; seconds: number; pages_per_second: number };

/** `pages` pages of text as a user can send them: PDFs of at most PDF_PAGES_MAX pages (a longer one is refused). */
async function pdfFiles(pages: number): Promise<Array<{ kind: 'file'; filename: string; bytes: Uint8Array }>> {
  const files: Array<{ kind: 'file'; filename: string; bytes: Uint8Array }> = [];
  for (let first = 0; first < pages; first += PDF_PAGES_MAX) {
    const count = Math.min(PDF_PAGES_MAX, pages - first);
    const content: PdfPage[] = Array.from({ length: count }, (_, page) => ({
      kind: 'text',
      lines: Array.from(
        { length: 45 },
        (_, line) => `page ${first + page + 1} line ${line + 1}: patients clinic referral triage nurse pathway outcome waiting review`,
      ),
    }));
    files.push({ kind: 'file', filename: `part-${files.length + 1}.pdf`, bytes: await buildPdf(content) });
  }
  return files;
}

/** Each size through extractSources (read + screen, as POST /v1/intakes/extract does), median of three. */
async function intake(): Promise<PdfFigure[]> {
  const figures: PdfFigure[] = [];
  for (const pages of PAGES) {
    const files = await pdfFiles(pages);
    const times: number[] = [];
    for (let round = 0; round < 3; round++) {
      const started = performance.now();
      const sources = await extractSources(files);
      if (sources.some((source) => source.status !== 'processed')) throw new Error(`${pages} pages: ${JSON.stringify(sources.map((s) => s.status))}`);
      times.push((performance.now() - started) / 1000);
    }
    const seconds = median(times);
    figures.push({ pages, files: files.length, seconds, pages_per_second: pages / seconds });
  }
  await closeComputePool();
  return figures;
}

function printRuns(figures: RunFigure[]): void {
  const base = figures.find((f) => f.factor === FACTORS[0]) ?? figures[0]!;
  process.stdout.write(
    `\n${'run'.padEnd(76)} ${'events'.padStart(12)} ${'wall s'.padStart(8)} ${'vs linear'.padStart(9)} ${'queued s'.padStart(8)} ${'run s'.padStart(7)} ${'API MB'.padStart(7)} ${'worker MB'.padStart(9)} ${'rows'.padStart(6)} ${'rows/rep'.padStart(8)}\n`,
  );
  for (const f of figures) {
    // The big world is another model: its run time is shown, not held against the sample's line.
    const linear = f.factor === null ? '—' : (f.wall_ms / ((f.events / base.events) * base.wall_ms)).toFixed(3);
    const rows = Object.values(f.rows).reduce((sum, n) => sum + n, 0);
    process.stdout.write(
      `${f.label.padEnd(76)} ${String(f.events).padStart(12)} ${(f.wall_ms / 1000).toFixed(2).padStart(8)} ${linear.padStart(9)} ${(f.queued_ms / 1000).toFixed(2).padStart(8)} ${(f.running_ms / 1000).toFixed(2).padStart(7)} ${f.api_peak_mb.toFixed(0).padStart(7)} ${f.worker_peak_mb.toFixed(0).padStart(9)} ${String(rows).padStart(6)} ${rowsPerReplication(f).toFixed(2).padStart(8)}\n`,
    );
  }
  process.stdout.write(`rows by table: ${figures.map((f) => `${f.label.split(':')[0]} ${JSON.stringify(f.rows)}`).join('; ')}\n`);
}

export function runGoals(figures: RunFigure[]): Goal[] {
  const scaled = figures.filter((f) => f.factor !== null);
  const base = scaled[0];
  if (!base) return [];
  const goals: Goal[] = [];
  for (const f of scaled.slice(1)) {
    const linear = f.wall_ms / ((f.events / base.events) * base.wall_ms);
    goals.push({
      goal: `×${f.factor} run time ≤ ${GOAL_LINEAR}× linear in the events (vs ×${base.factor})`,
      figure: `${linear.toFixed(3)}×`,
      met: linear <= GOAL_LINEAR,
    });
    const api = f.api_peak_mb / base.api_peak_mb;
    const worker = f.worker_peak_mb / base.worker_peak_mb;
    goals.push({
      goal: `×${f.factor} peak memory ≤ ${GOAL_MEMORY}× the ×${base.factor} run (API, worker)`,
      figure: `API ${api.toFixed(2)}×, worker ${worker.toFixed(2)}×`,
      met: api <= GOAL_MEMORY && worker <= GOAL_MEMORY,
    });
  }
  const perReplication = scaled.map(rowsPerReplication);
  const fixed = scaled.map((f) => (f.rows.runs ?? 0) + (f.rows.run_event_chunks ?? 0) + (f.rows.run_events ?? 0));
  const constant = perReplication.every((n) => n === perReplication[0]) && fixed.every((n) => n === fixed[0]);
  goals.push({
    goal: 'rows stored per replication constant (the run row and its bounded trace apart)',
    figure: `${perReplication.map((n) => n.toFixed(2)).join(', ')} per replication; fixed ${fixed.join(', ')}`,
    met: constant,
  });
  return goals;
}

export function pdfGoals(figures: PdfFigure[]): Goal[] {
  const base = figures[0];
  if (!base) return [];
  return figures.slice(1).map((f) => {
    const linear = f.seconds / ((f.pages / base.pages) * base.seconds);
    return { goal: `PDF of ${f.pages} pages ≤ ${GOAL_LINEAR}× linear (vs ${base.pages} pages)`, figure: `${linear.toFixed(3)}×`, met: linear <= GOAL_LINEAR };
  });
}

async function main(): Promise<void> {
  process.stdout.write(
    `factors ${FACTORS.join(', ')} of the GP triage sample (${SAMPLE.replications} replications × ${SAMPLE.variants.length} variants, horizon ${SAMPLE.horizon} min); ${loadLine()} at the start\n`,
  );
  const runFigures = await runs();
  printRuns(runFigures);
  const pdfFigures = await intake();
  process.stdout.write(
    `\nintake (extractSources, PDFs of at most PDF_PAGES_MAX = ${PDF_PAGES_MAX} pages each)\n${'pages'.padStart(6)} ${'files'.padStart(6)} ${'seconds'.padStart(8)} ${'pages/s'.padStart(8)}\n`,
  );
  for (const f of pdfFigures)
    process.stdout.write(
      `${String(f.pages).padStart(6)} ${String(f.files).padStart(6)} ${f.seconds.toFixed(3).padStart(8)} ${f.pages_per_second.toFixed(1).padStart(8)}\n`,
    );
  printGoals([...runGoals(runFigures), ...pdfGoals(pdfFigures)]);
  if (CHART !== 'none') {
    await drawChart(CHART, runFigures, pdfFigures, loadLine());
    process.stdout.write(`chart: ${CHART}${existsSync(CHART) ? '' : ' (not written)'}\n`);
  }
  process.stdout.write(`\nJSON ${JSON.stringify({ runs: runFigures, pdf: pdfFigures })}\n`);
}

await main();
process.exit(0);
