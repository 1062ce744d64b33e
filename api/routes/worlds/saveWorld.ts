import type { WorldSpec } from '../../../domain/contracts/worldSpec.ts';
import { WorldDocument, WorldRevision } from '../../../domain/contracts/worlds.ts';
import { ServiceError } from '../../../domain/errors.ts';
import { validateWorld } from '../../../domain/simulation/index.ts';
import '../../../domain/simulation/register.ts';
import { createWorldRevision } from '../../../store/worlds/worlds.ts';
import type { AppDeps } from '../../context.ts';
import { route, type RouteDef } from '../../registry.ts';
import { loadProject } from '../projects/load.ts';
import { WORLD_BODY_LIMIT_BYTES } from './load.ts';

export function saveWorldRoute(deps: AppDeps): RouteDef {
  return route({
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
      201: { description: 'the new revision', schema: WorldRevision },
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
      ctx.body = await deps.db.transaction((tx) => createWorldRevision(tx, { project_id: project.id, world: body as WorldSpec, created_by: user_id }));
    },
  });
}
