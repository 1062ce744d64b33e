import { Features } from '../../../domain/contracts/public.ts';
import type { AppDeps } from '../../context.ts';
import { route, type RouteDef } from '../../registry.ts';

export function getFeaturesRoute(deps: AppDeps): RouteDef {
  return route({
    method: 'get',
    path: '/v1/features',
    operation_id: 'getFeatures',
    summary: "The deployment flags a client needs to know which screens to offer (the sponsor API and billing); what any feature route's 503 would say anyway",
    tag: 'public',
    auth: 'public',
    responses: { 200: { description: 'the flags', schema: Features } },
    handler: async (ctx) => {
      ctx.body = { sponsor_api: deps.config.sponsor_api_enabled, billing: deps.config.billing_enabled };
    },
  });
}
