// The single-thread path of a run and the job order shared with the worker pool.
// Jobs go replication-major (replication 0 of every variant, then replication 1, ...), so a run stopped early by its
// budget, wall clock or a cancel still holds complete baseline/treatment pairs for comparison.
import type { WorldSpec } from '../contracts/worldSpec.ts';
import { type ReplicationResult, runReplication } from './engine.ts';
import { EVENT_TRACE_CAP_PER_VARIANT, REPLICATIONS_MAX } from './limits.ts';
import { type CompiledModel, compileModel } from './model.ts';
import { compare, summarize } from './results.ts';

/** Replications per variant before a `stop_when` rule is checked, unless the world names its own. */
export const STOP_WHEN_MIN_REPLICATIONS_DEFAULT = 5;

/**
 * The `stop_when` rule: true once every variant has at least the minimum replications and the 95% interval of the
 * named measure has at most the target half-width for every variant and every treatment's paired difference.
 * Results are the complete pairs kept so far.
 */
export function precisionReached(world: WorldSpec, results: ReplicationResult[]): boolean {
  const rule = world.stop_when;
  if (!rule) return false;
  const minimum = rule.min_replications ?? STOP_WHEN_MIN_REPLICATIONS_DEFAULT;
  const halfWidth = (low: number | null, high: number | null) => (low === null || high === null ? Number.POSITIVE_INFINITY : (high - low) / 2);
  const summaries = summarize(world, results).filter((summary) => summary.measure_id === rule.measure);
  if (summaries.length < world.variants.length) return false;
  for (const summary of summaries) if (summary.n < minimum || halfWidth(summary.interval_95.low, summary.interval_95.high) > rule.half_width) return false;
  for (const metric of compare(world, results).metrics) {
    if (metric.measure_id === rule.measure && halfWidth(metric.interval_95.low, metric.interval_95.high) > rule.half_width) return false;
  }
  return true;
}

export type ReplicationJob = { variant_id: string; replication_index: number; trace_limit: number };

/** Every replication of every variant, in dispatch order; replication 0 of each variant carries the event trace. */
export function replicationJobs(world: WorldSpec, replications = world.replications): ReplicationJob[] {
  const jobs: ReplicationJob[] = [];
  const count = Math.min(replications, REPLICATIONS_MAX);
  for (let replication = 0; replication < count; replication++) {
    for (const variant of world.variants)
      jobs.push({ variant_id: variant.id, replication_index: replication, trace_limit: replication === 0 ? EVENT_TRACE_CAP_PER_VARIANT : 0 });
  }
  return jobs;
}

export type RunProgress = { result: ReplicationResult; completed: number; total: number; events_simulated: number };

/**
 * Runs jobs one after another on this thread. `onReplication` sees each result and may return 'stop' (budget reached,
 * wall clock, cancel) to end the run between replications.
 */
export function runSequential(
  world: WorldSpec,
  options: { jobs?: ReplicationJob[]; onReplication?: (progress: RunProgress) => 'stop' | undefined } = {},
): ReplicationResult[] {
  const jobs = options.jobs ?? replicationJobs(world);
  const models = new Map<string, CompiledModel>();
  const results: ReplicationResult[] = [];
  let events = 0;
  for (const job of jobs) {
    let model = models.get(job.variant_id);
    if (!model) {
      model = compileModel(world, job.variant_id);
      models.set(job.variant_id, model);
    }
    const result = runReplication(world, job, model);
    results.push(result);
    events += result.event_counts.events_total;
    if (options.onReplication?.({ result, completed: results.length, total: jobs.length, events_simulated: events }) === 'stop') break;
    // stop_when: checked when a replication index completes for every variant (jobs are replication-major).
    if (world.stop_when && results.length % world.variants.length === 0 && precisionReached(world, results)) break;
  }
  return results;
}

/**
 * Holds replication results until every variant of their replication index has one, then releases the group, so a
 * run stopped by its budget, its wall clock or a cancel keeps only complete baseline/treatment pairs for every variant
 * (docs/simulation.md, Complete pairs). Results arrive in any order from the pool.
 */
export class PairGate {
  readonly #variants: number;
  readonly #have = new Map<number, number>();
  readonly #waiting = new Map<number, ReplicationResult[]>();

  /** `stored`: replications already kept by an earlier attempt (they count towards completing their group). */
  constructor(world: WorldSpec, stored: { replication_index: number }[] = []) {
    this.#variants = world.variants.length;
    for (const entry of stored) this.#have.set(entry.replication_index, (this.#have.get(entry.replication_index) ?? 0) + 1);
  }

  /** Adds a result; returns the results of its replication index not yet released once the group is complete, else []. */
  add(result: ReplicationResult): ReplicationResult[] {
    const index = result.replication_index;
    const have = (this.#have.get(index) ?? 0) + 1;
    this.#have.set(index, have);
    const waiting = this.#waiting.get(index) ?? [];
    waiting.push(result);
    if (have < this.#variants) {
      this.#waiting.set(index, waiting);
      return [];
    }
    this.#waiting.delete(index);
    return waiting;
  }

  /** Results held back because their group is incomplete (discarded when the run stops). */
  held(): ReplicationResult[] {
    return [...this.#waiting.values()].flat();
  }
}
