import { modelCatalog } from './present.ts';
import type { AppDeps } from '../../context.ts';
import { route, type RouteDef } from '../../registry.ts';

export function listModelsRoute(deps: AppDeps): RouteDef {
  return route({
    method: 'get',
    path: '/v1/models',
    operation_id: 'listModels',
    summary: 'Public model catalog: per provider the model, purpose, whether configured, and the hosted-inference credit price',
    tag: 'public',
    auth: 'public',
    responses: { 200: { description: 'catalog' } },
    handler: async (ctx) => {
      ctx.body = modelCatalog(deps);
    },
  });
}
