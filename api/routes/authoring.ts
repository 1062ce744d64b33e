// Authoring sessions (beta; spec: Endpoints — Authoring sessions; Authoring session checkpoint): create (Idempotency-Key),
// list per project, get (reads the database: readable while no worker runs), and answers / revise / approve, each a
// Temporal Update of the session's workflow whose update id is the request's Idempotency-Key (a retried request is one
// step). States and the calls each accepts: docs/authoring.md.
import { setTimeout as delay } from 'node:timers/promises';
import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import type { UpdateDefinition } from '@temporalio/common';
import { firstStepCreditsMax } from '../../domain/authoring/session.ts';
import { AI_CALL_FAILURE_TYPES, AI_FAILURE_TYPES } from '../../domain/ai/call.ts';
import { type JobFailure, jobFailureOf, jobWorkflowId, STEP_BUSY, type StepDeadline, UPDATE_REQUEST_EXPIRED } from '../../domain/jobs.ts';
import { STEP_RETRY_AFTER_SECONDS, startJob, updateJob } from '../../integrations/temporal/jobs.ts';
import { assertCanCover } from '../../store/credits/ledger.ts';
import { answersUpdate, approveUpdate, reviseUpdate } from '../../workflows/messages.ts';
import type { Context } from 'koa';
import { type Static, Type } from 'typebox';
import type { AiLimits, Checkpoint } from '../../domain/authoring/checkpoint.ts';
import { BYOK_PROVIDERS, type ByokProvider } from '../../domain/ai/keys.ts';
import type { WorldSpec } from '../../domain/contracts/worldSpec.ts';
import { ERROR_STATUS, type ErrorCode, isServiceError, ServiceError } from '../../domain/errors.ts';
import { validateWorld } from '../../domain/simulation/index.ts';
import { createSession, findSession, latestCheckpoint, listSessions, type SessionRow } from '../../store/authoring/sessions.ts';
import { getIntakeRevision, latestIntakeRevision } from '../../store/intake/revisions.ts';
import { cachedRow } from '../../store/rowCache.ts';
import { assertAiAvailable } from '../../store/keys/availability.ts';
import { authorizeOwned } from '../auth.ts';
import type { AppDeps } from '../context.ts';
import { page } from '../http.ts';
import { type Rendered, rendered, sendRendered } from '../poll.ts';
import { idempotent, readIdempotencyKey, respond } from '../idempotency.ts';
import { route, type RouteDef } from '../registry.ts';
import { Id, Page, PageQuery, Timestamp } from '../schemas.ts';
import { loadProject } from './projects.ts';
import '../../domain/authoring/register.ts';
import '../../domain/simulation/register.ts';

/** A session's workflow id: authoring-<session id> (domain/jobs.ts). */
export function authoringWorkflowId(session_id: string): string {
  return jobWorkflowId('authoring', session_id);
}
/** Answers in one request. */
export const ANSWERS_PER_REQUEST_MAX = 100;
/** Characters of revise instructions. */
export const REVISE_INSTRUCTIONS_CHARS_MAX = 4000;

const Limits = Type.Object(
  {
    calls_max: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000 })),
    tokens_max: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000_000 })),
    ai_iterations_max: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000 })),
    wall_seconds_max: Type.Optional(Type.Integer({ minimum: 0, maximum: 86_400 })),
  },
  { additionalProperties: false, description: 'lower the deployment AI preparation limit for this whole session; never raises it' },
);

const CreateBody = Type.Object(
  {
    intake_revision: Type.Optional(Type.Integer({ minimum: 1, description: "an intake revision number of the project; default: the latest confirmed one" })),
    starting_world: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'a valid WorldSpec to start from (e.g. a sample world)' })),
    byok_provider: Type.Optional(Type.Union([...BYOK_PROVIDERS.map((p) => Type.Literal(p)), Type.Null()])),
    ai_limits: Type.Optional(Limits),
  },
  { additionalProperties: false },
);

const AnswersBody = Type.Object(
  {
    answers: Type.Array(
      Type.Object({ question_id: Type.String({ minLength: 1, maxLength: 120 }), value: Type.Number(), note: Type.Optional(Type.String({ maxLength: 1000 })) }, { additionalProperties: false }),
      { minItems: 1, maxItems: ANSWERS_PER_REQUEST_MAX },
    ),
  },
  { additionalProperties: false },
);

