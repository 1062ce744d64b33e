import { AuthoringSession, ReviseBody } from '../../../domain/contracts/authoring.ts';
import { reviseUpdate } from '../../../workflows/messages.ts';
import type { AppDeps } from '../../context.ts';
import { route, type RouteDef } from '../../registry.ts';
import { loadSession, sessionAfterStep } from './load.ts';
import { STEP_UNAVAILABLE, step } from './step.ts';

export function reviseAuthoringSessionRoute(deps: AppDeps): RouteDef {
  return route({
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
      200: { description: 'the session with the new checkpoint', schema: AuthoringSession },
      402: { description: 'INSUFFICIENT_CREDITS: the AI iteration the instructions ask for is not covered; the session ended failed with this cause' },
      409: { description: 'CONFLICT: not waiting, or an AI step after cap_reached' },
      422: { description: 'VALIDATION_FAILED: instructions on the offline provider (it cannot follow them; nothing is charged); send values instead' },
      503: { description: STEP_UNAVAILABLE },
    },
    handler: async (ctx, { params, body }) => {
      const session = await loadSession(deps, ctx, params.session_id);
      await step(deps, ctx, session, reviseUpdate, body);
      ctx.body = await sessionAfterStep(deps, session.id);
    },
  });
}
