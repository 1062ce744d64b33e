import { RunExportLink } from '../../../domain/contracts/runs.ts';
import { EXPORT_LINK_LIFETIME_SECONDS, signExportToken } from '../../../store/runs/exportLinks.ts';
import type { AppDeps } from '../../context.ts';
import { route, type RouteDef } from '../../registry.ts';
import { loadRun, requireResults } from './load.ts';

export function exportRunRoute(deps: AppDeps): RouteDef {
  const { config } = deps;
  return route({
    method: 'post',
    path: '/v1/runs/{run_id}/export',
    operation_id: 'exportRun',
    summary: `A signed link (valid ${EXPORT_LINK_LIFETIME_SECONDS / 60} minutes, bound to the run and organization) to a ZIP of the run's results`,
    tag: 'runs',
    auth: 'user',
    scope: 'read',
    role: 'member',
    responses: {
      200: { description: 'the link; download it without the bearer credential', schema: RunExportLink },
      409: { description: 'CONFLICT: the run has not succeeded or timed out' },
    },
    handler: async (ctx, input) => {
      const run = await loadRun(deps, ctx, input.params.run_id, 'read');
      requireResults(run);
      const expires_at_seconds = Math.floor(Date.now() / 1000) + EXPORT_LINK_LIFETIME_SECONDS;
      const token = signExportToken(config.session_secret!, { run_id: run.run_id, org_id: run.org_id, expires_at_seconds });
      // Behind a proxy set CRUCIBLE_PUBLIC_URL; otherwise the link points back at the host the caller used.
      const base = config.public_url ?? `${ctx.protocol}://${ctx.host}`;
      ctx.body = { url: `${base}/v1/exports/${token}`, expires_at: new Date(expires_at_seconds * 1000).toISOString() };
    },
  });
}
