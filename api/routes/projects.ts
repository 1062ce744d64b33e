// Projects (spec: Projects, worlds, runs endpoints).
import type { Context } from 'koa';
import { Type } from 'typebox';
import { trimmedName, type Scope } from '../../domain/accounts/rules.ts';
import { createProject, findProject, listProjects, type ProjectView } from '../../store/projects/projects.ts';
import { authorizeOrg, authorizeOwned } from '../auth.ts';
import type { AppDeps } from '../context.ts';
import { page } from '../http.ts';
import { idempotent, respond } from '../idempotency.ts';
import { route, type RouteDef } from '../registry.ts';
import { Id, Page, PageQuery, Timestamp } from '../schemas.ts';

export const TITLE_LENGTH_MAX = 200;

const CreateProject = Type.Object(
  { title: Type.String({ maxLength: 1000 }), org_id: Type.String({ minLength: 1, maxLength: 64 }) },
  { additionalProperties: false },
);
export const ProjectOut = Type.Object({ id: Id('proj'), org_id: Id('org'), title: Type.String(), created_by: Type.String(), created_at: Timestamp });

/** Loads a project the caller may act on under the route's declared scope; another organization's project is a plain 404. */
export async function loadProject(deps: AppDeps, ctx: Context, project_id: string, scope?: Scope): Promise<ProjectView> {
  return authorizeOwned(deps, ctx, `Project ${project_id}`, await findProject(deps.db, project_id), { scope });
}

export function projectRoutes(deps: AppDeps): RouteDef[] {
  const { db } = deps;
  return [
    route({
      method: 'post',
      path: '/v1/projects',
      operation_id: 'createProject',
      summary: 'Create a project in an organization',
      tag: 'projects',
      auth: 'user',
      scope: 'write',
      role: 'member',
      idempotency: 'optional',
      body: CreateProject,
      responses: { 201: { description: 'created', schema: ProjectOut } },
      handler: async (ctx, { body, auth }) => {
        const title = trimmedName(body.title, 'title', TITLE_LENGTH_MAX);
        await authorizeOrg(deps, ctx, body.org_id);
        const outcome = await idempotent(db, ctx, { owner_id: body.org_id, hashed_body: body }, async (tx) => ({
          status: 201,
          body: await createProject(tx, { org_id: body.org_id, title, created_by: auth.user_id }),
        }));
        respond(ctx, outcome);
      },
    }),
    route({
      method: 'get',
      path: '/v1/projects/{project_id}',
      operation_id: 'getProject',
      summary: 'Read one project',
      tag: 'projects',
      auth: 'user',
      scope: 'read',
      role: 'member',
      responses: { 200: { description: 'the project', schema: ProjectOut } },
      handler: async (ctx, { params }) => {
        ctx.body = await loadProject(deps, ctx, params.project_id);
      },
    }),
    route({
      method: 'get',
      path: '/v1/projects',
      operation_id: 'listProjects',
      summary: "List an organization's projects, newest first",
      tag: 'projects',
      auth: 'user',
      scope: 'read',
      role: 'member',
      query: { org_id: { schema: Type.String({ minLength: 1, maxLength: 64 }), required: true, description: 'the organization' }, ...PageQuery },
      responses: { 200: { description: 'projects', schema: Page(ProjectOut) } },
      handler: async (ctx, { query }) => {
        await authorizeOrg(deps, ctx, query.org_id);
        ctx.body = page(await listProjects(db, query.org_id, query.offset, query.limit), query.offset, query.limit);
      },
    }),
  ];
}
