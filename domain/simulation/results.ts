// Results of a run, all pure: summaries per measure and variant, paired comparisons under common random numbers,
// synthetic findings, cost reports and the bounded event trace (spec: WorldSpec and run).
import { DDSketch } from '@datadog/sketches-js';
import type { Comparison, CostReport, Finding, MetricComparison, MetricSummary, ReplicationCount } from '../contracts/runResults.ts';
import { RUN_RESULTS_VERSION } from '../contracts/runResults.ts';
import type { Measure, WorldSpec } from '../contracts/worldSpec.ts';
import type { MeasureObservation, ReplicationResult, TraceEvent } from './engine.ts';
import { EVENT_TRACE_CAP_PER_VARIANT } from './limits.ts';
import { DAYS_PER_YEAR } from './model.ts';
import { minutesPer } from './units.ts';
import { inSentence } from '../../clients/sdk/src/words/sentences.ts';
import {
  type MeanForWords,
  type MeasureForWords,
  type Scale,
  comparisonSentence,
  meanWords,
  moneyWords,
  measureHeading,
  measureScale,
  unfinishedWords,
} from '../../clients/sdk/src/words/resultWords.ts';

// Two-sided 95% Student t quantiles for 1..30 degrees of freedom.
const T_975 = [
  12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131, 2.12, 2.11, 2.101, 2.093, 2.086, 2.08, 2.074, 2.069,
  2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042,
];

/** The 0.975 quantile of Student's t (table to 30 degrees of freedom, Cornish-Fisher expansion beyond). */
export function tQuantile975(degreesOfFreedom: number): number {
  if (degreesOfFreedom < 1) return Number.NaN;
  if (degreesOfFreedom <= 30) return T_975[Math.floor(degreesOfFreedom) - 1]!;
  const z = 1.959963984540054;
  const d = degreesOfFreedom;
  return z + (z ** 3 + z) / (4 * d) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * d * d) + (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / (384 * d ** 3);
}

export type SampleStatistics = {
  n: number;
  mean: number | null;
  sd: number | null;
  low: number | null;
  high: number | null;
  median: number | null;
  p90: number | null;
};

/** Mean, sample sd, t-based 95% interval of the mean, median and p90 (linear interpolation between order statistics). */
export function describe(values: number[]): SampleStatistics {
  const n = values.length;
  if (n === 0) return { n, mean: null, sd: null, low: null, high: null, median: null, p90: null };
  const mean = values.reduce((sum, value) => sum + value, 0) / n;
  const sd = n > 1 ? Math.sqrt(values.reduce((sum, value) => sum + (value - mean) ** 2, 0) / (n - 1)) : null;
  const half = sd === null ? null : (tQuantile975(n - 1) * sd) / Math.sqrt(n);
  const sorted = [...values].sort((a, b) => a - b);
  return {
    n,
    mean,
    sd,
    low: half === null ? null : mean - half,
    high: half === null ? null : mean + half,
    median: quantile(sorted, 0.5),
    p90: quantile(sorted, 0.9),
  };
}

function quantile(sorted: number[], probability: number): number {
  const position = (sorted.length - 1) * probability;
  const below = Math.floor(position);
  const above = Math.min(below + 1, sorted.length - 1);
  return sorted[below]! + (sorted[above]! - sorted[below]!) * (position - below);
}

function sortedResults(results: ReplicationResult[], variantId: string): ReplicationResult[] {
  return results.filter((result) => result.variant_id === variantId).sort((a, b) => a.replication_index - b.replication_index);
}

/**
 * One MetricSummary per measure and variant. The statistics are over replications: each replication contributes
 * its value of the measure (e.g. its mean wait), so n is the number of replications with a value, and `median`/`p90`
 * are quantiles of replication values, not of entities. Entity-level percentiles and the share over a threshold are
 * reported beside them when the measure asks for them.
 */
