// Export content of a run, pure: file name -> content. compute/simulation/export.ts zips it (spec: export ZIP of
// manifest, world, metrics (CSV and JSON), findings, cost report, events and an HTML report with charts).
import type { Comparison, CostReport, Finding, MetricSummary, RunManifest } from '../contracts/runResults.ts';
import type { WorldSpec } from '../contracts/worldSpec.ts';
import { inSentence } from '../../clients/sdk/src/words/sentences.ts';
import { type EventTrace, summarySentence } from './results.ts';
import {
  axisWords,
  clockWords,
  comparisonSentence,
  meanParts,
  measureHeading,
  measureScale,
  moneyWords,
  numberWords,
  scaledValueWords,
  scaleWords,
  timeUnitFor,
  unfinishedWords,
} from '../../clients/sdk/src/words/resultWords.ts';
import { shownInterval, stillWaitingSays } from '../../clients/sdk/src/words/simulationWords.ts';

export type ExportInput = {
  manifest: RunManifest;
  world: WorldSpec;
  summaries: MetricSummary[];
  comparison: Comparison;
  findings: Finding[];
  cost_report: CostReport | null;
  trace: EventTrace;
};

export const EXPORT_FILE_NAMES = [
  'manifest.json',
  'world.json',
  'metrics.csv',
  'metrics.json',
  'comparison.json',
  'findings.json',
  'cost_report.json',
  'events.csv',
  'events_counts.csv',
  'report.html',
] as const;

export function buildExportFiles(input: ExportInput): Record<string, string | Uint8Array> {
  const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
  return {
    'manifest.json': json(input.manifest),
    'world.json': json(input.world),
    'metrics.csv': metricsCsv(input.summaries),
    'metrics.json': json(input.summaries),
    'comparison.json': json(input.comparison),
    'findings.json': json(input.findings),
    'cost_report.json': json(input.cost_report ?? { note: 'this world has no cost_scenarios', synthetic: true }),
    'events.csv': eventsCsv(input.trace, input.world),
    'events_counts.csv': csv(
      ['variant_id', 'replication_index', 'events_total', 'arrivals', 'exits', 'reneges'],
      input.trace.replication_counts.map((row) => [row.variant_id, row.replication_index, row.events_total, row.arrivals, row.exits, row.reneges]),
    ),
    'report.html': reportHtml(input),
  };
}

function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = String(value);
  // Leading =, +, -, @ would be read as formulas by spreadsheets; quote and prefix them.
  const safe = /^[=+\-@]/.test(text) && Number.isNaN(Number(text)) ? `'${text}` : text;
  return /[",\n\r]/.test(safe) || safe !== text ? `"${safe.replaceAll('"', '""')}"` : safe;
}

function csv(header: string[], rows: unknown[][]): string {
  return `${[header, ...rows].map((row) => row.map(csvCell).join(',')).join('\n')}\n`;
}

export function metricsCsv(summaries: MetricSummary[]): string {
  return csv(
    // median/p90 are over replication values (replication means for time_between); entity-level percentiles are apart.
    [
      'measure_id',
      'variant_id',
      'kind',
      'unit',
      'denominator',
      'n',
      'mean',
      'sd',
      'ci95_low',
      'ci95_high',
      'median_of_replications',
      'p90_of_replications',
      'entity_percentiles',
      'share_over_threshold',
      'censored_count',
      'still_waiting_at_end_mean',
      'synthetic',
    ],
    summaries.map((s) => [
      s.measure_id,
      s.variant_id,
      s.kind,
      s.unit,
      s.denominator,
      s.n,
      s.mean,
      s.sd,
      s.interval_95.low,
      s.interval_95.high,
      s.median,
      s.p90,
      s.entity_percentiles ? s.entity_percentiles.map((p) => `p${p.quantile * 100}=${p.value ?? ''}`).join(' ') : '',
      s.over_threshold ? s.over_threshold.share : '',
      s.censored_count,
      s.still_waiting_at_end_mean,
      true,
    ]),
  );
}

/**
 * The trace, one row per event. `entity` is the person's number in the repetition (the order they arrived in, from 0;
 * never another person's); `clock_time` is the moment as a clock time from the start of the simulated period.
 */
export function eventsCsv(trace: EventTrace, world: WorldSpec): string {
  return csv(
    ['variant_id', 'replication_index', 'sequence', 'time', 'kind', 'entity', 'step', 'resource', 'value', 'clock_time'],
    trace.events.map((event) => [
      event.variant_id,
      event.replication_index,
      event.sequence,
      event.time,
      event.kind,
      event.entity,
      event.step,
      event.resource,
      event.value,
      clockWords(event.time, world),
    ]),
  );
}

function escapeHtml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;').replaceAll("'", '&#39;');
}

type ChartRow = { label: string; value: number | null; low: number | null; high: number | null };

