import { Page } from '../../../domain/contracts/common.ts';
import { AiUsage } from '../../../domain/contracts/providerKeys.ts';
import { listAiUsage } from '../../../store/providerKeys/usage.ts';
import { authorizeOrg } from '../../auth.ts';
import type { AppDeps } from '../../context.ts';
import { page } from '../../http/request.ts';
import { route, type RouteDef } from '../../registry.ts';
import { PageQuery } from '../../schemas.ts';

export function listAiUsageRoute(deps: AppDeps): RouteDef {
  return route({
    method: 'get',
    path: '/v1/orgs/{org_id}/usage',
    operation_id: 'listAiUsage',
    summary: "The organization's metered AI calls, newest first",
    tag: 'provider-keys',
    auth: 'user',
    scope: 'read',
    role: 'member',
    query: { ...PageQuery },
    responses: { 200: { description: 'metered calls', schema: Page(AiUsage) } },
    handler: async (ctx, input) => {
      const org_id = input.params.org_id;
      const { offset, limit } = input.query;
      await authorizeOrg(deps, ctx, org_id);
      ctx.body = page(await listAiUsage(deps.db, org_id, offset, limit), offset, limit);
    },
  });
}
