// Run result contracts: RunManifest, MetricSummary and Finding at 1.0.0 (spec: Versioning; WorldSpec and run),
// plus the shapes of a comparison and a cost report. Every result of a world run is synthetic: it describes the model, not the world.
import { type Static, Type } from 'typebox';
import { SettingSource } from './worldSpec.ts';

export const RUN_RESULTS_VERSION = '1.0.0';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);
export const Interval = Type.Object(
  { low: Nullable(Type.Number()), high: Nullable(Type.Number()), level: Type.Literal(0.95) },
  { additionalProperties: false },
);

export const RunManifest = Type.Object(
  {
    contract: Type.Literal('RunManifest'),
    version: Type.Literal(RUN_RESULTS_VERSION),
    run_id: Type.String(),
    world_revision_id: Type.String(),
    world_name: Type.String(),
    engine_version: Type.String(),
    seed: Type.Integer({ minimum: 0 }),
    /** the random streams of replication r are seeded by (seed, r, source name); see docs/simulation.md */
    seed_scheme: Type.String(),
    status: Type.Union([Type.Literal('succeeded'), Type.Literal('timed_out'), Type.Literal('canceled'), Type.Literal('failed')]),
    variants: Type.Array(
      Type.Object({ variant_id: Type.String(), role: Type.String(), replications_completed: Type.Integer({ minimum: 0 }) }, { additionalProperties: false }),
    ),
    replications_requested: Type.Integer({ minimum: 0 }),
    replications_completed: Type.Integer({ minimum: 0 }),
    events_simulated: Type.Integer({ minimum: 0 }),
    started_at: Type.String({ format: 'date-time' }),
    finished_at: Type.String({ format: 'date-time' }),
    wall_clock_ms: Type.Integer({ minimum: 0 }),
    credits_reserved: Type.Integer({ minimum: 0 }),
    credits_used: Type.Integer({ minimum: 0 }),
    synthetic: Type.Literal(true),
  },
  { $id: 'https://crucible.dev/schemas/RunManifest/1.0.0', additionalProperties: false },
);

export const MetricSummary = Type.Object(
  {
    contract: Type.Literal('MetricSummary'),
    version: Type.Literal(RUN_RESULTS_VERSION),
    measure_id: Type.String(),
    variant_id: Type.String(),
    kind: Type.String(),
    unit: Type.String(),
    denominator: Type.String(),
    /** replications with a value */
    n: Type.Integer({ minimum: 0 }),
    mean: Nullable(Type.Number()),
    sd: Nullable(Type.Number()),
    interval_95: Interval,
    /** median over replications of the replication values (each replication's mean for time_between): NOT an entity-level percentile */
    median: Nullable(
      Type.Number({
        description:
          'median over replications of the replication values (for time_between, of replication means); not an entity-level percentile, see entity_percentiles',
      }),
    ),
    /** 90th percentile over replications of the replication values: NOT an entity-level percentile */
    p90: Nullable(
      Type.Number({
        description:
          '90th percentile over replications of the replication values (for time_between, of replication means); not an entity-level percentile, see entity_percentiles',
      }),
    ),
    /** time_between with `percentiles`: entity-level quantiles pooled over every entity of every replication */
    entity_percentiles: Type.Optional(
      Type.Array(Type.Object({ quantile: Type.Number(), value: Nullable(Type.Number()) }, { additionalProperties: false }), {
        description: 'entity-level quantiles of the measured time, pooled over all entities of all replications (DDSketch, 1% relative accuracy)',
      }),
    ),
    /** time_between with `threshold`: share of entities over it */
    over_threshold: Type.Optional(
      Type.Object(
        {
          threshold: Type.Number(),
          entities_over: Type.Number({ minimum: 0 }),
          entities: Type.Number({ minimum: 0 }),
          share: Nullable(Type.Number({ description: 'entities over the threshold / entities measured, pooled over replications' })),
          share_interval_95: Interval,
        },
        { additionalProperties: false },
      ),
    ),
    /** sum over replications of entities censored at the horizon (time_between) */
    censored_count: Type.Integer({ minimum: 0 }),
    /** mean over replications of what was still waiting at the end, reported beside the measure */
    still_waiting_at_end_mean: Nullable(Type.Number()),
    observations_total: Type.Number({ minimum: 0 }),
    replications_without_value: Type.Integer({ minimum: 0 }),
    synthetic: Type.Literal(true),
  },
  { $id: 'https://crucible.dev/schemas/MetricSummary/1.0.0', additionalProperties: false },
);

