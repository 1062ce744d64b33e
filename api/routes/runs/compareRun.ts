import { CompareRequest, RunComparison } from '../../../domain/contracts/runs.ts';
import { compare } from '../../../domain/simulation/index.ts';
import type { AppDeps } from '../../context.ts';
import { route, type RouteDef } from '../../registry.ts';
import { loadRun, requireResults, runResults } from './load.ts';

export function compareRunRoute(deps: AppDeps): RouteDef {
  return route({
    method: 'post',
    path: '/v1/experiments/compare',
    operation_id: 'compareRun',
    summary: 'Paired baseline/treatment differences with 95% intervals within one run (read-only; common random numbers)',
    tag: 'runs',
    auth: 'user',
    scope: 'read',
    role: 'member',
    body: CompareRequest,
    responses: {
      200: { description: 'metrics: one paired comparison per treatment and measure', schema: RunComparison },
      409: { description: 'CONFLICT: the run has not succeeded or timed out' },
    },
    handler: async (ctx, input) => {
      const run = await loadRun(deps, ctx, input.body.run_id, 'read');
      requireResults(run);
      const loaded = await runResults(deps, run);
      const comparison = compare(loaded.world, loaded.results);
      ctx.body = { run_id: run.run_id, metrics: comparison.metrics, method: comparison.method, synthetic: true };
    },
  });
}