/** Horizontal interval chart: one row per label, a dot at the estimate and a bar over its 95% interval, figures in their unit. */
function intervalChart(rows: ChartRow[], zeroLine: boolean, label: (value: number) => string): string {
  const width = 640;
  const rowHeight = 28;
  const left = 200;
  const right = 40;
  const height = rows.length * rowHeight + 30;
  const numbers = rows.flatMap((row) => [row.value, row.low, row.high]).filter((value): value is number => value !== null && Number.isFinite(value));
  if (zeroLine || numbers.length === 0) numbers.push(0);
  let min = Math.min(...numbers);
  let max = Math.max(...numbers);
  if (min === max) {
    min -= 1;
    max += 1;
  }
  const x = (value: number) => left + ((value - min) / (max - min)) * (width - left - right);
  const parts = [`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" role="img" font-family="sans-serif" font-size="12">`];
  if (zeroLine && min <= 0 && max >= 0) parts.push(`<line x1="${x(0)}" y1="0" x2="${x(0)}" y2="${height - 20}" stroke="#999" stroke-dasharray="4 3"/>`);
  rows.forEach((row, index) => {
    const y = index * rowHeight + 18;
    parts.push(`<text x="4" y="${y + 4}">${escapeHtml(row.label)}</text>`);
    if (row.low !== null && row.high !== null)
      parts.push(`<line x1="${x(row.low)}" y1="${y}" x2="${x(row.high)}" y2="${y}" stroke="#2a6f97" stroke-width="3"/>`);
    if (row.value !== null)
      parts.push(
        `<circle cx="${x(row.value)}" cy="${y}" r="5" fill="#014f86"/><text x="${x(row.value) + 8}" y="${y - 6}" fill="#333">${escapeHtml(label(row.value))}</text>`,
      );
  });
  parts.push(
    `<text x="${left}" y="${height - 4}">${escapeHtml(label(min))}</text><text x="${width - right}" y="${height - 4}" text-anchor="end">${escapeHtml(label(max))}</text></svg>`,
  );
  return parts.join('');
}

/** An id quoted in a machine sentence ('consultation') as words (“consultation”): the report names things, it shows no ids. */
function idsAsWords(text: string): string {
  return text.replace(/'([A-Za-z][A-Za-z0-9_]*)'/g, (_, id: string) => `“${id.replaceAll('_', ' ')}”`);
}

const STATUS_WORDS: Record<string, string> = {
  succeeded: 'Finished',
  timed_out: 'Stopped early at its credit budget or time limit, with the repetitions it finished',
  canceled: 'Canceled',
  failed: 'Failed',
};

/** What a table's "Average" cell adds to its value: what the value is per. */
const TABLE_QUALIFIER: Partial<Record<string, string>> = { per_repetition: ' per repetition', share_of_arrivals: ' of arrivals' };

/** One measure's section, as the run page shows it: what it means, the charts, each variant's figures in its unit. */
function measureSection(input: ExportInput, measure: WorldSpec['measured'][number], variantLabel: Map<string, string>): string {
  const { world, summaries, comparison } = input;
  const scale = measureScale(world, measure);
  const rows = summaries.filter((summary) => summary.measure_id === measure.id);
  const metrics = comparison.metrics.filter((metric) => metric.measure_id === measure.id);
  const label = (id: string) => variantLabel.get(id) ?? id;
  const shownTime = timeUnitFor(
    rows.map((row) => row.mean),
    measure.unit,
  );
  const differenceTime = timeUnitFor(
    metrics.flatMap((metric) => [metric.mean_difference, metric.interval_95.low, metric.interval_95.high]),
    measure.unit,
  );
  const meanings =
    metrics.length > 0
      ? metrics.map((m) => comparisonSentence(label(m.treatment_variant_id), label(m.baseline_variant_id), measure, scale, m))
      : rows.map((row) => summarySentence(label(row.variant_id), measure, scale, row));
  const bare = (value: number | null) => scaledValueWords(value, measure.unit, scale, { shownTime }).replace(/ per repetition$/, '');
  const table = rows
    .map((s) => {
      const parts = meanParts(s, scale, shownTime);
      const median = bare(s.median);
      const p90 = bare(s.p90);
      const waiting =
        stillWaitingSays(measure.kind) && s.still_waiting_at_end_mean !== null ? scaledValueWords(s.still_waiting_at_end_mean, 'entities', 'waiting') : '—';
      return `<tr><td>${escapeHtml(label(s.variant_id))}</td><td>${escapeHtml(`${parts.value}${TABLE_QUALIFIER[scale] ?? ''}`)}</td><td>${escapeHtml(parts.interval.replace(/^95% interval /, ''))}${parts.clipped ? ` (${escapeHtml(parts.note)})` : ''}</td><td>${s.n}</td><td>${escapeHtml(median)}</td><td>${escapeHtml(p90)}</td><td>${escapeHtml(waiting)}</td></tr>`;
    })
    .join('');
  const unfinished = rows
    .filter((s) => s.censored_count > 0)
    .map((s) => {
      const sentence = unfinishedWords(s.censored_count, s.n + s.replications_without_value, (measure as { censoring?: string }).censoring);
      return `<p>${escapeHtml(`${label(s.variant_id)}: ${inSentence(sentence)}`)}</p>`;
    })
    .join('');
  const meansChart = intervalChart(
    rows.map((s) => ({
      label: label(s.variant_id),
      value: s.mean,
      ...shownInterval(s.interval_95.low, s.interval_95.high, scale === 'share_of_arrivals' ? 'count' : s.unit),
    })),
    false,
    (value) => axisWords(value, measure.unit, scale, { shownTime }),
  );
  const differencesChart =
    metrics.length > 0
      ? `<h3>Difference from ${escapeHtml(inSentence(label(metrics[0]!.baseline_variant_id)))}</h3>${intervalChart(
          metrics.map((m) => ({ label: label(m.treatment_variant_id), value: m.mean_difference, low: m.interval_95.low, high: m.interval_95.high })),
          true,
          (value) => axisWords(value, measure.unit, scale, { difference: true, shownTime: differenceTime }),
        )}`
      : '';
  return `<section><h2>${escapeHtml(measureHeading(measure))} <small>(${escapeHtml(scaleWords(scale, shownTime))})</small></h2>${meanings.map((sentence) => `<p class="meaning"><strong>What this means:</strong> ${escapeHtml(sentence)}</p>`).join('')}${differencesChart}<h3>Each variant</h3>${meansChart}<table><thead><tr><th>Variant</th><th>Average</th><th>95% interval</th><th>Repetitions</th><th>Median of repetitions</th><th>90th percentile of repetitions</th><th>Still waiting at the end (average per repetition)</th></tr></thead><tbody>${table}</tbody></table>${unfinished}</section>`;
}