export function summarize(world: WorldSpec, results: ReplicationResult[]): MetricSummary[] {
  const out: MetricSummary[] = [];
  for (const variant of world.variants) {
    const runs = sortedResults(results, variant.id);
    world.measured.forEach((measure, index) => {
      const observations = runs.map((run) => run.measures[index]!);
      const values = observations.map((observation) => observation.value).filter((value): value is number => value !== null);
      const stats = describe(values);
      out.push({
        contract: 'MetricSummary',
        version: RUN_RESULTS_VERSION,
        measure_id: measure.id,
        variant_id: variant.id,
        kind: measure.kind,
        unit: measure.unit,
        denominator: measure.denominator,
        n: stats.n,
        mean: stats.mean,
        sd: stats.sd,
        interval_95: { low: stats.low, high: stats.high, level: 0.95 },
        median: stats.median,
        p90: stats.p90,
        censored_count: observations.reduce((sum, observation) => sum + observation.censored, 0),
        still_waiting_at_end_mean:
          observations.length > 0 ? observations.reduce((sum, observation) => sum + observation.still_waiting_at_end, 0) / observations.length : null,
        observations_total: observations.reduce((sum, observation) => sum + observation.observations, 0),
        replications_without_value: observations.length - values.length,
        ...entityLevel(measure, observations),
        synthetic: true,
      });
    });
  }
  return out;
}

/** Entity-level results of a time_between measure that asked for them: pooled percentiles and the share over a threshold. */
function entityLevel(measure: Measure, observations: ReplicationResult['measures']): Pick<MetricSummary, 'entity_percentiles' | 'over_threshold'> {
  if (measure.kind !== 'time_between') return {};
  const out: Pick<MetricSummary, 'entity_percentiles' | 'over_threshold'> = {};
  if (measure.percentiles) {
    let pooled: DDSketch | null = null;
    for (const observation of observations) {
      if (!observation.entity_sketch) continue;
      const sketch = DDSketch.fromProto(new Uint8Array(Buffer.from(observation.entity_sketch, 'base64')));
      if (pooled) pooled.merge(sketch);
      else pooled = sketch;
    }
    const sketch = pooled;
    out.entity_percentiles = measure.percentiles.map((quantile) => ({
      quantile,
      value: sketch && sketch.count > 0 ? sketch.getValueAtQuantile(quantile) : null,
    }));
  }
  if (measure.threshold !== undefined) {
    const counted = observations.filter((observation) => observation.over_threshold !== undefined && observation.observations > 0);
    const entitiesOver = counted.reduce((sum, observation) => sum + observation.over_threshold!, 0);
    const entities = counted.reduce((sum, observation) => sum + observation.observations, 0);
    // The interval is over replications (each replication's share), since entities within one replication are correlated.
    const shares = describe(counted.map((observation) => observation.over_threshold! / observation.observations));
    out.over_threshold = {
      threshold: measure.threshold,
      entities_over: entitiesOver,
      entities,
      share: entities > 0 ? entitiesOver / entities : null,
      share_interval_95: { low: shares.low, high: shares.high, level: 0.95 },
    };
  }
  return out;
}

export const COMPARISON_METHOD =
  'paired differences (treatment minus baseline) per replication index; both variants use the same random streams per replication (common random numbers); 95% interval from Student t over pairs';

/** Paired baseline/treatment differences per measure and treatment (spec: /v1/experiments/compare returns `metrics`). */
export function compare(world: WorldSpec, results: ReplicationResult[]): Comparison {
  const baseline = world.variants.find((variant) => variant.role === 'baseline');
  if (!baseline) return { metrics: [], method: COMPARISON_METHOD };
  const baselineRuns = new Map(sortedResults(results, baseline.id).map((run) => [run.replication_index, run]));
  const metrics: MetricComparison[] = [];
  for (const treatment of world.variants.filter((variant) => variant.role === 'treatment')) {
    const treatmentRuns = sortedResults(results, treatment.id);
    world.measured.forEach((measure, index) => {
      const differences: { replication_index: number; difference: number }[] = [];
      const baselineValues: number[] = [];
      const treatmentValues: number[] = [];
      for (const run of treatmentRuns) {
        const pair = baselineRuns.get(run.replication_index);
        const treated = run.measures[index]!.value;
        const base = pair ? pair.measures[index]!.value : null;
        if (treated === null || base === null) continue;
        differences.push({ replication_index: run.replication_index, difference: treated - base });
        baselineValues.push(base);
        treatmentValues.push(treated);
      }
      const stats = describe(differences.map((pair) => pair.difference));
      metrics.push({
        measure_id: measure.id,
        baseline_variant_id: baseline.id,
        treatment_variant_id: treatment.id,
        unit: measure.unit,
        n_pairs: differences.length,
        mean_baseline: describe(baselineValues).mean,
        mean_treatment: describe(treatmentValues).mean,
        mean_difference: stats.mean,
        sd_difference: stats.sd,
        interval_95: { low: stats.low, high: stats.high, level: 0.95 },
        differences,
        synthetic: true,
      });
    });
  }
  return { metrics, method: COMPARISON_METHOD };
}

