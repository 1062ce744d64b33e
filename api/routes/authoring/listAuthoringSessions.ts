import { AuthoringSession } from '../../../domain/contracts/authoring.ts';
import { Page } from '../../../domain/contracts/common.ts';
import { listSessions } from '../../../store/authoring/sessions.ts';
import type { AppDeps } from '../../context.ts';
import { page } from '../../http/request.ts';
import { route, type RouteDef } from '../../registry.ts';
import { PageQuery } from '../../schemas.ts';
import { loadProject } from '../projects/load.ts';
import { sessionBody } from './load.ts';

export function listAuthoringSessionsRoute(deps: AppDeps): RouteDef {
  return route({
    method: 'get',
    path: '/v1/projects/{project_id}/authoring-sessions',
    operation_id: 'listAuthoringSessions',
    summary: "List a project's authoring sessions, newest first (without checkpoints)",
    tag: 'authoring',
    auth: 'user',
    scope: 'read',
    role: 'member',
    query: { ...PageQuery },
    responses: { 200: { description: 'sessions', schema: Page(AuthoringSession) } },
    handler: async (ctx, { params, query }) => {
      const project = await loadProject(deps, ctx, params.project_id, 'read');
      const rows = await listSessions(deps.db, project.id, query.offset, query.limit);
      const listed = page(rows, query.offset, query.limit);
      ctx.body = { ...listed, data: await Promise.all(listed.data.map((row) => sessionBody(deps, row, false))) };
    },
  });
}
