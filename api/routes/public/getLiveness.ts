import { Liveness } from '../../../domain/contracts/public.ts';
import { route, type RouteDef } from '../../registry.ts';

export function getLivenessRoute(): RouteDef {
  return route({
    method: 'get',
    path: '/v1/health/live',
    operation_id: 'getLiveness',
    summary: 'Liveness: the process answers (no database or Temporal call); restart the process only when this fails',
    tag: 'public',
    auth: 'public',
    responses: { 200: { description: 'the process is serving', schema: Liveness } },
    handler: async (ctx) => {
      ctx.body = { status: 'ok' };
    },
  });
}