/**
 * A variant's mean of a measure in a sentence, in its natural unit (resultWords.ts). The measured quantities cannot be
 * negative (nor a share of time above 100%): an interval past that is shown at the limit, with the reason, while
 * `numbers` keeps the computed bounds.
 */
export function summarySentence(variant: string, measure: MeasureForWords, scale: Scale, summary: MeanForWords): string {
  return `In the synthetic model, ${inSentence(measureHeading(measure))} under ${inSentence(variant)}: ${meanWords(summary, scale)}.`;
}

/** The measure as the thing people are part of: "the wait for a bed". */
function measureThe(measure: Measure): string {
  const label = inSentence(measureHeading(measure));
  return /^the\b/.test(label) ? label : `the ${label}`;
}

/** Findings: one sentence each with the numbers behind it, all labelled synthetic. */
export function findings(world: WorldSpec, summaries: MetricSummary[], comparison: Comparison, costs?: CostReport | null): Finding[] {
  const out: Finding[] = [];
  const measureById = new Map(world.measured.map((measure) => [measure.id, measure]));
  const variantLabel = new Map(world.variants.map((variant) => [variant.id, variant.label]));
  const push = (finding: Omit<Finding, 'contract' | 'version' | 'id' | 'label'>) =>
    out.push({ contract: 'Finding', version: RUN_RESULTS_VERSION, id: `finding_${out.length + 1}`, label: 'synthetic', ...finding });
  for (const summary of summaries) {
    const measure = measureById.get(summary.measure_id)!;
    const variant = variantLabel.get(summary.variant_id) ?? summary.variant_id;
    push({
      kind: 'summary',
      measure_id: summary.measure_id,
      variant_id: summary.variant_id,
      sentence: summarySentence(variant, measure, measureScale(world, measure), summary),
      numbers: { mean: summary.mean, interval_low: summary.interval_95.low, interval_high: summary.interval_95.high, n: summary.n },
    });
    if (summary.censored_count > 0) {
      const repetitions = summary.n + summary.replications_without_value;
      const censoring = (measure as { censoring: string }).censoring;
      push({
        kind: 'censoring',
        measure_id: summary.measure_id,
        variant_id: summary.variant_id,
        sentence: `Under ${inSentence(variant)}: ${inSentence(unfinishedWords(summary.censored_count, repetitions, censoring, measureThe(measure)))}`,
        numbers: { censored_count: summary.censored_count, still_waiting_at_end_mean: summary.still_waiting_at_end_mean },
      });
    }
  }
  for (const metric of comparison.metrics) {
    const measure = measureById.get(metric.measure_id)!;
    push({
      kind: 'difference',
      measure_id: metric.measure_id,
      variant_id: metric.treatment_variant_id,
      sentence: comparisonSentence(
        variantLabel.get(metric.treatment_variant_id) ?? metric.treatment_variant_id,
        variantLabel.get(metric.baseline_variant_id) ?? metric.baseline_variant_id,
        measure,
        measureScale(world, measure),
        metric,
      ),
      numbers: {
        mean_difference: metric.mean_difference,
        interval_low: metric.interval_95.low,
        interval_high: metric.interval_95.high,
        n_pairs: metric.n_pairs,
      },
    });
  }
  for (const variant of costs?.variants ?? []) {
    push({
      kind: 'cost',
      measure_id: null,
      variant_id: variant.variant_id,
      sentence:
        variant.total.base === null
          ? `The modelled cost of ${inSentence(variantLabel.get(variant.variant_id) ?? variant.variant_id)} is not known: ${variant.undefined_reasons.join('; ')}.`
          : `The modelled cost of ${inSentence(variantLabel.get(variant.variant_id) ?? variant.variant_id)} is ${moneyWords(variant.total.base, costs!.currency)} on average per repetition (low ${moneyWords(variant.total.low, costs!.currency)}, high ${moneyWords(variant.total.high, costs!.currency)}); additional costs are reported apart.`,
      numbers: { low: variant.total.low, base: variant.total.base, high: variant.total.high },
    });
  }
  return out;
}

export const COST_BASIS =
  'mean quantity per replication inside the measure window (events of a count measure, server-hours available or busy at the resource of a utilisation measure, entity-hours of a time_between measure) times the rate; additional costs are per replication or per hour, day, week or year of the window, reported apart; with discount_rate_annual every cost at time t after the warm-up is multiplied by (1 + rate)^-(t / 365.25 days) (per-replication amounts are not discounted)';

