import { readdirSync, readFileSync } from 'node:fs';
import { unzipSync, strFromU8 } from 'fflate';
import { describe, expect, it } from 'vitest';
import { Value } from 'typebox/value';
import { zipExport } from '../../compute/simulation/export.ts';
import { Finding, MetricSummary, RunManifest } from '../../domain/contracts/runResults.ts';
import type { WorldSpec } from '../../domain/contracts/worldSpec.ts';
import {
  buildExportFiles,
  buildManifest,
  compare,
  costReport,
  estimateRun,
  EXPORT_FILE_NAMES,
  eventTrace,
  eventsCsv,
  findings,
  replicationJobs,
  reportHtml,
  runSequential,
  summarize,
  validateWorld,
} from '../../domain/simulation/index.ts';
import { measureHeading } from '../../clients/sdk/src/words/resultWords.ts';
import { queueWorld } from '../support/worlds.ts';

const samplesDirectory = new URL('../../samples/worlds/', import.meta.url);
const sampleNames = readdirSync(samplesDirectory).filter((name) => name.endsWith('.json'));
const loadSample = (name: string) => JSON.parse(readFileSync(new URL(name, samplesDirectory), 'utf8')) as WorldSpec;

/** The test queue world priced per consultation; the treatment's rate for the low scenario is unknown. */
function pricedWorld(lowRate: number | null): WorldSpec {
  const world = queueWorld({ servers: 2, arrivals_per_minute: 1, mean_service_minutes: 1, horizon_minutes: 2_000, warm_up_minutes: 100, replications: 3 });
  world.cost_scenarios = {
    currency: 'GBP',
    rates: [
      { id: 'consultation', measure: 'seen', low: lowRate, base: 40, high: 60, source: { kind: 'literature', reference: 'Example unit cost table, 2024' } },
    ],
    additional_costs: [
      {
        id: 'licence',
        label: 'software licence',
        variants: ['treatment'],
        per: 'replication',
        low: 100,
        base: 200,
        high: null,
        source: { kind: 'assumption', rationale: 'quote pending' },
      },
    ],
  };
  return world;
}

describe('sample worlds', () => {
  it('ships twelve sample worlds (four pathways, one per model feature, two published-style models), at least one with cost_scenarios', () => {
    expect(sampleNames.length).toBe(12);
    expect(sampleNames.some((name) => loadSample(name).cost_scenarios !== undefined)).toBe(true);
  });

  it.each(sampleNames)('%s validates, estimates runnable and runs baseline and treatment', (name) => {
    const world = loadSample(name);
    expect(validateWorld(world)).toEqual({ valid: true, problems: [], problems_not_listed: 0 });
    expect(estimateRun(world).runnable).toBe(true);
    expect(world.variants.some((variant) => variant.role === 'treatment')).toBe(true);
    const results = runSequential(world, { jobs: replicationJobs(world, 2) });
    expect(results.length).toBe(2 * world.variants.length);
    const summaries = summarize(world, results);
    expect(summaries.length).toBe(world.measured.length * world.variants.length);
    for (const summary of summaries) expect(Value.Check(MetricSummary, summary)).toBe(true);
    expect(results.every((result) => result.event_counts.arrivals > 0)).toBe(true);
  });
});

describe('cost report', () => {
  it('leaves a total undefined with the reason when a rate is unknown, never zero', () => {
    const world = pricedWorld(null);
    const results = runSequential(world);
    const report = costReport(world, results)!;
    const baseline = report.variants.find((variant) => variant.variant_id === 'baseline')!;
    expect(baseline.total.low).toBeNull();
    expect(baseline.undefined_reasons).toEqual(["the low rate 'consultation' is unknown (source: Example unit cost table, 2024)"]);
    const meanSeen = results.filter((result) => result.variant_id === 'baseline').reduce((sum, result) => sum + result.measures[4]!.observations, 0) / 3;
    expect(baseline.total.base).toBeCloseTo(meanSeen * 40, 6);
    expect(baseline.total.high).toBeCloseTo(meanSeen * 60, 6);
  });

  it('keeps additional costs apart from the priced events', () => {
    const world = pricedWorld(20);
    const report = costReport(world, runSequential(world))!;
    const treatment = report.variants.find((variant) => variant.variant_id === 'treatment')!;
    const baseline = report.variants.find((variant) => variant.variant_id === 'baseline')!;
    expect(treatment.total.base).toBe(baseline.total.base); // the treatment changes nothing, and the licence is not in the total
    expect(treatment.additional_total).toEqual({ low: 100, base: 200, high: null });
    expect(treatment.additional_undefined_reasons[0]).toContain("'licence'");
    expect(baseline.additional_costs).toEqual([]);
  });
});

