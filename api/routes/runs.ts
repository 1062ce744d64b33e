// Runs (spec: Projects, worlds, runs; Run states): estimate, create under a credit budget (the
// world-run workflow `run-<id>`), poll, cancel, results, the bounded event trace, paired comparison and signed-link
// ZIP exports. The run row is the source of truth; the workflow moves it through its states.
import type { Context } from 'koa';
import { Type } from 'typebox';
import { cancelJob, startJob } from '../../integrations/temporal/jobs.ts';
import type { Scope } from '../../domain/accounts/rules.ts';
import type { WorldSpec } from '../../domain/contracts/worldSpec.ts';
import { ServiceError } from '../../domain/errors.ts';
import {
  buildExportFiles,
  buildManifest,
  compare,
  costReport,
  estimateRun,
  eventTrace,
  findings,
  type ReplicationResult,
  type RunEstimate,
  summarize,
} from '../../domain/simulation/index.ts';
import '../../domain/simulation/register.ts';
import { admitRun, type RunIssue } from '../../domain/simulation/pricing.ts';
import { EVENT_TRACE_DESCRIPTION } from '../../domain/simulation/results.ts';
import { zipExport } from '../../compute/simulation/export.ts';
import { assertCanCover, balances, lockCredits } from '../../store/credits/ledger.ts';
import { EXPORT_LINK_LIFETIME_SECONDS, signExportToken, verifyExportToken } from '../../store/runs/exportLinks.ts';
import {
  allRunEvents,
  cancelRun,
  countRunEvents,
  createRun,
  getRun,
  listRuns,
  loadReplications,
  pageRunEvents,
  RESULT_STATUSES,
  type RunView,
  unreservedRunCredits,
} from '../../store/runs/runs.ts';
import type { WorldRevisionView } from '../../store/worlds/worlds.ts';
import { getWorldRevision } from '../../store/worlds/worlds.ts';
import { authorizeOwned} from '../auth.ts';
import type { AppDeps } from '../context.ts';
import { page} from '../http.ts';
import { idempotent, respond } from '../idempotency.ts';
import { route, type RouteDef } from '../registry.ts';
import { CREDITS_MAX, Credits, Id, Page, PageQuery, pageQuery, Timestamp } from '../schemas.ts';
import { loadProject } from './projects.ts';
import { loadWorldRevision } from './worlds.ts';

/** Run events are paged up to this many per request (the trace holds at most EVENT_TRACE_CAP_PER_VARIANT per variant). */
export const RUN_EVENTS_PAGE_LIMIT_MAX = 1000;
export const RUN_EVENTS_PAGE_LIMIT_DEFAULT = 100;

// spec: Limits — credit integers at most 9007199254740991; a budget of 0 could run nothing.
const Budget = Type.Integer({ minimum: 1, maximum: CREDITS_MAX, description: 'the most this run may cost, in credits (1 to 9007199254740991)' });
const RunRequest = Type.Object({ world_revision_id: Type.String({ minLength: 1, maxLength: 64 }), budget_limit_credits: Budget }, { additionalProperties: false });
const CompareRequest = Type.Object({ run_id: Type.String({ minLength: 1, maxLength: 64 }) }, { additionalProperties: false });

