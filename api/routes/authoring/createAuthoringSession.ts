import type { Static } from 'typebox';
import type { JobRow } from '../../../domain/jobs.ts';
import type { AiLimits } from '../../../domain/authoring/checkpoint.ts';
import { firstStepCreditsMax } from '../../../domain/authoring/session.ts';
import type { ByokProvider } from '../../../domain/ai/keys.ts';
import { AuthoringSession, CreateAuthoringSessionBody } from '../../../domain/contracts/authoring.ts';
import type { WorldSpec } from '../../../domain/contracts/worldSpec.ts';
import { ServiceError } from '../../../domain/errors.ts';
import { validateWorld } from '../../../domain/simulation/index.ts';
import { startJobOf } from '../../../integrations/temporal/jobs.ts';
import { createSession } from '../../../store/authoring/sessions.ts';
import { getIntakeRevision, type IntakeRevisionView, latestIntakeRevision } from '../../../store/intake/revisions.ts';
import { reserveJobCredits } from '../../../store/jobs.ts';
import { assertAiAvailable } from '../../../store/providerKeys/availability.ts';
import type { AppDeps } from '../../context.ts';
import { idempotent, respond } from '../../idempotency.ts';
import { route, type RouteDef } from '../../registry.ts';
import { loadProject } from '../projects/load.ts';

type CreateBody = Static<typeof CreateAuthoringSessionBody>;

/** The intake the session starts from (the named revision or the latest confirmed one), or a valid starting world. */
async function startingPoint(deps: AppDeps, project_id: string, body: CreateBody): Promise<IntakeRevisionView | undefined> {
  const intake =
    body.intake_revision !== undefined ? await getIntakeRevision(deps.db, project_id, body.intake_revision) : await latestIntakeRevision(deps.db, project_id);
  if (body.intake_revision !== undefined && !intake) {
    throw new ServiceError('VALIDATION_FAILED', `Intake revision ${body.intake_revision} of project ${project_id} does not exist.`, [
      { path: '/intake_revision', message: 'not found' },
    ]);
  }
  if (!intake && !body.starting_world) {
    throw new ServiceError(
      'VALIDATION_FAILED',
      'The project has no confirmed intake; confirm one (POST /v1/projects/{project_id}/intakes) or give a starting_world.',
      [{ path: '/intake_revision', message: 'no confirmed intake' }],
    );
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
  return intake;
}

/** The session's AI limits: the deployment's, lowered (never raised) by the request's. */
function sessionLimits(deployment: AiLimits, asked: CreateBody['ai_limits']): AiLimits {
  return {
    calls_max: Math.min(deployment.calls_max, asked?.calls_max ?? deployment.calls_max),
    tokens_max: Math.min(deployment.tokens_max, asked?.tokens_max ?? deployment.tokens_max),
    ai_iterations_max: Math.min(deployment.ai_iterations_max, asked?.ai_iterations_max ?? deployment.ai_iterations_max),
    wall_seconds_max: Math.min(deployment.wall_seconds_max, asked?.wall_seconds_max ?? deployment.wall_seconds_max),
  };
}

export function createAuthoringSessionRoute(deps: AppDeps): RouteDef {
  const { db, config } = deps;
  return route({
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
    body: CreateAuthoringSessionBody,
    responses: {
      201: { description: 'the session, drafting; poll GET /v1/authoring-sessions/{session_id}', schema: AuthoringSession },
      402: { description: "INSUFFICIENT_CREDITS: the organization's available credits cannot cover the first AI step; nothing was created or charged" },
      422: { description: 'VALIDATION_FAILED: no confirmed intake and no starting world, or the starting world is invalid' },
      503: { description: 'PROVIDER_NOT_CONFIGURED' },
    },
    handler: async (ctx, { body, params, auth }) => {
      const project = await loadProject(deps, ctx, params.project_id);
      const intake = await startingPoint(deps, project.id, body);
      const byok_provider: ByokProvider | null = body.byok_provider ?? null;
      const starting_world = (body.starting_world as WorldSpec | undefined) ?? null;
      const outcome = await idempotent(db, ctx, { owner_id: project.org_id, hashed_body: { project_id: project.id, ...body } }, async (tx) => {
        await assertAiAvailable({ config, db: tx }, project.org_id, byok_provider);
        const ai_limits = sessionLimits(config.authoring_ai_limits, body.ai_limits);
        const session = await createSession(tx, {
          org_id: project.org_id,
          project_id: project.id,
          intake_revision_id: intake?.id ?? null,
          byok_provider,
          ai_limits,
          starting_world,
          wait_seconds_max: config.authoring_wait_seconds_max,
          created_by: auth.user_id,
        });
        // Admission: the first step's reservation, in this transaction (store/jobs.ts); 402 rolls the create back.
        const credits = firstStepCreditsMax({
          intake: intake?.spec ?? null,
          starting_world,
          byok: byok_provider !== null,
          credits_per_1k_tokens: config.ai_credits_per_1k_tokens,
          ai_limits,
        });
        await reserveJobCredits(tx, {
          kind: 'authoring',
          resource_id: session.id,
          org_id: session.org_id,
          project_id: session.project_id,
          credits,
          caused_by: auth.user_id,
        });
        const { starting_world: _starting, ...rest } = session;
        return { status: 201, body: { ...rest, accepts: [], checkpoint: null } };
      });
      // After the commit, on replays too: the deterministic workflow id makes a repeated start a no-op.
      await startJobOf(deps.temporal, 'authoring', outcome.body as JobRow);
      respond(ctx, outcome);
    },
  });
}