describe('findings and export', () => {
  it('labels every finding synthetic with its sentence and numbers', () => {
    const world = pricedWorld(20);
    const results = runSequential(world);
    const list = findings(world, summarize(world, results), compare(world, results), costReport(world, results));
    expect(list.length).toBeGreaterThan(world.measured.length);
    for (const finding of list) {
      expect(Value.Check(Finding, finding)).toBe(true);
      expect(finding.label).toBe('synthetic');
      expect(finding.sentence.length).toBeGreaterThan(20);
    }
    expect(list.some((finding) => finding.kind === 'difference' && finding.numbers.mean_difference === 0)).toBe(true);
  });

  it('builds a ZIP that opens and holds manifest, world, metrics, findings, cost report, events and the HTML report', () => {
    const world = pricedWorld(20);
    const results = runSequential(world);
    const summaries = summarize(world, results);
    const comparison = compare(world, results);
    const costs = costReport(world, results);
    const manifest = buildManifest({
      run_id: 'run_test',
      world_revision_id: 'wrev_test',
      world,
      results,
      status: 'succeeded',
      started_at: new Date('2026-01-01T00:00:00Z'),
      finished_at: new Date('2026-01-01T00:00:02Z'),
      credits_reserved: 5,
      credits_used: 1,
    });
    expect(Value.Check(RunManifest, manifest)).toBe(true);
    expect(manifest.replications_completed).toBe(6);
    const files = buildExportFiles({
      manifest,
      world,
      summaries,
      comparison,
      findings: findings(world, summaries, comparison, costs),
      cost_report: costs,
      trace: eventTrace(world, results),
    });
    const unzipped = unzipSync(zipExport(files));
    expect(Object.keys(unzipped).sort()).toEqual([...EXPORT_FILE_NAMES].sort());
    expect(JSON.parse(strFromU8(unzipped['manifest.json']!)).run_id).toBe('run_test');
    expect(strFromU8(unzipped['metrics.csv']!).split('\n')[0]).toContain('ci95_low');
    const html = strFromU8(unzipped['report.html']!);
    expect(html).toContain('<svg');
    expect(html).toContain('Synthetic results');
    // "still waiting at the end" only beside a time or a queue: beside a count or utilisation the cell is empty
    const lastCells = (kind: string) => {
      const measure = world.measured.find((m) => m.kind === kind)!;
      const section = html.slice(html.indexOf(`<h2>${measureHeading(measure)} `));
      return [...section.slice(0, section.indexOf('</section>')).matchAll(/<td>([^<]*)<\/td><\/tr>/g)].map((m) => m[1]);
    };
    for (const kind of ['count', 'utilisation'].filter((k) => world.measured.some((m) => m.kind === k)))
      expect(lastCells(kind), kind).toEqual(world.variants.map(() => '—'));
    expect(lastCells('time_between').every((cell) => cell !== '—')).toBe(true);
    expect(strFromU8(unzipped['events.csv']!).split('\n').length).toBeGreaterThan(100);
  });

  it('writes report.html as the run page reads: sentence-case headings, units, labels, what each comparison means, no ids', () => {
    const world = pricedWorld(20);
    world.measured[0]!.label = 'wait to be seen';
    world.variants[1]!.changes = [{ setting: 'mean_service', value: 0.5 }];
    const results = runSequential(world);
    const summaries = summarize(world, results);
    const comparison = compare(world, results);
    const costs = costReport(world, results);
    const manifest = buildManifest({
      run_id: 'run_report',
      world_revision_id: 'wrev_report',
      world,
      results,
      status: 'succeeded',
      started_at: new Date('2026-01-01T00:00:00Z'),
      finished_at: new Date('2026-01-01T00:00:02Z'),
      credits_reserved: 5,
      credits_used: 1,
    });
    const input = {
      manifest,
      world,
      summaries,
      comparison,
      findings: findings(world, summaries, comparison, costs),
      cost_report: costs,
      trace: eventTrace(world, results),
    };
    const html = reportHtml(input);
    const text = html.replace(/<style>[^<]*<\/style>/, '').replace(/<[^>]+>/g, ' ');
    for (const id of ['run_report', 'wrev_report', 'baseline', 'treatment', 'clinician', 'time_in_system']) expect(text, id).not.toContain(id);
    expect(text).not.toMatch(/entities|replication/i);
    // every heading and table heading starts with a capital
    const headings = [...html.matchAll(/<(h[1-3]|th)>([^<]*)/g)].map((m) => m[2]!.trim());
    expect(headings.filter((heading) => !/^[A-Z0-9]/.test(heading))).toEqual([]);
    expect(text).toContain('Wait to be seen');
    // one "what this means" line per measure, saying how sure the comparison is; utilisation as a percentage
    expect((html.match(/What this means:/g) ?? []).length).toBe(world.measured.length);
    expect(text).toMatch(
      /Changed clinic shortens the average wait to be seen by about [\d.]+ (minutes|hours) compared with current clinic \(95% interval .*\); the interval excludes no change, so this is a clear difference in the model\./,
    );
    expect(text).toMatch(/Utilisation\s+\(percent of the available time\)/);
    expect(html).toMatch(/<td>\d+(\.\d+)?%<\/td>/);
    expect(text).toMatch(/[\d,.]+ per repetition/);
    expect(text).toContain('£');
  });

  it('numbers the people of events.csv uniquely per repetition and gives each event its clock time', () => {
    const world = pricedWorld(20);
    const results = runSequential(world);
    const rows = eventsCsv(eventTrace(world, results), world).trim().split('\n');
    expect(rows[0]).toBe('variant_id,replication_index,sequence,time,kind,entity,step,resource,value,clock_time');
    const baselineArrivals = rows.slice(1).filter((row) => row.startsWith('baseline,') && row.split(',')[4] === 'arrival');
    expect(baselineArrivals.map((row) => Number(row.split(',')[5]))).toEqual(baselineArrivals.map((_, index) => index));
    expect(rows[1]).toMatch(/,"day 1, \d\d:\d\d"$/);
  });
});
