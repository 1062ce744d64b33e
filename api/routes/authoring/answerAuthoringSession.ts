import { AnswersBody, AuthoringSession } from '../../../domain/contracts/authoring.ts';
import { answersUpdate } from '../../../workflows/messages.ts';
import type { AppDeps } from '../../context.ts';
import { route, type RouteDef } from '../../registry.ts';
import { loadSession, sessionAfterStep } from './load.ts';
import { STEP_UNAVAILABLE, step } from './step.ts';

export function answerAuthoringSessionRoute(deps: AppDeps): RouteDef {
  return route({
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
      200: { description: 'the session with the checkpoint the answers made', schema: AuthoringSession },
      409: { description: 'CONFLICT: nothing is asked, or the session is not waiting' },
      503: { description: STEP_UNAVAILABLE },
    },
    handler: async (ctx, { params, body }) => {
      const session = await loadSession(deps, ctx, params.session_id);
      await step(deps, ctx, session, answersUpdate, body);
      ctx.body = await sessionAfterStep(deps, session.id);
    },
  });
}
