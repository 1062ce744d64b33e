import { WorldDocument, WorldValidation } from '../../../domain/contracts/worlds.ts';
import { validateWorldText } from '../../../compute/worldValidation.ts';
import '../../../domain/simulation/register.ts';
import type { AppDeps } from '../../context.ts';
import { route, type RouteDef } from '../../registry.ts';
import { WORLD_BODY_LIMIT_BYTES } from './load.ts';

export function validateWorldSpecRoute(_deps: AppDeps): RouteDef {
  return route({
    method: 'post',
    path: '/v1/world-specs/validate',
    operation_id: 'validateWorldSpec',
    summary: 'Validate a WorldSpec; returns its problems (the first 100, and how many more) with a JSON pointer and a message (no token)',
    tag: 'worlds',
    auth: 'public',
    body: WorldDocument,
    body_limit: { bytes: WORLD_BODY_LIMIT_BYTES, name: 'WORLD_BODY_LIMIT_BYTES' },
    // parsed and checked by the handler: on the compute pool when large (compute/worldValidation.ts)
    body_text: true,
    responses: {
      200: { description: 'valid, or the problems found', schema: WorldValidation },
      422: { description: 'VALIDATION_FAILED: the body is not JSON, or holds more than JSON_NODES_MAX JSON values' },
    },
    handler: async (ctx, { body }) => {
      // body_text: the router passes the checked text, not the parsed value
      ctx.body = await validateWorldText(body as unknown as string);
    },
  });
}