/** The quantity a rate prices from one replication's observation of its measure. */
function pricedQuantity(observation: MeasureObservation, per: string, discounted: boolean): number | null {
  if (per === 'event' && !discounted) return observation.observations;
  const quantities = discounted ? observation.priced_discounted : observation.priced;
  if (!quantities) return null;
  const value =
    per === 'event'
      ? quantities.events
      : per === 'capacity_hour'
        ? quantities.capacity_hours
        : per === 'busy_hour'
          ? quantities.busy_hours
          : quantities.entity_hours;
  return value ?? null;
}

/** Hours of the cost window (warm-up to horizon) an additional cost accrues over, discounted when the scenarios discount. */
function windowHours(world: WorldSpec): number {
  const hoursPerUnit = minutesPer(world.time_unit) / 60;
  const length = (world.horizon - world.warm_up) * hoursPerUnit;
  const rate = world.cost_scenarios?.discount_rate_annual ?? 0;
  if (!(rate > 0)) return length;
  const k = Math.log(1 + rate) / (DAYS_PER_YEAR * 24);
  return (1 - Math.exp(-k * length)) / k;
}

const HOURS_PER: Record<string, number> = { hour: 1, day: 24, week: 168, year: DAYS_PER_YEAR * 24 };

type CostScenarios = NonNullable<WorldSpec['cost_scenarios']>;
type VariantCosts = CostReport['variants'][number];
/** A low/base/high amount; null where a rate is unknown or nothing was measured. */
type Levels = { low: number | null; base: number | null; high: number | null };
const LEVELS = ['low', 'base', 'high'] as const;

/**
 * Cost report per variant: low/base/high totals from count measures times sourced rates. A null rate leaves the total
 * null with its reason, never zero (spec: cost_scenarios, "unknown costs leave totals undefined").
 */
export function costReport(world: WorldSpec, results: ReplicationResult[]): CostReport | null {
  const scenarios = world.cost_scenarios;
  if (!scenarios) return null;
  const measureIndex = new Map(world.measured.map((measure, index) => [measure.id, index]));
  return {
    currency: scenarios.currency,
    basis: COST_BASIS,
    ...(scenarios.discount_rate_annual !== undefined ? { discount_rate_annual: scenarios.discount_rate_annual } : {}),
    synthetic: true,
    variants: world.variants.map((variant) => {
      const runs = sortedResults(results, variant.id);
      const reasons: string[] = [];
      const total: Levels = { low: 0, base: 0, high: 0 };
      if (runs.length === 0) reasons.push(`no completed replications of variant '${variant.id}'`);
      const discounted = (scenarios.discount_rate_annual ?? 0) > 0;
      const lines = scenarios.rates.map((rate) => rateLine(rate, measureIndex.get(rate.measure), runs, discounted, total, reasons));
      return { variant_id: variant.id, lines, total, undefined_reasons: [...new Set(reasons)], ...additionalCosts(world, scenarios, variant.id) };
    }),
  };
}

/** One rate's line of a variant: its mean priced quantity times each level, added to `total` (null once any is unknown). */
function rateLine(
  rate: CostScenarios['rates'][number],
  index: number | undefined,
  runs: ReplicationResult[],
  discounted: boolean,
  total: Levels,
  reasons: string[],
): VariantCosts['lines'][number] {
  const per = rate.per ?? 'event';
  const counts = index === undefined ? [] : runs.map((run) => run.measures[index]!.observations);
  const quantities = index === undefined ? [] : runs.map((run) => pricedQuantity(run.measures[index]!, per, discounted));
  const meanQuantity =
    quantities.length > 0 && quantities.every((value) => value !== null)
      ? (quantities as number[]).reduce((sum, value) => sum + value, 0) / quantities.length
      : null;
  const meanCount = per === 'event' && counts.length > 0 ? counts.reduce((sum, value) => sum + value, 0) / counts.length : null;
  const cost: Levels = { low: null, base: null, high: null };
  for (const level of LEVELS) {
    const value = rate[level];
    if (value === null) {
      reasons.push(`the ${level} rate '${rate.id}' is unknown (${describeSource(rate.source)})`);
      total[level] = null;
    } else if (meanQuantity === null) total[level] = null;
    else {
      cost[level] = meanQuantity * value;
      if (total[level] !== null) total[level] = total[level]! + cost[level]!;
    }
  }
  return {
    rate_id: rate.id,
    measure_id: rate.measure,
    mean_count: meanCount,
    per,
    mean_quantity: meanQuantity,
    rate: { low: rate.low, base: rate.base, high: rate.high },
    cost,
    source: rate.source,
  };
}

