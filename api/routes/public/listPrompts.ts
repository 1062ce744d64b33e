import { PROMPTS } from '../../../domain/prompts/registry.ts';
import { route, type RouteDef } from '../../registry.ts';

export function listPromptsRoute(): RouteDef {
  return route({
    method: 'get',
    path: '/v1/prompts',
    operation_id: 'listPrompts',
    summary: 'The prompts the service sends to AI providers',
    tag: 'public',
    auth: 'public',
    responses: { 200: { description: 'prompts' } },
    handler: async (ctx) => {
      ctx.body = { data: PROMPTS.map((p) => ({ id: p.id, version: p.version, purpose: p.purpose, url: `/v1/prompts/${p.id}` })) };
    },
  });
}
