// Worlds (spec: Public endpoints — validate; Projects, worlds, runs): validate a WorldSpec without a token, save a valid
// one as a numbered world revision of a project (no idempotency key, as the spec says), read and list revisions.
import type { Context } from 'koa';
import { Type } from 'typebox';
import type { Scope } from '../../domain/accounts/rules.ts';
import type { WorldSpec } from '../../domain/contracts/worldSpec.ts';
import { ServiceError } from '../../domain/errors.ts';
import { validateWorld } from '../../domain/simulation/index.ts';
import '../../domain/simulation/register.ts';
import { createWorldRevision, getWorldRevision, listWorldRevisions, type WorldRevisionView } from '../../store/worlds/worlds.ts';
import { authorizeOwned} from '../auth.ts';
import type { AppDeps } from '../context.ts';
import { JSON_BODY_LIMIT_BYTES, page} from '../http.ts';
import { route, type RouteDef } from '../registry.ts';
import { Id, Page, PageQuery, Timestamp } from '../schemas.ts';
import { loadProject } from './projects/load.ts';

/** A WorldSpec document is read up to this size (validate and save alike). */
export const WORLD_BODY_LIMIT_BYTES = JSON_BODY_LIMIT_BYTES;

const WorldDocument = Type.Object({}, { additionalProperties: true, description: 'a WorldSpec 1.0.0 document; its schema is at /v1/schemas/WorldSpec' });
const Problem = Type.Object({ pointer: Type.String({ description: 'JSON pointer into the world' }), message: Type.String() });
const ValidationOut = Type.Object({ valid: Type.Boolean(), problems: Type.Array(Problem) });
const WorldRevisionSummaryOut = Type.Object({
  world_revision_id: Id('wrev'),
  project_id: Id('proj'),
  org_id: Id('org'),
  revision: Type.Integer({ minimum: 1, description: 'gapless per project: 1, 2, 3...' }),
  name: Type.String(),
  created_by: Type.String(),
  created_at: Timestamp,
});
export const WorldRevisionOut = Type.Object({ ...WorldRevisionSummaryOut.properties, world: WorldDocument });

/** Loads a world revision the caller may act on; another organization's revision is a plain 404. */
export async function loadWorldRevision(deps: AppDeps, ctx: Context, world_revision_id: string, scope?: Scope): Promise<WorldRevisionView> {
  return authorizeOwned(deps, ctx, `World revision ${world_revision_id}`, await getWorldRevision(deps.db, world_revision_id), { scope });
}

export function worldRoutes(deps: AppDeps): RouteDef[] {
  const { db } = deps;
  return [
    route({
      method: 'post',
      path: '/v1/world-specs/validate',
      operation_id: 'validateWorldSpec',
      summary: 'Validate a WorldSpec; returns every problem with a JSON pointer and a message (no token)',
      tag: 'worlds',
      auth: 'public',
      body: WorldDocument,
      body_limit: { bytes: WORLD_BODY_LIMIT_BYTES, name: 'WORLD_BODY_LIMIT_BYTES' },
      responses: { 200: { description: 'valid, or the problems found', schema: ValidationOut } },
      handler: async (ctx, { body }) => {
        ctx.body = validateWorld(body);
      },
    }),
    route({
      method: 'post',
      path: '/v1/projects/{project_id}/worlds',
      operation_id: 'saveWorld',
      summary: 'Save a valid WorldSpec as the next world revision of a project (no Idempotency-Key: each save is a new revision)',
      tag: 'worlds',
      auth: 'user',
      scope: 'write',
      role: 'member',
      body: WorldDocument,
      body_limit: { bytes: WORLD_BODY_LIMIT_BYTES, name: 'WORLD_BODY_LIMIT_BYTES' },
      responses: {
        201: { description: 'the new revision', schema: WorldRevisionOut },
        422: { description: 'VALIDATION_FAILED: the world is invalid; details list every problem (path is the JSON pointer)' },
      },
      handler: async (ctx, { body, params, auth }) => {
        const project = await loadProject(deps, ctx, params.project_id);
        const { user_id } = auth;
        const result = validateWorld(body);
        if (!result.valid) {
          const first = result.problems[0]!;
          throw new ServiceError(
            'VALIDATION_FAILED',
            `The world is invalid: ${first.pointer || '/'} ${first.message}${result.problems.length > 1 ? ` (and ${result.problems.length - 1} more)` : ''}. Fix every problem listed in details; POST /v1/world-specs/validate checks a world without saving it.`,
            result.problems.map((problem) => ({ path: problem.pointer, message: problem.message })),
          );
        }
        ctx.status = 201;
        ctx.body = await db.transaction((tx) => createWorldRevision(tx, { project_id: project.id, world: body as WorldSpec, created_by: user_id }));
      },
    }),
    route({
      method: 'get',
      path: '/v1/projects/{project_id}/worlds',
      operation_id: 'listWorlds',
      summary: "List a project's world revisions, newest first (without the documents)",
      tag: 'worlds',
      auth: 'user',
      scope: 'read',
      role: 'member',
      query: { ...PageQuery },
      responses: { 200: { description: 'revisions', schema: Page(WorldRevisionSummaryOut) } },
      handler: async (ctx, input) => {
        const project = await loadProject(deps, ctx, input.params.project_id, 'read');
        const { offset, limit } = input.query;
        ctx.body = page(await listWorldRevisions(db, project.id, offset, limit), offset, limit);
      },
    }),
    route({
      method: 'get',
      path: '/v1/world-revisions/{world_revision_id}',
      operation_id: 'getWorldRevision',
      summary: 'Read one world revision with its WorldSpec',
      tag: 'worlds',
      auth: 'user',
      scope: 'read',
      role: 'member',
      responses: { 200: { description: 'the revision', schema: WorldRevisionOut } },
      handler: async (ctx, input) => {
        ctx.body = await loadWorldRevision(deps, ctx, input.params.world_revision_id, 'read');
      },
    }),
  ];
}
