import { AuthoringSession } from '../../../domain/contracts/authoring.ts';
import { authorizeOwned } from '../../auth.ts';
import type { AppDeps } from '../../context.ts';
import { sendRendered } from '../../poll.ts';
import { route, type RouteDef } from '../../registry.ts';
import { sessionView } from './load.ts';

export function getAuthoringSessionRoute(deps: AppDeps): RouteDef {
  return route({
    method: 'get',
    path: '/v1/authoring-sessions/{session_id}',
    operation_id: 'getAuthoringSession',
    summary: 'Read an authoring session and its latest checkpoint (from the database; readable while no worker runs)',
    tag: 'authoring',
    auth: 'user',
    scope: 'read',
    role: 'member',
    pollable: true,
    responses: { 200: { description: 'the session', schema: AuthoringSession } },
    handler: async (ctx, { params }) => {
      const view = await sessionView(deps, params.session_id);
      await authorizeOwned(deps, ctx, `Authoring session ${params.session_id}`, view?.session);
      sendRendered(ctx, view!.body);
    },
  });
}