const Issue = Type.Object({
  kind: Type.Union([Type.Literal('world_limit'), Type.Literal('budget'), Type.Literal('balance')]),
  pointer: Type.String({ description: 'JSON pointer: into the world for world_limit, into the request body otherwise' }),
  message: Type.String(),
});
const EstimateOut = Type.Object({
  runnable: Type.Boolean(),
  issues: Type.Array(Issue),
  reserved_credits: Credits,
  available_credits: Credits,
  budget_limit_credits: Credits,
  credits_estimate: Credits,
  events_estimate: Type.Integer({ minimum: 0 }),
  events_per_replication_estimate: Type.Record(Type.String(), Type.Integer({ minimum: 0 })),
  cost_model: Type.String(),
});
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);
const RunOut = Type.Object({
  run_id: Id('run'),
  org_id: Id('org'),
  project_id: Id('proj'),
  world_revision_id: Id('wrev'),
  status: Type.Union(['queued', 'running', 'succeeded', 'timed_out', 'canceled', 'failed'].map((s) => Type.Literal(s))),
  budget_limit_credits: Credits,
  credits_estimate: Credits,
  events_estimate: Type.Integer({ minimum: 0 }),
  credits_reserved: Credits,
  credits_used: Nullable(Credits),
  replications_requested: Type.Integer({ minimum: 0 }),
  replications_completed: Type.Integer({ minimum: 0 }),
  events_simulated: Type.Integer({ minimum: 0 }),
  events_discarded: Type.Integer({ minimum: 0 }),
  stop_reason: Nullable(Type.Union([Type.Literal('budget'), Type.Literal('wall_clock')])),
  wall_clock_limit_seconds: Type.Integer({ minimum: 1 }),
  error: Nullable(Type.Object({ code: Type.String(), message: Type.String() })),
  results_available: Type.Boolean(),
  created_by: Type.String(),
  created_at: Timestamp,
  started_at: Nullable(Timestamp),
  finished_at: Nullable(Timestamp),
  settled_at: Nullable(Timestamp),
});
const Contract = (name: string, extra = '') => Type.Unknown({ description: `${name} 1.0.0 (schema at /v1/schemas/${name})${extra}` });
const ResultsOut = Type.Object({
  run_id: Id('run'),
  status: Type.String(),
  synthetic: Type.Literal(true),
  manifest: Contract('RunManifest'),
  metrics: Type.Array(Contract('MetricSummary', ', one per measure and variant')),
  findings: Type.Array(Contract('Finding', ', each labelled synthetic')),
  cost_report: Type.Unknown({ description: 'low/base/high per variant with additional costs apart; null when the world has no cost_scenarios' }),
  replication_counts: Type.Array(Type.Unknown()),
  trace: Type.Object({ events_included: Type.Integer({ minimum: 0 }), cap_per_variant: Type.Integer(), description: Type.String() }),
});
const EventsOut = Type.Object({
  events: Type.Array(
    Type.Object({
      variant_id: Type.String(),
      replication_index: Type.Integer(),
      sequence: Type.Integer(),
      time: Type.Number(),
      kind: Type.String(),
      entity: Nullable(Type.Integer()),
      step: Nullable(Type.String()),
      resource: Nullable(Type.String()),
      value: Nullable(Type.Number()),
    }),
  ),
  next_offset: Nullable(Type.Integer()),
  events_included: Type.Integer({ minimum: 0, description: 'stored events in the whole trace' }),
  description: Type.String(),
});
const CompareOut = Type.Object({ run_id: Id('run'), metrics: Type.Array(Type.Unknown()), method: Type.String(), synthetic: Type.Literal(true) });
const ExportOut = Type.Object({ url: Type.String(), expires_at: Timestamp });


// ---------- loading ----------

/** Loads a run the caller may act on; another organization's run is a plain 404. */
async function loadRun(deps: AppDeps, ctx: Context, id: string, scope: Scope): Promise<RunView> {
  return authorizeOwned(deps, ctx, `Run ${id}`, id.length <= 64 ? await getRun(deps.db, id) : undefined, { scope });
}

function requireResults(run: RunView): void {
  if (!RESULT_STATUSES.includes(run.status)) {
    throw new ServiceError(
      'CONFLICT',
      `Run ${run.run_id} is ${run.status}; results can be read after it has succeeded or timed out (spec: Run states). Poll GET /v1/runs/${run.run_id}.`,
      { status: run.status },
    );
  }
}

type RunResults = { world: WorldSpec; revision: WorldRevisionView; results: ReplicationResult[] };

async function runResults(deps: AppDeps, run: RunView): Promise<RunResults> {
  const revision = (await getWorldRevision(deps.db, run.world_revision_id))!;
  const results = await loadReplications(
    deps.db,
    run.run_id,
    revision.world.variants.map((variant) => variant.id),
  );
  return { world: revision.world, revision, results };
}

function manifestOf(run: RunView, loaded: RunResults) {
  return buildManifest({
    run_id: run.run_id,
    world_revision_id: run.world_revision_id,
    world: loaded.world,
    results: loaded.results,
    status: run.status as 'succeeded' | 'timed_out',
    started_at: new Date(run.started_at ?? run.created_at),
    finished_at: new Date(run.finished_at ?? run.started_at ?? run.created_at),
    credits_reserved: run.credits_reserved,
    credits_used: run.credits_used ?? 0,
  });
}

// ---------- estimate ----------

type EstimateView = {
  runnable: boolean;
  issues: RunIssue[];
  reserved_credits: number;
  available_credits: number;
  budget_limit_credits: number;
  credits_estimate: number;
  events_estimate: number;
  events_per_replication_estimate: Record<string, number>;
  cost_model: string;
};

function estimateView(estimate: RunEstimate, budget_limit_credits: number, available_credits: number): EstimateView {
  const admission = admitRun(estimate, budget_limit_credits, available_credits);
  return {
    runnable: admission.runnable,
    issues: admission.issues,
    reserved_credits: admission.credits_reserved,
    available_credits,
    budget_limit_credits,
    credits_estimate: estimate.credits_estimate,
    events_estimate: estimate.events_estimate,
    events_per_replication_estimate: estimate.events_per_replication_estimate,
    cost_model: estimate.cost_model,
  };
}

