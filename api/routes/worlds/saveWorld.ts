import type { WorldSpec } from '../../../domain/contracts/worldSpec.ts';
import { WorldDocument, WorldRevision } from '../../../domain/contracts/worlds.ts';
import { type ErrorDetail, ServiceError } from '../../../domain/errors.ts';
import { validateWorld } from '../../../domain/simulation/index.ts';
import { placeInWorld } from '../../../clients/sdk/src/words/simulationWords.ts';
import '../../../domain/simulation/register.ts';
import { createWorldRevision } from '../../../store/worlds/worlds.ts';
import type { AppDeps } from '../../context.ts';
import { route, type RouteDef } from '../../registry.ts';
import { loadProject } from '../projects/load.ts';
import { WORLD_BODY_LIMIT_BYTES } from './load.ts';

/** The refusal of an invalid world: what to do first, then where the first problem is and what it is. */
export function worldNotSavedMessage(problems: ReadonlyArray<{ pointer: string; message: string }>, not_listed = 0): string {
  const first = problems[0]!;
  const total = problems.length + not_listed;
  const listed = not_listed > 0 ? ` (the first ${problems.length} are listed)` : ' listed with this message';
  const todo = total === 1 ? 'fix the problem listed with this message' : `fix the ${total} problems${listed}`;
  return `The world was not saved: ${todo}, then save again. The first is at ${placeInWorld(first.pointer)}: ${first.message.replace(/\.$/, '')}.`;
}

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
        const details: ErrorDetail[] = result.problems.map((problem) => ({ path: problem.pointer, message: problem.message }));
        if (result.problems_not_listed > 0) {
          details.push({ message: `${result.problems_not_listed} more problems not listed`, problems_not_listed: result.problems_not_listed });
        }
        throw new ServiceError('VALIDATION_FAILED', worldNotSavedMessage(result.problems, result.problems_not_listed), details);
      }
      ctx.status = 201;
      ctx.body = await deps.db.transaction((tx) => createWorldRevision(tx, { project_id: project.id, world: body as WorldSpec, created_by: user_id }));
    },
  });
}
