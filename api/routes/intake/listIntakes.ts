import { Page } from '../../../domain/contracts/common.ts';
import { IntakeRevisionSummary } from '../../../domain/contracts/intake.ts';
import { listIntakeRevisions } from '../../../store/intake/revisions.ts';
import type { AppDeps } from '../../context.ts';
import { page } from '../../http/request.ts';
import { route, type RouteDef } from '../../registry.ts';
import { PageQuery } from '../../schemas.ts';
import { loadProject } from '../projects/load.ts';

export function listIntakesRoute(deps: AppDeps): RouteDef {
  const { db } = deps;
  return route({
    method: 'get',
    path: '/v1/projects/{project_id}/intakes',
    operation_id: 'listIntakes',
    summary: "A project's confirmed intake revisions, newest first (without the documents)",
    tag: 'intake',
    no_store: true,
    auth: 'user',
    scope: 'read',
    role: 'member',
    query: { ...PageQuery },
    responses: { 200: { description: 'revisions', schema: Page(IntakeRevisionSummary) } },
    handler: async (ctx, input) => {
      const project = await loadProject(deps, ctx, input.params.project_id, 'read');
      const { offset, limit } = input.query;
      ctx.body = page(await listIntakeRevisions(db, project.id, offset, limit), offset, limit);
    },
  });
}
