import { Type } from 'typebox';
import { Page } from '../../../domain/contracts/common.ts';
import { IntakeSource, OWNER_ID_LENGTH_MAX } from '../../../domain/contracts/intake.ts';
import { listSources } from '../../../store/intake/sources.ts';
import { authorizeOrg } from '../../auth.ts';
import type { AppDeps } from '../../context.ts';
import { page } from '../../http/request.ts';
import { route, type RouteDef } from '../../registry.ts';
import { PageQuery } from '../../schemas.ts';

export function listIntakeSourcesRoute(deps: AppDeps): RouteDef {
  const { db } = deps;
  return route({
    method: 'get',
    path: '/v1/intake-sources',
    operation_id: 'listIntakeSources',
    summary: "List an organization's intake sources (or one project's), newest first; never their text",
    tag: 'intake',
    auth: 'user',
    scope: 'read',
    role: 'member',
    query: {
      org_id: { schema: Type.String({ minLength: 1, maxLength: OWNER_ID_LENGTH_MAX }), required: true, description: 'the organization' },
      project_id: { schema: Type.String({ minLength: 1, maxLength: OWNER_ID_LENGTH_MAX }), description: 'only this project' },
      ...PageQuery,
    },
    responses: { 200: { description: 'sources', schema: Page(IntakeSource) } },
    handler: async (ctx, { query: { org_id, project_id, offset, limit } }) => {
      await authorizeOrg(deps, ctx, org_id);
      ctx.body = page(await listSources(db, { org_id, project_id }, offset, limit), offset, limit);
    },
  });
}
