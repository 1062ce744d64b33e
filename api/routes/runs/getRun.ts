import { Run } from '../../../domain/contracts/runs.ts';
import { authorizeOwned } from '../../auth.ts';
import type { AppDeps } from '../../context.ts';
import { sendRendered } from '../../poll.ts';
import { route, type RouteDef } from '../../registry.ts';
import { runAnswer } from './load.ts';

export function getRunRoute(deps: AppDeps): RouteDef {
  return route({
    method: 'get',
    path: '/v1/runs/{run_id}',
    operation_id: 'getRun',
    summary: 'Run status, progress and credits; poll explicitly',
    tag: 'runs',
    auth: 'user',
    scope: 'read',
    role: 'member',
    pollable: true,
    responses: { 200: { description: 'the run', schema: Run }, 304: { description: 'not modified: the If-None-Match version is current' } },
    handler: async (ctx, input) => {
      const answer = await runAnswer(deps, input.params.run_id);
      await authorizeOwned(deps, ctx, `Run ${input.params.run_id}`, answer?.run);
      sendRendered(ctx, answer!.body);
    },
  });
}
