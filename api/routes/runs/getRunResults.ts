import { RunResultsBody } from '../../../domain/contracts/runs.ts';
import { compare, costReport, eventTrace, findings, summarize } from '../../../domain/simulation/index.ts';
import { countRunEvents } from '../../../store/runs/runs.ts';
import type { AppDeps } from '../../context.ts';
import { route, type RouteDef } from '../../registry.ts';
import { loadRun, manifestOf, requireResults, runResults } from './load.ts';

export function getRunResultsRoute(deps: AppDeps): RouteDef {
  return route({
    method: 'get',
    path: '/v1/runs/{run_id}/results',
    operation_id: 'getRunResults',
    summary: 'Results of a succeeded or timed-out run: RunManifest, MetricSummary per measure and variant, Findings, cost report',
    tag: 'runs',
    auth: 'user',
    scope: 'read',
    role: 'member',
    responses: {
      200: { description: 'the results (synthetic)', schema: RunResultsBody },
      409: { description: 'CONFLICT: the run has not succeeded or timed out' },
    },
    handler: async (ctx, input) => {
      const run = await loadRun(deps, ctx, input.params.run_id, 'read');
      requireResults(run);
      const loaded = await runResults(deps, run);
      const metrics = summarize(loaded.world, loaded.results);
      const comparison = compare(loaded.world, loaded.results);
      const costs = costReport(loaded.world, loaded.results);
      const trace = eventTrace(loaded.world, loaded.results);
      const events_included = await countRunEvents(deps.db, run.run_id);
      ctx.body = {
        run_id: run.run_id,
        status: run.status,
        synthetic: true,
        manifest: manifestOf(run, loaded),
        metrics,
        findings: findings(loaded.world, metrics, comparison, costs),
        cost_report: costs,
        replication_counts: trace.replication_counts,
        trace: { events_included, cap_per_variant: trace.cap_per_variant, description: trace.description },
      };
    },
  });
}