function costSection(costs: CostReport | null, variantLabel: Map<string, string>): string {
  if (!costs) return '';
  const money = (value: number | null) => escapeHtml(moneyWords(value, costs.currency));
  const label = (id: string) => escapeHtml(variantLabel.get(id) ?? id);
  const rows = costs.variants
    .map(
      (v) =>
        `<tr><td>${label(v.variant_id)}</td><td>${money(v.total.low)}</td><td>${money(v.total.base)}</td><td>${money(v.total.high)}</td><td>${money(v.additional_total.base)}</td></tr>`,
    )
    .join('');
  const unknown = costs.variants
    .filter((v) => v.undefined_reasons.length > 0)
    .map(
      (v) =>
        `<p>The cost of ${escapeHtml(inSentence(variantLabel.get(v.variant_id) ?? v.variant_id))} is not known at every level: ${escapeHtml(idsAsWords(v.undefined_reasons.join('; ')))}.</p>`,
    )
    .join('');
  return `<section><h2>Modelled costs</h2><p>The modelled cost of each variant over the measured period of one repetition, on average: the base estimate, and the range from the low to the high prices. Each cost is the average quantity counted in a repetition times its price; additional costs are shown apart.</p><table><thead><tr><th>Variant</th><th>Low</th><th>Base</th><th>High</th><th>Additional costs (base)</th></tr></thead><tbody>${rows}</tbody></table>${unknown}</section>`;
}

/** The report a person opens first: it reads like the run page (sentence-case headings, units, labels, no ids). */
export function reportHtml(input: ExportInput): string {
  const { manifest, world } = input;
  const variantLabel = new Map(world.variants.map((variant) => [variant.id, variant.label]));
  const sections = world.measured.map((measure) => measureSection(input, measure, variantLabel));
  const perVariant = world.variants.length > 0 ? manifest.replications_completed / world.variants.length : 0;
  const repetitions = Number.isInteger(perVariant)
    ? `${numberWords(perVariant)} ${perVariant === 1 ? 'repetition' : 'repetitions'} of each of the ${numberWords(world.variants.length)} variants`
    : `${numberWords(manifest.replications_completed)} repetitions`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(world.name)}: synthetic run report</title>
<style>body{font-family:sans-serif;max-width:960px;margin:2em auto;color:#222}table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:4px 8px;text-align:right}td:first-child,th:first-child{text-align:left}.banner{background:#fff4d6;border:1px solid #e0b84c;padding:8px}.meaning{font-size:1.05em}.small{font-size:0.85em;color:#555}</style>
</head><body>
<h1>${escapeHtml(world.name)}</h1>
<p class="banner">Synthetic results: these numbers describe a model built from declared settings and assumptions, not observed outcomes. They are not evidence of clinical benefit, demand or cost savings.</p>
<p>${escapeHtml(STATUS_WORDS[manifest.status] ?? manifest.status)}: ${repetitions}, ${numberWords(manifest.events_simulated)} simulated events. Each repetition runs the model once with its own random numbers; the variants share them repetition by repetition, so a difference between two variants comes from the change alone.</p>
${sections.join('\n')}
${costSection(input.cost_report, variantLabel)}
<p class="small">Every number behind this report is in metrics.csv, comparison.json, findings.json and events.csv; how the run was made (engine version, random seed, repetitions) is in manifest.json.</p>
</body></html>
`;
}