const ReviseBody = Type.Object(
  {
    values: Type.Optional(
      Type.Array(
        Type.Object({ slot: Type.String({ minLength: 1, maxLength: 120 }), value: Type.Number(), reference: Type.Optional(Type.String({ minLength: 1, maxLength: 1000 })) }, { additionalProperties: false }),
        { maxItems: ANSWERS_PER_REQUEST_MAX },
      ),
    ),
    instructions: Type.Optional(Type.String({ minLength: 1, maxLength: REVISE_INSTRUCTIONS_CHARS_MAX, description: 'asks for another AI iteration' })),
  },
  { additionalProperties: false },
);

const SessionOut = Type.Object({
  id: Id('sess'),
  org_id: Id('org'),
  project_id: Id('proj'),
  intake_revision_id: Type.Union([Type.String(), Type.Null()]),
  status: Type.String({ description: 'drafting, waiting, approved, expired or failed (docs/authoring.md)' }),
  accepts: Type.Array(Type.String(), { description: 'the calls the session accepts now: answers, revise, approve' }),
  byok_provider: Type.Union([Type.String(), Type.Null()]),
  ai_limits: Type.Object({}, { additionalProperties: true }),
  cap_reached: Type.Boolean(),
  checkpoint_count: Type.Integer({ minimum: 0 }),
  checkpoint: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()], { description: 'the latest checkpoint (spec: Authoring session checkpoint)' }),
  world_revision_id: Type.Union([Type.String(), Type.Null()]),
  wait_seconds_max: Type.Integer(),
  error: Type.Union([Type.Object({ code: Type.String(), message: Type.String() }), Type.Null()]),
  created_by: Type.String(),
  created_at: Timestamp,
  updated_at: Timestamp,
  ended_at: Type.Union([Timestamp, Type.Null()]),
});
type SessionOut = Static<typeof SessionOut>;

function accepts(session: SessionRow, checkpoint: Checkpoint | null): string[] {
  if (session.status !== 'waiting' || !checkpoint) return [];
  const out: string[] = [];
  if (checkpoint.questions.length > 0) out.push('answers');
  out.push('revise');
  if (checkpoint.validation.valid) out.push('approve');
  return out;
}

async function sessionOut(deps: AppDeps, session: SessionRow, withCheckpoint = true): Promise<SessionOut> {
  const checkpoint = await latestCheckpoint(deps.db, session.id);
  const { starting_world: _starting, ...rest } = session;
  return { ...rest, accepts: accepts(session, checkpoint), checkpoint: withCheckpoint ? checkpoint : null };
}

/**
 * A session's answer rendered once per version: its row, its JSON text and ETag, kept beside the row in the row cache
 * (dropped with it when the session or a new checkpoint is announced: 0013), so a poll neither parses the checkpoint
 * nor serialises and hashes the body again. The body is the same for every caller; access is checked on the row.
 */
async function sessionView(deps: AppDeps, session_id: string): Promise<{ session: SessionRow; body: Rendered } | undefined> {
  return cachedRow(deps.db, session_id, 'answer', async () => {
    const session = await findSession(deps.db, session_id);
    return session && { session, body: rendered(await sessionOut(deps, session)) };
  });
}

async function loadSession(deps: AppDeps, ctx: Context, session_id: string): Promise<SessionRow> {
  return authorizeOwned(deps, ctx, `Authoring session ${session_id}`, await findSession(deps.db, session_id));
}

/**
 * Sends one step to the session's workflow as an Update (its definition: workflows/messages.ts) whose id is the
 * Idempotency-Key; a refusal answers with its typed code (stepError). The wait for a worker to accept the step is bounded
 * (CRUCIBLE_AUTHORING_UPDATE_ACCEPT_SECONDS): past it the call is 503 TEMPORARILY_UNAVAILABLE and nothing changed.
 */
