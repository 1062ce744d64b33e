import { Page } from '../../../domain/contracts/common.ts';
import { OrgIdInput, Project } from '../../../domain/contracts/projects.ts';
import { listProjects } from '../../../store/projects/projects.ts';
import { authorizeOrg } from '../../auth.ts';
import type { AppDeps } from '../../context.ts';
import { page } from '../../http/request.ts';
import { route, type RouteDef } from '../../registry.ts';
import { PageQuery } from '../../schemas.ts';

export function listProjectsRoute(deps: AppDeps): RouteDef {
  return route({
    method: 'get',
    path: '/v1/projects',
    operation_id: 'listProjects',
    summary: "List an organization's projects, newest first",
    tag: 'projects',
    auth: 'user',
    scope: 'read',
    role: 'member',
    query: { org_id: { schema: OrgIdInput, required: true, description: 'the organization' }, ...PageQuery },
    responses: { 200: { description: 'projects', schema: Page(Project) } },
    handler: async (ctx, { query }) => {
      await authorizeOrg(deps, ctx, query.org_id);
      ctx.body = page(await listProjects(deps.db, query.org_id, query.offset, query.limit), query.offset, query.limit);
    },
  });
}
