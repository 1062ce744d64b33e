import { Program } from '../../../domain/contracts/sponsors.ts';
import type { AppDeps } from '../../context.ts';
import { route, type RouteDef } from '../../registry.ts';
import { loadProgram, SPONSOR_ADMIN, sponsorCommon } from './access.ts';
import { presentProgram } from './present.ts';

export function getSponsorProgramRoute(deps: AppDeps): RouteDef {
  return route({
    ...sponsorCommon,
    method: 'get',
    path: '/v1/sponsors/programs/{program_id}',
    operation_id: 'getSponsorProgram',
    summary: 'Program configuration and status',
    auth: 'session',
    scope: 'read',
    audience: SPONSOR_ADMIN,
    responses: { 200: { description: 'the program', schema: Program } },
    handler: async (ctx, { params, auth }) => {
      ctx.body = presentProgram(await loadProgram(deps, auth.user_id, params.program_id));
    },
  });
}