export const Finding = Type.Object(
  {
    contract: Type.Literal('Finding'),
    version: Type.Literal(RUN_RESULTS_VERSION),
    id: Type.String(),
    label: Type.Literal('synthetic'),
    kind: Type.Union([Type.Literal('summary'), Type.Literal('difference'), Type.Literal('censoring'), Type.Literal('cost')]),
    sentence: Type.String(),
    measure_id: Nullable(Type.String()),
    variant_id: Nullable(Type.String()),
    numbers: Type.Record(Type.String(), Nullable(Type.Number())),
  },
  { $id: 'https://crucible.dev/schemas/Finding/1.0.0', additionalProperties: false },
);

export const MetricComparison = Type.Object(
  {
    measure_id: Type.String(),
    baseline_variant_id: Type.String(),
    treatment_variant_id: Type.String(),
    unit: Type.String(),
    /** replications where both variants have a value (common random numbers pair replication r with replication r) */
    n_pairs: Type.Integer({ minimum: 0 }),
    mean_baseline: Nullable(Type.Number()),
    mean_treatment: Nullable(Type.Number()),
    /** treatment minus baseline */
    mean_difference: Nullable(Type.Number()),
    sd_difference: Nullable(Type.Number()),
    interval_95: Interval,
    differences: Type.Array(Type.Object({ replication_index: Type.Integer({ minimum: 0 }), difference: Type.Number() }, { additionalProperties: false })),
    synthetic: Type.Literal(true),
  },
  { additionalProperties: false },
);

export const Comparison = Type.Object({ metrics: Type.Array(MetricComparison), method: Type.String() }, { additionalProperties: false });

export const LowBaseHigh = Type.Object(
  { low: Nullable(Type.Number()), base: Nullable(Type.Number()), high: Nullable(Type.Number()) },
  { additionalProperties: false },
);

export const CostReport = Type.Object(
  {
    currency: Type.String(),
    basis: Type.String(),
    discount_rate_annual: Type.Optional(Type.Number()),
    variants: Type.Array(
      Type.Object(
        {
          variant_id: Type.String(),
          lines: Type.Array(
            Type.Object(
              {
                rate_id: Type.String(),
                measure_id: Type.String(),
                mean_count: Nullable(Type.Number()),
                /** what the rate is per (event, capacity_hour, busy_hour, entity_hour) and the mean quantity priced per replication (discounted when the scenarios discount) */
                per: Type.Optional(Type.String()),
                mean_quantity: Type.Optional(Nullable(Type.Number())),
                rate: LowBaseHigh,
                cost: LowBaseHigh,
                source: SettingSource,
              },
              { additionalProperties: false },
            ),
          ),
          total: LowBaseHigh,
          /** why a total is null: each unknown rate or missing count, named */
          undefined_reasons: Type.Array(Type.String()),
          additional_costs: Type.Array(
            Type.Object(
              { id: Type.String(), label: Type.String(), per: Type.String(), cost: LowBaseHigh, source: SettingSource },
              { additionalProperties: false },
            ),
          ),
          additional_total: LowBaseHigh,
          additional_undefined_reasons: Type.Array(Type.String()),
        },
        { additionalProperties: false },
      ),
    ),
    synthetic: Type.Literal(true),
  },
  { additionalProperties: false },
);

/** Per-replication event counts of every replication of a run, in variant then replication order. */
export const ReplicationCount = Type.Object(
  {
    variant_id: Type.String(),
    replication_index: Type.Integer({ minimum: 0 }),
    events_total: Type.Integer({ minimum: 0 }),
    arrivals: Type.Integer({ minimum: 0 }),
    exits: Type.Integer({ minimum: 0 }),
    reneges: Type.Integer({ minimum: 0 }),
  },
  { additionalProperties: false },
);

export type RunManifest = Static<typeof RunManifest>;
export type MetricSummary = Static<typeof MetricSummary>;
export type Finding = Static<typeof Finding>;
export type MetricComparison = Static<typeof MetricComparison>;
export type Comparison = Static<typeof Comparison>;
export type CostReport = Static<typeof CostReport>;
export type ReplicationCount = Static<typeof ReplicationCount>;