/** The additional costs of one variant, reported apart from the rates' total. */
function additionalCosts(
  world: WorldSpec,
  scenarios: CostScenarios,
  variantId: string,
): Pick<VariantCosts, 'additional_costs' | 'additional_total' | 'additional_undefined_reasons'> {
  const reasons: string[] = [];
  const total: Levels = { low: 0, base: 0, high: 0 };
  const additional = (scenarios.additional_costs ?? [])
    .filter((extra) => extra.variants.includes(variantId))
    .map((extra) => {
      const cost: Levels = { low: null, base: null, high: null };
      for (const level of LEVELS) {
        const value = extra[level];
        if (value === null) {
          reasons.push(`the ${level} amount of additional cost '${extra.id}' is unknown (${describeSource(extra.source)})`);
          total[level] = null;
          continue;
        }
        cost[level] = extra.per === 'replication' ? value : (value * windowHours(world)) / HOURS_PER[extra.per]!;
        if (total[level] !== null) total[level] = total[level]! + cost[level]!;
      }
      return { id: extra.id, label: extra.label, per: extra.per, cost, source: extra.source };
    });
  return {
    additional_costs: additional,
    additional_total: additional.length > 0 ? total : { low: 0, base: 0, high: 0 },
    additional_undefined_reasons: [...new Set(reasons)],
  };
}

function describeSource(source: { kind: string; reference?: string; rationale?: string; note?: string }): string {
  if (source.kind === 'literature') return `source: ${source.reference}`;
  if (source.kind === 'assumption') return `assumption: ${source.rationale}`;
  return `user declared${source.note ? `: ${source.note}` : ''}`;
}

export type StoredTraceEvent = TraceEvent & { variant_id: string; replication_index: number };

export type EventTrace = {
  /** every event of replication 0 of each variant, up to the cap per variant, in variant then time order */
  events: StoredTraceEvent[];
  cap_per_variant: number;
  truncated_variants: string[];
  /** per-replication event counts of every replication */
  replication_counts: ReplicationCount[];
  description: string;
};

export const EVENT_TRACE_DESCRIPTION = `every state change (arrival, enter, queue, start, end, renege, leave, capacity) of replication 0 of each variant, up to ${EVENT_TRACE_CAP_PER_VARIANT} per variant, plus per-replication event counts of all replications`;

/** Builds the stored trace from replication results (run replication 0 with trace_limit = EVENT_TRACE_CAP_PER_VARIANT). */
export function eventTrace(world: WorldSpec, results: ReplicationResult[]): EventTrace {
  const events: StoredTraceEvent[] = [];
  const truncated: string[] = [];
  for (const variant of world.variants) {
    const first = results.find((result) => result.variant_id === variant.id && result.replication_index === 0);
    if (!first?.trace) continue;
    for (const event of first.trace.slice(0, EVENT_TRACE_CAP_PER_VARIANT)) events.push({ ...event, variant_id: variant.id, replication_index: 0 });
    if (first.trace_truncated) truncated.push(variant.id);
  }
  const order = new Map(world.variants.map((variant, index) => [variant.id, index]));
  const replicationCounts = [...results]
    .sort((a, b) => (order.get(a.variant_id) ?? 0) - (order.get(b.variant_id) ?? 0) || a.replication_index - b.replication_index)
    .map((result) => ({
      variant_id: result.variant_id,
      replication_index: result.replication_index,
      events_total: result.event_counts.events_total,
      arrivals: result.event_counts.arrivals,
      exits: result.event_counts.exits,
      reneges: result.event_counts.reneges,
    }));
  return {
    events,
    cap_per_variant: EVENT_TRACE_CAP_PER_VARIANT,
    truncated_variants: truncated,
    replication_counts: replicationCounts,
    description: EVENT_TRACE_DESCRIPTION,
  };
}

/** One page of stored trace events (spec: run events `limit`, `offset`, `next_offset`, `events_included`). */
export function pageEvents(
  events: StoredTraceEvent[],
  limit: number,
  offset: number,
): { events: StoredTraceEvent[]; next_offset: number | null; events_included: number } {
  const page = events.slice(offset, offset + limit);
  const next = offset + page.length;
  return { events: page, next_offset: next < events.length ? next : null, events_included: events.length };
}
