import { ApproveBody, AuthoringSession } from '../../../domain/contracts/authoring.ts';
import { approveUpdate } from '../../../workflows/messages.ts';
import type { AppDeps } from '../../context.ts';
import { route, type RouteDef } from '../../registry.ts';
import { loadSession, sessionAfterStep } from './load.ts';
import { STEP_UNAVAILABLE, step } from './step.ts';

export function approveAuthoringSessionRoute(deps: AppDeps): RouteDef {
  return route({
    method: 'post',
    path: '/v1/authoring-sessions/{session_id}/approve',
    operation_id: 'approveAuthoringSession',
    starts_job: 'the authoring step',
    summary:
      "Save the latest checkpoint's world as a world revision of the project (as POST /v1/projects/{project_id}/worlds would); nothing is estimated or run",
    tag: 'authoring',
    auth: 'user',
    scope: 'write',
    role: 'member',
    idempotency: 'required',
    body_optional: true,
    body: ApproveBody,
    responses: {
      200: { description: 'the approved session with world_revision_id', schema: AuthoringSession },
      409: { description: 'CONFLICT: the session is not waiting or its world does not validate' },
      503: { description: STEP_UNAVAILABLE },
    },
    handler: async (ctx, { params, auth }) => {
      const session = await loadSession(deps, ctx, params.session_id);
      // A retried approve after it landed reads the approved session (approving twice saves one revision).
      if (session.status !== 'approved') await step(deps, ctx, session, approveUpdate, { approved_by: auth.user_id });
      ctx.body = await sessionAfterStep(deps, session.id);
    },
  });
}