async function step<R, B>(deps: AppDeps, ctx: Context, session: SessionRow, definition: UpdateDefinition<R, [B, StepDeadline | null]>, body: B): Promise<R> {
  const name = definition.name;
  if (session.status !== 'waiting' && session.status !== 'drafting') {
    throw new ServiceError('CONFLICT', `The authoring session is ${session.status}; it accepts no ${name} any more.`, [{ path: '/status', message: session.status }]);
  }
  if (!deps.temporal) throw new ServiceError('TEMPORARILY_UNAVAILABLE', 'Authoring sessions need the workflow service; none is configured.', {}, { retry_after_seconds: STEP_RETRY_AFTER_SECONDS });
  const key = readIdempotencyKey(ctx, true)!;
  const accept_timeout_ms = deps.config.authoring_update_accept_seconds * 1000;
  const until_ms = Date.now() + accept_timeout_ms;
  for (let attempt = 1; ; attempt++) {
    try {
      return await updateJob(deps.temporal, { kind: 'authoring', resource_id: session.id }, { definition, body, update_id: `${name}:${key}`, accept_timeout_ms, deadline_ms: until_ms });
    } catch (error) {
      if (isServiceError(error)) throw error; // the seam's own answer (503 no worker took the step)
      const code = jobFailureOf(error)?.code;
      // An earlier copy of this request (same update id) that waited past its own deadline was refused on arrival;
      // a refused Update leaves nothing behind, so this request's copy is asked for while its time lasts.
      if (code === UPDATE_REQUEST_EXPIRED) {
        if (Date.now() < until_ms - UPDATE_CATCH_UP_DELAY_MS) {
          await delay(UPDATE_CATCH_UP_DELAY_MS);
          continue;
        }
        throw new ServiceError('TEMPORARILY_UNAVAILABLE', `No worker took the ${name} step in time; nothing changed. Send the same request again later.`, {}, { retry_after_seconds: STEP_RETRY_AFTER_SECONDS });
      }
      // The row says waiting once the checkpoint activity committed; a worker that restarts in between delivers this
      // Update before it applies that activity's result, so the workflow still says drafting (STEP_BUSY) for one task.
      // A refused Update leaves nothing in history, so asking again (same update id) is safe; bounded.
      if (code === STEP_BUSY && session.status === 'waiting' && attempt < UPDATE_CATCH_UP_ATTEMPTS_MAX) {
        await delay(UPDATE_CATCH_UP_DELAY_MS);
        continue;
      }
      throw stepError(error, name);
    }
  }
}

/** The 503 of a step no worker took in time (declared on answers, revise and approve). */
const STEP_UNAVAILABLE = 'TEMPORARILY_UNAVAILABLE: no worker accepted the step within CRUCIBLE_AUTHORING_UPDATE_ACCEPT_SECONDS; nothing changed; send it again';

/** How often a step refused only because the workflow has not caught up with its stored checkpoint is asked again. */
const UPDATE_CATCH_UP_ATTEMPTS_MAX = 50;
const UPDATE_CATCH_UP_DELAY_MS = 100;

const PROVIDER_FAILURES = new Set<string>([AI_FAILURE_TYPES.auth_rejected, AI_FAILURE_TYPES.unavailable, AI_FAILURE_TYPES.request_rejected, AI_FAILURE_TYPES.output_invalid, AI_CALL_FAILURE_TYPES.call_failed]);

/** The API code a step's typed failure answers with: an error code as it is, a provider's failure 502, a busy or refused step 409. */
function stepErrorCode(failure: JobFailure): ErrorCode {
  if (failure.code === AI_FAILURE_TYPES.not_configured) return 'PROVIDER_NOT_CONFIGURED';
  if (failure.code === AI_CALL_FAILURE_TYPES.key_missing) return 'VALIDATION_FAILED';
  if (PROVIDER_FAILURES.has(failure.code)) return 'PROVIDER_ERROR';
  return failure.code in ERROR_STATUS ? (failure.code as ErrorCode) : 'CONFLICT';
}

/**
 * A refused Update answers with its typed code and the workflow's reason (a validator's CONFLICT is 409, the offline
 * provider refusing instructions 422); a step that failed answers with its innermost cause (402 INSUFFICIENT_CREDITS, …);
 * a session whose workflow ended is 409.
 */
function stepError(error: unknown, name: string): unknown {
  const failure = jobFailureOf(error);
  if (failure) return new ServiceError(stepErrorCode(failure), failure.message, [{ path: '/', message: failure.message, cause: failure.code }]);
  if (error instanceof WorkflowUpdateFailedError) return new ServiceError('CONFLICT', `The authoring session refused ${name}.`, [{ path: '/', message: 'refused' }]);
  if (error instanceof WorkflowNotFoundError) return new ServiceError('CONFLICT', `The authoring session no longer runs; it accepts no ${name}.`);
  return error;
}

