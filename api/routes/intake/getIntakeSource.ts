import { IntakeSource } from '../../../domain/contracts/intake.ts';
import type { AppDeps } from '../../context.ts';
import { route, type RouteDef } from '../../registry.ts';
import { loadSource } from './load.ts';

export function getIntakeSourceRoute(deps: AppDeps): RouteDef {
  return route({
    method: 'get',
    path: '/v1/intake-sources/{source_id}',
    operation_id: 'getIntakeSource',
    summary: 'One intake source: status, kind, size, line count, masked findings, details; never its text',
    tag: 'intake',
    auth: 'user',
    scope: 'read',
    role: 'member',
    responses: { 200: { description: 'the source', schema: IntakeSource } },
    handler: async (ctx, input) => {
      ctx.body = await loadSource(deps, ctx, input.params.source_id);
    },
  });
}
