// Export content of a run, pure: file name -> content. compute/simulation/export.ts zips it (spec: export ZIP of
// manifest, world, metrics (CSV and JSON), findings, cost report, events and an HTML report with charts).
import type { Comparison, CostReport, Finding, MetricSummary, RunManifest } from '../contracts/runResults.ts';
import type { WorldSpec } from '../contracts/worldSpec.ts';
import type { EventTrace } from './results.ts';
import { FEW_REPETITIONS_NOTE, measureUnitWords, shownInterval, stillWaitingSays } from './words.ts';

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
    'events.csv': eventsCsv(input.trace),
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

export function eventsCsv(trace: EventTrace): string {
  return csv(
    ['variant_id', 'replication_index', 'sequence', 'time', 'kind', 'entity', 'step', 'resource', 'value'],
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
    ]),
  );
}

function escapeHtml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;').replaceAll("'", '&#39;');
}

function fmt(value: number | null): string {
  return value === null ? '—' : Number(value.toPrecision(4)).toString();
}

/** Horizontal interval chart: one row per label, a dot at the estimate and a bar over its 95% interval. */
function intervalChart(rows: { label: string; value: number | null; low: number | null; high: number | null }[], zeroLine: boolean): string {
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
        `<circle cx="${x(row.value)}" cy="${y}" r="5" fill="#014f86"/><text x="${x(row.value) + 8}" y="${y - 6}" fill="#333">${fmt(row.value)}</text>`,
      );
  });
  parts.push(`<text x="${left}" y="${height - 4}">${fmt(min)}</text><text x="${width - right}" y="${height - 4}" text-anchor="end">${fmt(max)}</text></svg>`);
  return parts.join('');
}

/** A mean's interval in the report's table: kept at or above 0 (and a share at or below 1) with the reason, as the app shows it. */
function intervalCell(summary: MetricSummary): string {
  const shown = shownInterval(summary.interval_95.low, summary.interval_95.high, summary.unit);
  return `${fmt(shown.low)} to ${fmt(shown.high)}${shown.clipped ? ` (${FEW_REPETITIONS_NOTE})` : ''}`;
}

export function reportHtml(input: ExportInput): string {
  const { manifest, world, summaries, comparison, findings, cost_report: costs } = input;
  const variantLabel = new Map(world.variants.map((variant) => [variant.id, variant.label]));
  const sections: string[] = [];
  for (const measure of world.measured) {
    const rows = summaries
      .filter((summary) => summary.measure_id === measure.id)
      .map((summary) => ({
        label: variantLabel.get(summary.variant_id) ?? summary.variant_id,
        value: summary.mean,
        ...shownInterval(summary.interval_95.low, summary.interval_95.high, summary.unit),
      }));
    const differences = comparison.metrics
      .filter((metric) => metric.measure_id === measure.id)
      .map((metric) => ({
        label: `${variantLabel.get(metric.treatment_variant_id)} − baseline`,
        value: metric.mean_difference,
        low: metric.interval_95.low,
        high: metric.interval_95.high,
      }));
    const table = summaries
      .filter((summary) => summary.measure_id === measure.id)
      .map(
        (s) =>
          `<tr><td>${escapeHtml(variantLabel.get(s.variant_id) ?? s.variant_id)}</td><td>${s.n}</td><td>${fmt(s.mean)}</td><td>${intervalCell(s)}</td><td>${fmt(s.median)}</td><td>${fmt(s.p90)}</td><td>${s.censored_count}</td><td>${stillWaitingSays(measure.kind) ? fmt(s.still_waiting_at_end_mean) : '—'}</td></tr>`,
      )
      .join('');
    sections.push(
      `<section><h2>${escapeHtml(measure.label ?? measure.id)} <small>(${escapeHtml(measureUnitWords(measure.unit))})</small></h2>${intervalChart(rows, false)}${differences.length > 0 ? `<h3>Paired difference against baseline</h3>${intervalChart(differences, true)}` : ''}<table><thead><tr><th>variant</th><th>n</th><th>mean</th><th>95% interval</th><th>median of replications</th><th>p90 of replications</th><th>censored</th><th>still waiting at end (mean)</th></tr></thead><tbody>${table}</tbody></table></section>`,
    );
  }
  const costSection = costs
    ? `<section><h2>Cost scenarios (${escapeHtml(costs.currency)})</h2><table><thead><tr><th>variant</th><th>low</th><th>base</th><th>high</th><th>undefined because</th><th>additional (base)</th></tr></thead><tbody>${costs.variants
        .map(
          (v) =>
            `<tr><td>${escapeHtml(variantLabel.get(v.variant_id) ?? v.variant_id)}</td><td>${fmt(v.total.low)}</td><td>${fmt(v.total.base)}</td><td>${fmt(v.total.high)}</td><td>${escapeHtml(v.undefined_reasons.join('; '))}</td><td>${fmt(v.additional_total.base)}</td></tr>`,
        )
        .join('')}</tbody></table><p>${escapeHtml(costs.basis)}</p></section>`
    : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(world.name)}: synthetic run report</title>
<style>body{font-family:sans-serif;max-width:960px;margin:2em auto;color:#222}table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:4px 8px;text-align:right}td:first-child,th:first-child{text-align:left}.banner{background:#fff4d6;border:1px solid #e0b84c;padding:8px}</style>
</head><body>
<h1>${escapeHtml(world.name)}</h1>
<p class="banner">Synthetic results: these numbers describe a model built from declared settings and assumptions, not observed outcomes. They are not evidence of clinical benefit, demand or cost savings.</p>
<p>Run ${escapeHtml(manifest.run_id)} · status ${escapeHtml(manifest.status)} · ${manifest.replications_completed} of ${manifest.replications_requested} replications · ${manifest.events_simulated} events · engine ${escapeHtml(manifest.engine_version)} · seed ${manifest.seed}</p>
<h2>Findings</h2><ul>${findings.map((finding) => `<li>${escapeHtml(finding.sentence)} <em>(synthetic)</em></li>`).join('')}</ul>
${sections.join('\n')}
${costSection}
</body></html>
`;
}
