// World run bodies (spec: Projects, worlds, runs; WorldSpec and run; Run states): the estimate and create request, the
// run as polled, its results, its paged event trace, the paired comparison and the export link.
import { type TSchemaOptions, Type } from 'typebox';
import { Credits, CREDITS_MAX, Described, Id, LiteralUnion, Timestamp } from './common.ts';
import { DeprecatedJobError, JobFailureField } from './jobFailure.ts';
import { ModelWarning } from './worlds.ts';
import { CostReport, Finding, MetricComparison, MetricSummary, ReplicationCount, RunManifest } from './runResults.ts';

/** spec: Run states. */
export const RUN_STATUSES = ['queued', 'running', 'succeeded', 'timed_out', 'canceled', 'failed'] as const;
/** Why a run stopped before its replications were all done. */
export const STOP_REASONS = ['budget', 'wall_clock'] as const;
/** Why a run may not start: its world exceeds a run limit, its budget is below the estimate, or the balance is short. */
export const RUN_ISSUE_KINDS = ['world_limit', 'budget', 'balance'] as const;

/** A run or world revision id as a request names it. */
export const RUN_ID_LENGTH_MAX = 64;
export const WORLD_REVISION_ID_LENGTH_MAX = 64;
/** Run events are paged up to this many per request (the trace holds at most EVENT_TRACE_CAP_PER_VARIANT per variant). */
export const RUN_EVENTS_PAGE_LIMIT_MAX = 1000;
export const RUN_EVENTS_PAGE_LIMIT_DEFAULT = 100;

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T, options?: TSchemaOptions) => Type.Union([schema, Type.Null()], options);

// spec: Limits — credit integers at most 9007199254740991; a budget of 0 could run nothing.
const Budget = Type.Integer({ minimum: 1, maximum: CREDITS_MAX, description: 'the most this run may cost, in credits (1 to 9007199254740991)' });
/** POST /v1/runs/estimate and POST /v1/runs. */
export const RunRequest = Type.Object(
  { world_revision_id: Type.String({ minLength: 1, maxLength: WORLD_REVISION_ID_LENGTH_MAX }), budget_limit_credits: Budget },
  { additionalProperties: false },
);
export const CompareRequest = Type.Object({ run_id: Type.String({ minLength: 1, maxLength: RUN_ID_LENGTH_MAX }) }, { additionalProperties: false });

export const RunIssue = Type.Object({
  kind: LiteralUnion(RUN_ISSUE_KINDS),
  pointer: Type.String({ description: 'JSON pointer: into the world for world_limit, into the request body otherwise' }),
  message: Type.String(),
});
export const RunEstimateBody = Type.Object({
  runnable: Type.Boolean(),
  issues: Type.Array(RunIssue),
  reserved_credits: Credits,
  available_credits: Credits,
  budget_limit_credits: Credits,
  credits_estimate: Credits,
  events_estimate: Type.Integer({ minimum: 0 }),
  events_per_replication_estimate: Type.Record(Type.String(), Type.Integer({ minimum: 0 })),
  cost_model: Type.String(),
  warnings: Type.Array(ModelWarning, {
    description: 'the model check: what would make this run a comparison of nothing, in words; a run can still be started',
  }),
});

export const Run = Type.Object({
  run_id: Id('run'),
  org_id: Id('org'),
  project_id: Id('proj'),
  world_revision_id: Id('wrev'),
  status: LiteralUnion(RUN_STATUSES),
  budget_limit_credits: Credits,
  credits_estimate: Credits,
  events_estimate: Type.Integer({ minimum: 0 }),
  credits_reserved: Credits,
  /** null until the credits are settled (after the run ends) */
  credits_used: Nullable(Credits),
  replications_requested: Type.Integer({ minimum: 0 }),
  replications_completed: Type.Integer({ minimum: 0 }),
  /** events of the kept (stored) replications */
  events_simulated: Type.Integer({ minimum: 0 }),
  /** events computed but not kept: replications finishing after a cancel or a stop, charged as work done */
  events_discarded: Type.Integer({ minimum: 0 }),
  stop_reason: Nullable(LiteralUnion(STOP_REASONS)),
  wall_clock_limit_seconds: Type.Integer({ minimum: 1 }),
  failure: JobFailureField,
  error: DeprecatedJobError,
  results_available: Type.Boolean(),
  created_by: Type.String(),
  created_at: Timestamp,
  started_at: Nullable(Timestamp),
  finished_at: Nullable(Timestamp),
  settled_at: Nullable(Timestamp),
});

// The named contracts keep their schema (and their `$id` at /v1/schemas/{name}); the OpenAPI document inlines them.
/** POST /v1/runs answers the run with the model check's warnings on its world revision (the estimate's). */
export const RunCreated = Type.Object(
  {
    ...Run.properties,
    warnings: Type.Array(ModelWarning, { description: 'the model check of the world revision, as the estimate gave it; the run was started anyway' }),
  },
  { description: 'the run, queued, with the model check of its world' },
);

export const RunResultsBody = Type.Object({
  run_id: Id('run'),
  status: Type.String(),
  synthetic: Type.Literal(true),
  manifest: Described(RunManifest, 'RunManifest 1.0.0 (schema at /v1/schemas/RunManifest)'),
  metrics: Type.Array(MetricSummary, { description: 'MetricSummary 1.0.0 (schema at /v1/schemas/MetricSummary), one per measure and variant' }),
  findings: Type.Array(Finding, { description: 'Finding 1.0.0 (schema at /v1/schemas/Finding), each labelled synthetic' }),
  cost_report: Nullable(CostReport, { description: 'low/base/high per variant with additional costs apart; null when the world has no cost_scenarios' }),
  replication_counts: Type.Array(ReplicationCount, { description: 'per-replication event counts of every replication' }),
  trace: Type.Object({ events_included: Type.Integer({ minimum: 0 }), cap_per_variant: Type.Integer(), description: Type.String() }),
});
export const RunEventsPage = Type.Object({
  events: Type.Array(
    Type.Object({
      variant_id: Type.String(),
      replication_index: Type.Integer(),
      sequence: Type.Integer(),
      time: Type.Number(),
      kind: Type.String(),
      entity: Nullable(Type.Integer(), {
        description: "the person, numbered in the order they arrived in the repetition from 0 (never another person's number); null for a resource's event",
      }),
      step: Nullable(Type.String()),
      resource: Nullable(Type.String()),
      value: Nullable(Type.Number()),
    }),
  ),
  next_offset: Nullable(Type.Integer()),
  events_included: Type.Integer({ minimum: 0, description: 'stored events in the whole trace' }),
  description: Type.String(),
});
export const RunComparison = Type.Object({
  run_id: Id('run'),
  metrics: Type.Array(MetricComparison, { description: 'one paired comparison per treatment variant and measure' }),
  method: Type.String(),
  synthetic: Type.Literal(true),
});
export const RunExportLink = Type.Object({ url: Type.String(), expires_at: Timestamp });
