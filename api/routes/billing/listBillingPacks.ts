import { BillingPacks } from '../../../domain/contracts/billing.ts';
import type { AppDeps } from '../../context.ts';
import { route, type RouteDef } from '../../registry.ts';
import { packsOnSale } from './packs.ts';

export function listBillingPacksRoute(deps: AppDeps): RouteDef {
  return route({
    method: 'get',
    path: '/v1/billing/packs',
    operation_id: 'listBillingPacks',
    summary: 'The credit packs on sale, with the provider price amounts',
    tag: 'billing',
    feature: 'billing',
    auth: 'user',
    scope: 'read',
    responses: { 200: { description: 'the catalog', schema: BillingPacks } },
    handler: async (ctx) => {
      ctx.body = { live_mode: deps.config.stripe_live_mode, data: await packsOnSale(deps) };
    },
  });
}