export function authoringRoutes(deps: AppDeps): RouteDef[] {
  const { db, config } = deps;
  return [
    route({
      method: 'post',
      path: '/v1/projects/{project_id}/authoring-sessions',
      operation_id: 'createAuthoringSession',
      starts_job: 'the authoring session',
      summary: "Start an authoring session (beta) from the project's latest confirmed intake (or a given revision) and optionally a starting WorldSpec",
      tag: 'authoring',
      auth: 'user',
      scope: 'write',
      role: 'member',
      idempotency: 'required',
      body: CreateBody,
      responses: {
        201: { description: 'the session, drafting; poll GET /v1/authoring-sessions/{session_id}', schema: SessionOut },
        402: { description: "INSUFFICIENT_CREDITS: the organization's available credits cannot cover the first AI step; nothing was created or charged" },
        422: { description: 'VALIDATION_FAILED: no confirmed intake and no starting world, or the starting world is invalid' },
        503: { description: 'PROVIDER_NOT_CONFIGURED' },
      },
      handler: async (ctx, { body, params, auth }) => {
        const project = await loadProject(deps, ctx, params.project_id);
        const intake = body.intake_revision !== undefined ? await getIntakeRevision(db, project.id, body.intake_revision) : await latestIntakeRevision(db, project.id);
        if (body.intake_revision !== undefined && !intake) {
          throw new ServiceError('VALIDATION_FAILED', `Intake revision ${body.intake_revision} of project ${project.id} does not exist.`, [{ path: '/intake_revision', message: 'not found' }]);
        }
        if (!intake && !body.starting_world) {
          throw new ServiceError('VALIDATION_FAILED', 'The project has no confirmed intake; confirm one (POST /v1/projects/{project_id}/intakes) or give a starting_world.', [
            { path: '/intake_revision', message: 'no confirmed intake' },
          ]);
        }
        if (body.starting_world) {
          const checked = validateWorld(body.starting_world);
          if (!checked.valid) {
            throw new ServiceError(
              'VALIDATION_FAILED',
              'The starting world is invalid; POST /v1/world-specs/validate lists every problem.',
              checked.problems.slice(0, 50).map((problem) => ({ path: `/starting_world${problem.pointer}`, message: problem.message })),
            );
          }
        }
        const byok_provider: ByokProvider | null = body.byok_provider ?? null;
        const deployment = config.authoring_ai_limits;
        const ai_limits: AiLimits = {
          calls_max: Math.min(deployment.calls_max, body.ai_limits?.calls_max ?? deployment.calls_max),
          tokens_max: Math.min(deployment.tokens_max, body.ai_limits?.tokens_max ?? deployment.tokens_max),
          ai_iterations_max: Math.min(deployment.ai_iterations_max, body.ai_limits?.ai_iterations_max ?? deployment.ai_iterations_max),
          wall_seconds_max: Math.min(deployment.wall_seconds_max, body.ai_limits?.wall_seconds_max ?? deployment.wall_seconds_max),
        };
        const outcome = await idempotent(db, ctx, { owner_id: project.org_id, hashed_body: { project_id: project.id, ...body } }, async (tx) => {
          await assertAiAvailable({ config, db: tx }, project.org_id, byok_provider);
          // Refuse before any work what the organization cannot cover: the first step's AI call bound (issue 28).
          const credits_needed = firstStepCreditsMax({
            intake: intake?.spec ?? null,
            starting_world: (body.starting_world as WorldSpec | undefined) ?? null,
            byok: byok_provider !== null,
            credits_per_1k_tokens: config.ai_credits_per_1k_tokens,
          });
          if (credits_needed > 0) await assertCanCover(tx, project.org_id, credits_needed);
          const session = await createSession(tx, {
            org_id: project.org_id,
            project_id: project.id,
            intake_revision_id: intake?.id ?? null,
            byok_provider,
            ai_limits,
            starting_world: (body.starting_world as WorldSpec | undefined) ?? null,
            wait_seconds_max: config.authoring_wait_seconds_max,
            created_by: auth.user_id,
          });
          const { starting_world: _starting, ...rest } = session;
          return { status: 201, body: { ...rest, accepts: [], checkpoint: null } };
        });
        // After the commit, on replays too: the deterministic workflow id makes a repeated start a no-op.
        const created = outcome.body as { id: string; org_id: string; project_id: string };
        await startJob(deps.temporal, { kind: 'authoring', resource_id: created.id, org_id: created.org_id, project_id: created.project_id }, { session_id: created.id });
        respond(ctx, outcome);
      },
    }),
    route({
      method: 'get',
      path: '/v1/projects/{project_id}/authoring-sessions',
      operation_id: 'listAuthoringSessions',
      summary: "List a project's authoring sessions, newest first (without checkpoints)",
      tag: 'authoring',
      auth: 'user',
      scope: 'read',
      role: 'member',
      query: { ...PageQuery },
      responses: { 200: { description: 'sessions', schema: Page(SessionOut) } },
      handler: async (ctx, { params, query }) => {
        const project = await loadProject(deps, ctx, params.project_id, 'read');
        const rows = await listSessions(db, project.id, query.offset, query.limit);
        const listed = page(rows, query.offset, query.limit);
        ctx.body = { ...listed, data: await Promise.all(listed.data.map((row) => sessionOut(deps, row, false))) };
      },
    }),
    route({
      method: 'get',
      path: '/v1/authoring-sessions/{session_id}',
      operation_id: 'getAuthoringSession',
      summary: 'Read an authoring session and its latest checkpoint (from the database; readable while no worker runs)',
      tag: 'authoring',
      auth: 'user',
      scope: 'read',
      role: 'member',
      pollable: true,
      responses: { 200: { description: 'the session', schema: SessionOut } },
      handler: async (ctx, { params }) => {
        const view = await sessionView(deps, params.session_id);
        await authorizeOwned(deps, ctx, `Authoring session ${params.session_id}`, view?.session);
        sendRendered(ctx, view!.body);
      },
    }),
    route({
      method: 'post',
      path: '/v1/authoring-sessions/{session_id}/answers',
      operation_id: 'answerAuthoringSession',
      starts_job: 'the authoring step',
      summary: "Answer the session's open questions; the Idempotency-Key is the step's id, so a retried request is one step",
      tag: 'authoring',
      auth: 'user',
      scope: 'write',
      role: 'member',
      idempotency: 'required',
      body: AnswersBody,
      responses: {
        200: { description: 'the session with the checkpoint the answers made', schema: SessionOut },
        409: { description: 'CONFLICT: nothing is asked, or the session is not waiting' },
        503: { description: STEP_UNAVAILABLE },
      },
      handler: async (ctx, { params, body }) => {
        const session = await loadSession(deps, ctx, params.session_id);
        await step(deps, ctx, session, answersUpdate, body);
        ctx.body = await sessionOut(deps, (await findSession(db, session.id))!);
      },
    }),
    route({
      method: 'post',
      path: '/v1/authoring-sessions/{session_id}/revise',
      operation_id: 'reviseAuthoringSession',
      starts_job: 'the authoring step',
      summary: 'Revise the world: set slot values (with an optional reference) and/or ask for another AI iteration with instructions',
      tag: 'authoring',
      auth: 'user',
      scope: 'write',
      role: 'member',
      idempotency: 'required',
      body: ReviseBody,
      responses: {
        200: { description: 'the session with the new checkpoint', schema: SessionOut },
        402: { description: 'INSUFFICIENT_CREDITS: the AI iteration the instructions ask for is not covered; the session ended failed with this cause' },
        409: { description: 'CONFLICT: not waiting, or an AI step after cap_reached' },
        422: { description: 'VALIDATION_FAILED: instructions on the offline provider (it cannot follow them; nothing is charged); send values instead' },
        503: { description: STEP_UNAVAILABLE },
      },
      handler: async (ctx, { params, body }) => {
        const session = await loadSession(deps, ctx, params.session_id);
        await step(deps, ctx, session, reviseUpdate, body);
        ctx.body = await sessionOut(deps, (await findSession(db, session.id))!);
      },
    }),
    route({
      method: 'post',
      path: '/v1/authoring-sessions/{session_id}/approve',
      operation_id: 'approveAuthoringSession',
      starts_job: 'the authoring step',
      summary: "Save the latest checkpoint's world as a world revision of the project (as POST /v1/projects/{project_id}/worlds would); nothing is estimated or run",
      tag: 'authoring',
      auth: 'user',
      scope: 'write',
      role: 'member',
      idempotency: 'required',
      body_optional: true,
      body: Type.Object({}, { additionalProperties: false }),
      responses: {
        200: { description: 'the approved session with world_revision_id', schema: SessionOut },
        409: { description: "CONFLICT: the session is not waiting or its world does not validate" },
        503: { description: STEP_UNAVAILABLE },
      },
      handler: async (ctx, { params, auth }) => {
        const session = await loadSession(deps, ctx, params.session_id);
        // A retried approve after it landed reads the approved session (approving twice saves one revision).
        if (session.status !== 'approved') await step(deps, ctx, session, approveUpdate, { approved_by: auth.user_id });
        ctx.body = await sessionOut(deps, (await findSession(db, session.id))!);
      },
    }),
  ];
}
