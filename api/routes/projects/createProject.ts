import { trimmedName } from '../../../domain/accounts/rules.ts';
import { CreateProjectBody, Project, PROJECT_TITLE_LENGTH_MAX } from '../../../domain/contracts/projects.ts';
import { createProject } from '../../../store/projects/projects.ts';
import { authorizeOrg } from '../../auth.ts';
import type { AppDeps } from '../../context.ts';
import { idempotent, respond } from '../../idempotency.ts';
import { route, type RouteDef } from '../../registry.ts';

export function createProjectRoute(deps: AppDeps): RouteDef {
  return route({
    method: 'post',
    path: '/v1/projects',
    operation_id: 'createProject',
    summary: 'Create a project in an organization',
    tag: 'projects',
    auth: 'user',
    scope: 'write',
    role: 'member',
    idempotency: 'optional',
    body: CreateProjectBody,
    responses: { 201: { description: 'created', schema: Project } },
    handler: async (ctx, { body, auth }) => {
      const title = trimmedName(body.title, 'title', PROJECT_TITLE_LENGTH_MAX);
      await authorizeOrg(deps, ctx, body.org_id);
      const outcome = await idempotent(deps.db, ctx, { owner_id: body.org_id, hashed_body: body }, async (tx) => ({
        status: 201,
        body: await createProject(tx, { org_id: body.org_id, title, created_by: auth.user_id }),
      }));
      respond(ctx, outcome);
    },
  });
}
