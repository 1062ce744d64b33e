import { Member } from '../../../domain/contracts/accounts.ts';
import { Page } from '../../../domain/contracts/common.ts';
import { listMembers } from '../../../store/accounts/accounts.ts';
import { authorizeOrg } from '../../auth.ts';
import type { AppDeps } from '../../context.ts';
import { page } from '../../http/request.ts';
import { route, type RouteDef } from '../../registry.ts';
import { PageQuery } from '../../schemas.ts';

export function listMembersRoute(deps: AppDeps): RouteDef {
  return route({
    method: 'get',
    path: '/v1/orgs/{org_id}/members',
    operation_id: 'listMembers',
    summary: "List an organization's members and their roles, oldest membership first (any member may read; roles are changed by operators)",
    tag: 'accounts',
    auth: 'user',
    scope: 'read',
    role: 'member',
    query: { ...PageQuery },
    responses: { 200: { description: 'members', schema: Page(Member) } },
    handler: async (ctx, input) => {
      const org_id = input.params.org_id;
      const { offset, limit } = input.query;
      await authorizeOrg(deps, ctx, org_id);
      ctx.body = page(await listMembers(deps.db, org_id, offset, limit), offset, limit);
    },
  });
}
