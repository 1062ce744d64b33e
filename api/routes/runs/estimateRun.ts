import { RunEstimateBody, RunRequest } from '../../../domain/contracts/runs.ts';
import { estimateOf } from './estimates.ts';
import { balances } from '../../../store/credits/ledger.ts';
import type { AppDeps } from '../../context.ts';
import { route, type RouteDef } from '../../registry.ts';
import { loadWorldRevision } from '../worlds/load.ts';
import { presentEstimate } from './present.ts';

export function estimateRunRoute(deps: AppDeps): RouteDef {
  return route({
    method: 'post',
    path: '/v1/runs/estimate',
    operation_id: 'estimateRun',
    summary: 'Estimate a run: runnable, issues, reserved_credits, available_credits (answers 200 also when not runnable)',
    tag: 'runs',
    auth: 'user',
    scope: 'read',
    role: 'member',
    body: RunRequest,
    responses: { 200: { description: 'the estimate; runnable false lists every issue', schema: RunEstimateBody } },
    handler: async (ctx, input) => {
      const body = input.body;
      const revision = await loadWorldRevision(deps, ctx, body.world_revision_id, 'read');
      // What a create would be admitted against: admitted jobs reserved their credits when they were created.
      const available = (await balances(deps.db, revision.org_id)).available_credits;
      ctx.body = presentEstimate(estimateOf(revision), body.budget_limit_credits, available);
    },
  });
}
