// World runs: estimate, create under an explicit budget (optionally waiting), show, cancel, results, compare, export.
import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { unwrapAs } from '../../../sdk/src/index.ts';
import { fields, fieldsPresent, failureLine, figure, table } from '../output.ts';
import { fetchFile } from '../timeouts.ts';
import { type Any, type CommandContext, integer, waitOptions, waitToEnd } from './context.ts';

function showRun(r: Any): string {
  return fieldsPresent([
    ['run', r.run_id],
    ['status', r.status],
    ['failure', failureLine(r)],
    ['replications', `${r.replications_completed ?? 0}/${r.replications_requested ?? '?'}`],
    ['credits used', r.credits_used ?? '-'],
    ['budget', r.budget_limit_credits],
  ]);
}

/** Every paired comparison of a run: the measure, the two variants, both means, their difference and its 95% interval. */
export function showComparison(compared: Any): string {
  const metrics: Any[] = compared.metrics ?? [];
  if (metrics.length === 0) return 'No paired comparison: the run has no baseline and treatment variants with values for the same measure.';
  return [
    table(metrics, [
      { header: 'measure', value: (m: Any) => m.measure_id },
      { header: 'baseline', value: (m: Any) => m.baseline_variant_id },
      { header: 'treatment', value: (m: Any) => m.treatment_variant_id },
      { header: 'unit', value: (m: Any) => m.unit },
      { header: 'mean baseline', value: (m: Any) => figure(m.mean_baseline) },
      { header: 'mean treatment', value: (m: Any) => figure(m.mean_treatment) },
      { header: 'difference', value: (m: Any) => figure(m.mean_difference) },
      { header: '95% interval', value: (m: Any) => `${figure(m.interval_95?.low)} to ${figure(m.interval_95?.high)}` },
      { header: 'pairs', value: (m: Any) => m.n_pairs },
    ]),
    `Difference is treatment minus baseline, paired by replication (${compared.method ?? 'paired'}); synthetic results of the model.`,
  ].join('\n');
}

export function registerRuns(program: Command, context: CommandContext): void {
  const runs = program.command('runs').description('World runs');
  estimate(runs, context);
  create(runs, context);
  list(runs, context);
  runs.command('show <run_id>').action(async (run_id: string) => {
    const r = unwrapAs<Any>(await context.client().GET('/v1/runs/{run_id}', { path: { run_id } }));
    context.out().result(r, () => showRun(r));
  });
  runs.command('cancel <run_id>').action(async (run_id: string) => {
    const r = unwrapAs<Any>(await context.client().POST('/v1/runs/{run_id}/cancel', { path: { run_id } }));
    context.out().result(r, () => showRun(r));
  });
  results(runs, context);
  runs.command('compare <run_id>').action(async (run_id: string) => {
    const compared = unwrapAs<Any>(await context.client().POST('/v1/experiments/compare', { body: { run_id } as never }));
    context.out().result(compared, () => showComparison(compared));
  });
  runs
    .command('export <run_id>')
    .description('Make a signed link and download the ZIP (the download sends no bearer credential)')
    .requiredOption('--out <file>')
    .action(async (run_id: string, o: Any) => {
      const client = context.client();
      const link = unwrapAs<Any>(await client.POST('/v1/runs/{run_id}/export', { path: { run_id } }));
      const url = new URL(link.url, `${client.baseUrl}/`).toString();
      writeFileSync(o.out, await fetchFile(url, context.requestTimeout(), 'export download'));
      context.out().result({ written: o.out, expires_at: link.expires_at }, () => `Run export written to ${o.out}.`);
    });
}

function estimate(runs: Command, context: CommandContext): void {
  runs
    .command('estimate')
    .requiredOption('--world-revision <world_revision_id>')
    .requiredOption('--budget <credits>', 'budget_limit_credits', integer('--budget'))
    .action(async (o: Any) => {
      const quote = unwrapAs<Any>(
        await context.client().POST('/v1/runs/estimate', { body: { world_revision_id: o.worldRevision, budget_limit_credits: o.budget } }),
      );
      context.out().result(quote, () =>
        [
          fields([
            ['runnable', quote.runnable],
            ['estimate', quote.credits_estimate],
            ['reserved', quote.reserved_credits],
            ['available', quote.available_credits],
          ]),
          quote.issues?.length ? table(quote.issues, [{ header: 'issue', value: (i: Any) => i.message ?? i }]) : '',
        ]
          .filter(Boolean)
          .join('\n'),
      );
    });
}

function create(runs: Command, context: CommandContext): void {
  const command = runs
    .command('create')
    .description('Run a world revision under an explicit credit budget')
    .requiredOption('--world-revision <world_revision_id>')
    .requiredOption('--budget <credits>', 'budget_limit_credits (explicit: no budget is chosen for you)', integer('--budget'))
    .option('--idempotency-key <key>');
  waitOptions(command, 'wait for the run to end, with progress on stderr').action(async (o: Any) => {
    const client = context.client();
    let created = unwrapAs<Any>(
      await client.POST('/v1/runs', { body: { world_revision_id: o.worldRevision, budget_limit_credits: o.budget }, idempotencyKey: o.idempotencyKey }),
    );
    if (o.wait) {
      const run_id = created.run_id;
      created = await waitToEnd(
        context,
        'run',
        `run ${run_id}`,
        (poll) => client.GET('/v1/runs/{run_id}', { path: { run_id }, ...poll }),
        (r) => `${r.status} ${r.replications_completed ?? 0}/${r.replications_requested ?? '?'} replications`,
        o.timeout,
      );
    }
    context.out().result(created, () => showRun(created));
  });
}

function list(runs: Command, context: CommandContext): void {
  runs
    .command('list')
    .description("A project's runs, newest first")
    .requiredOption('--project <project_id>')
    .option('--limit <n>', '1 to 200', integer('--limit'))
    .option('--offset <n>', 'rows to skip', integer('--offset'))
    .action(async (o: Any) => {
      const page = unwrapAs<Any>(
        await context.client().GET('/v1/projects/{project_id}/runs', { path: { project_id: o.project }, query: { limit: o.limit, offset: o.offset } }),
      );
      context.out().result(page, () =>
        table(page.data ?? [], [
          { header: 'run', value: (r: Any) => r.run_id },
          { header: 'status', value: (r: Any) => r.status },
          { header: 'world revision', value: (r: Any) => r.world_revision_id },
          { header: 'budget', value: (r: Any) => r.budget_limit_credits },
          { header: 'created', value: (r: Any) => r.created_at },
        ]),
      );
    });
}

function results(runs: Command, context: CommandContext): void {
  runs.command('results <run_id>').action(async (run_id: string) => {
    const results = unwrapAs<Any>(await context.client().GET('/v1/runs/{run_id}/results', { path: { run_id } }));
    context.out().result(results, () =>
      [
        table(results.metrics ?? [], [
          { header: 'measure', value: (m: Any) => m.measure_id },
          { header: 'variant', value: (m: Any) => m.variant_id },
          { header: 'n', value: (m: Any) => m.n },
          { header: 'mean', value: (m: Any) => (typeof m.mean === 'number' ? Number(m.mean.toPrecision(4)) : m.mean) },
        ]),
        '',
        table(results.findings ?? [], [
          { header: 'finding', value: (f: Any) => f.statement ?? f.text ?? f.id },
          { header: 'label', value: (f: Any) => f.label },
        ]),
      ].join('\n'),
    );
  });
}