// ---------- workflow ----------

// ---------- routes ----------

export function runRoutes(deps: AppDeps): RouteDef[] {
  const { db, config } = deps;
  return [
    route({
      method: 'post',
      path: '/v1/runs/estimate',
      operation_id: 'estimateRun',
      summary: 'Estimate a run: runnable, issues, reserved_credits, available_credits (answers 200 also when not runnable)',
      tag: 'runs',
      auth: 'user',
      scope: 'read',
      role: 'member',
      body: RunRequest,
      responses: { 200: { description: 'the estimate; runnable false lists every issue', schema: EstimateOut } },
      handler: async (ctx, input) => {
        const body = input.body;
        const revision = await loadWorldRevision(deps, ctx, body.world_revision_id, 'read');
        // What a create would be admitted against: the balance less what admitted runs have not reserved yet.
        const available = Math.max(0, (await balances(db, revision.org_id)).available_credits - (await unreservedRunCredits(db, revision.org_id)));
        ctx.body = estimateView(estimateRun(revision.world), body.budget_limit_credits, available);
      },
    }),
    route({
      method: 'post',
      path: '/v1/runs',
      operation_id: 'createRun',
      starts_job: 'the run',
      summary: 'Create a run of a world revision under a credit budget and start it (the world-run workflow)',
      tag: 'runs',
      auth: 'user',
      scope: 'run',
      role: 'member',
      idempotency: 'optional',
      body: RunRequest,
      responses: {
        202: { description: 'the run, queued; poll GET /v1/runs/{run_id}', schema: RunOut },
        402: { description: 'INSUFFICIENT_CREDITS: the balance cannot cover the reservation' },
        422: { description: 'VALIDATION_FAILED: the budget is below the estimate, or the world exceeds a run limit' },
      },
      handler: async (ctx, input) => {
        const body = input.body;
        const revision = await loadWorldRevision(deps, ctx, body.world_revision_id, 'run');
        const { user_id } = input.auth;
        const estimate = estimateRun(revision.world);
        // The same rule as the estimate; the balance is checked inside the creating transaction.
        const admission = admitRun(estimate, body.budget_limit_credits, null);
        if (!admission.runnable) {
          const first = admission.issues[0]!;
          throw new ServiceError(
            'VALIDATION_FAILED',
            first.kind === 'budget'
              ? `${first.message} (POST /v1/runs/estimate shows the cost model).`
              : `The world cannot run: ${first.message}. Reduce it below the named limits and save a new revision.`,
            admission.issues.map((issue) => ({ path: issue.pointer, message: issue.message, ...(issue.kind === 'budget' ? { credits_estimate: estimate.credits_estimate } : {}) })),
          );
        }
        const { credits_reserved } = admission;
        const outcome = await idempotent(db, ctx, { owner_id: revision.org_id, hashed_body: body }, async (tx) => {
          // Admission under the organization's credit lock, counting runs admitted but not yet reserved: of concurrent
          // creates beyond the balance, the extra ones get 402 now, and nothing is queued for them. A refusal rolls
          // back with the idempotency record, so a retry with the same key after adding credits is admitted.
          await lockCredits(tx, revision.org_id);
          await assertCanCover(tx, revision.org_id, credits_reserved, await unreservedRunCredits(tx, revision.org_id));
          const run = await createRun(tx, {
            org_id: revision.org_id,
            project_id: revision.project_id,
            world_revision_id: revision.world_revision_id,
            budget_limit_credits: body.budget_limit_credits,
            credits_estimate: estimate.credits_estimate,
            events_estimate: estimate.events_estimate,
            credits_reserved,
            replications_requested: revision.world.replications * revision.world.variants.length,
            wall_clock_limit_seconds: config.run_wall_clock_limit_seconds,
            created_by: user_id,
          });
          return { status: 202, body: run };
        });
        // After the commit, on replays too: the deterministic id makes a repeated start a no-op.
        const run = outcome.body as RunView;
        await startJob(deps.temporal, { kind: 'run', resource_id: run.run_id, org_id: run.org_id, project_id: run.project_id }, { run_id: run.run_id });
        respond(ctx, outcome);
      },
    }),
    route({
      method: 'get',
      path: '/v1/runs/{run_id}',
      operation_id: 'getRun',
      summary: 'Run status, progress and credits; poll explicitly',
      tag: 'runs',
      auth: 'user',
      scope: 'read',
      role: 'member',
      pollable: true,
      responses: { 200: { description: 'the run', schema: RunOut }, 304: { description: 'not modified: the If-None-Match version is current' } },
      handler: async (ctx, input) => {
        ctx.body = await loadRun(deps, ctx, input.params.run_id, 'read');
      },
    }),
    route({
      method: 'get',
      path: '/v1/projects/{project_id}/runs',
      operation_id: 'listRuns',
      summary: "List a project's runs, newest first",
      tag: 'runs',
      auth: 'user',
      scope: 'read',
      role: 'member',
      query: { ...PageQuery },
      responses: { 200: { description: 'runs', schema: Page(RunOut) } },
      handler: async (ctx, input) => {
        const project = await loadProject(deps, ctx, input.params.project_id, 'read');
        const { offset, limit } = input.query;
        ctx.body = page(await listRuns(db, project.id, offset, limit), offset, limit);
      },
    }),
    route({
      method: 'post',
      path: '/v1/runs/{run_id}/cancel',
      operation_id: 'cancelRun',
      summary: 'Cancel a queued or running run; credits settle for the work done',
      tag: 'runs',
      auth: 'user',
      scope: 'run',
      role: 'member',
      responses: {
        200: { description: 'the run, canceled (also when it was canceled already)', schema: RunOut },
        409: { description: 'CONFLICT: the run already ended (succeeded, timed_out or failed)' },
      },
      handler: async (ctx, input) => {
        const run = await loadRun(deps, ctx, input.params.run_id, 'run');
        if (run.status === 'canceled') {
          ctx.body = run;
          return;
        }
        const canceled = await db.transaction((tx) => cancelRun(tx, run.run_id));
        if (!canceled) {
          const now = await getRun(db, run.run_id);
          if (now?.status === 'canceled') {
            ctx.body = now;
            return;
          }
          throw new ServiceError('CONFLICT', `Run ${run.run_id} already ended (${now?.status}); only a queued or running run can be canceled.`, { status: now?.status });
        }
        await cancelJob(deps.temporal, { kind: 'run', resource_id: run.run_id });
        ctx.body = canceled;
      },
    }),
    route({
      method: 'get',
      path: '/v1/runs/{run_id}/results',
      operation_id: 'getRunResults',
      summary: 'Results of a succeeded or timed-out run: RunManifest, MetricSummary per measure and variant, Findings, cost report',
      tag: 'runs',
      auth: 'user',
      scope: 'read',
      role: 'member',
      responses: { 200: { description: 'the results (synthetic)', schema: ResultsOut }, 409: { description: 'CONFLICT: the run has not succeeded or timed out' } },
      handler: async (ctx, input) => {
        const run = await loadRun(deps, ctx, input.params.run_id, 'read');
        requireResults(run);
        const loaded = await runResults(deps, run);
        const metrics = summarize(loaded.world, loaded.results);
        const comparison = compare(loaded.world, loaded.results);
        const costs = costReport(loaded.world, loaded.results);
        const trace = eventTrace(loaded.world, loaded.results);
        const events_included = await countRunEvents(db, run.run_id);
        ctx.body = {
          run_id: run.run_id,
          status: run.status,
          synthetic: true,
          manifest: manifestOf(run, loaded),
          metrics,
          findings: findings(loaded.world, metrics, comparison, costs),
          cost_report: costs,
          replication_counts: trace.replication_counts,
          trace: { events_included, cap_per_variant: trace.cap_per_variant, description: trace.description },
        };
      },
    }),
    route({
      method: 'get',
      path: '/v1/runs/{run_id}/events',
      operation_id: 'listRunEvents',
      summary: 'Page through the bounded event trace of a succeeded or timed-out run',
      tag: 'runs',
      auth: 'user',
      scope: 'read',
      role: 'member',
      query: pageQuery(RUN_EVENTS_PAGE_LIMIT_MAX, RUN_EVENTS_PAGE_LIMIT_DEFAULT),
      responses: { 200: { description: 'one page of events', schema: EventsOut }, 409: { description: 'CONFLICT: the run has not succeeded or timed out' } },
      handler: async (ctx, input) => {
        const { offset, limit } = input.query;
        const run = await loadRun(deps, ctx, input.params.run_id, 'read');
        requireResults(run);
        const stored = await pageRunEvents(db, run.run_id, offset, limit);
        const next = offset + stored.events.length;
        ctx.body = {
          events: stored.events,
          next_offset: stored.events.length > 0 && next < stored.events_included ? next : null,
          events_included: stored.events_included,
          description: EVENT_TRACE_DESCRIPTION,
        };
      },
    }),
    route({
      method: 'post',
      path: '/v1/experiments/compare',
      operation_id: 'compareRun',
      summary: 'Paired baseline/treatment differences with 95% intervals within one run (read-only; common random numbers)',
      tag: 'runs',
      auth: 'user',
      scope: 'read',
      role: 'member',
      body: CompareRequest,
      responses: { 200: { description: 'metrics: one paired comparison per treatment and measure', schema: CompareOut }, 409: { description: 'CONFLICT: the run has not succeeded or timed out' } },
      handler: async (ctx, input) => {
        const body = input.body;
        const run = await loadRun(deps, ctx, body.run_id, 'read');
        requireResults(run);
        const loaded = await runResults(deps, run);
        const comparison = compare(loaded.world, loaded.results);
        ctx.body = { run_id: run.run_id, metrics: comparison.metrics, method: comparison.method, synthetic: true };
      },
    }),
    route({
      method: 'post',
      path: '/v1/runs/{run_id}/export',
      operation_id: 'exportRun',
      summary: `A signed link (valid ${EXPORT_LINK_LIFETIME_SECONDS / 60} minutes, bound to the run and organization) to a ZIP of the run's results`,
      tag: 'runs',
      auth: 'user',
      scope: 'read',
      role: 'member',
      responses: { 200: { description: 'the link; download it without the bearer credential', schema: ExportOut }, 409: { description: 'CONFLICT: the run has not succeeded or timed out' } },
      handler: async (ctx, input) => {
        const run = await loadRun(deps, ctx, input.params.run_id, 'read');
        requireResults(run);
        const expires_at_seconds = Math.floor(Date.now() / 1000) + EXPORT_LINK_LIFETIME_SECONDS;
        const token = signExportToken(config.session_secret!, { run_id: run.run_id, org_id: run.org_id, expires_at_seconds });
        // Behind a proxy set CRUCIBLE_PUBLIC_URL; otherwise the link points back at the host the caller used.
        const base = config.public_url ?? `${ctx.protocol}://${ctx.host}`;
        ctx.body = { url: `${base}/v1/exports/${token}`, expires_at: new Date(expires_at_seconds * 1000).toISOString() };
      },
    }),
    route({
      method: 'get',
      path: '/v1/exports/{token}',
      operation_id: 'downloadRunExport',
      summary: 'Download a run export (ZIP) through its signed link; no bearer credential',
      tag: 'runs',
      auth: 'signed',
      responses: {
        200: { description: 'the ZIP: manifest, world, metrics (CSV and JSON), comparison, findings, cost report, events and an HTML report', schema: Type.String({ format: 'binary' }), content_type: 'application/zip' },
        401: { description: 'UNAUTHENTICATED: the link was altered or has expired; ask for a new one' },
      },
      handler: async (ctx, input) => {
        const verified = verifyExportToken(config.session_secret!, input.params.token ?? '');
        if (!verified.ok) {
          throw new ServiceError(
            'UNAUTHENTICATED',
            verified.reason === 'expired'
              ? `The export link has expired (links work for ${EXPORT_LINK_LIFETIME_SECONDS / 60} minutes); request a new one with POST /v1/runs/{run_id}/export.`
              : 'The export link is not valid (it was altered or cut short); request a new one with POST /v1/runs/{run_id}/export.',
            { reason: verified.reason },
          );
        }
        const run = await getRun(db, verified.claims.run_id);
        if (!run || run.org_id !== verified.claims.org_id) throw new ServiceError('NOT_FOUND', `Run ${verified.claims.run_id} was not found.`);
        requireResults(run);
        const loaded = await runResults(deps, run);
        const events = await allRunEvents(db, run.run_id);
        // The stored trace goes back onto replication 0 of each variant, so eventTrace sees what the run kept.
        const withTrace = loaded.results.map((result) =>
          result.replication_index === 0 ? { ...result, trace: events.filter((event) => event.variant_id === result.variant_id) } : result,
        );
        const summaries = summarize(loaded.world, loaded.results);
        const comparison = compare(loaded.world, loaded.results);
        const costs = costReport(loaded.world, loaded.results);
        const files = buildExportFiles({
          manifest: manifestOf(run, loaded),
          world: loaded.world,
          summaries,
          comparison,
          findings: findings(loaded.world, summaries, comparison, costs),
          cost_report: costs,
          trace: eventTrace(loaded.world, withTrace),
        });
        ctx.status = 200;
        ctx.type = 'application/zip';
        ctx.set('Content-Disposition', `attachment; filename="crucible-${run.run_id}.zip"`);
        ctx.set('Cache-Control', 'no-store');
        ctx.body = Buffer.from(zipExport(files));
      },
    }),
  ];
}
