import { Health } from '../../../domain/contracts/public.ts';
import { PROBE_DEADLINE_MS, READINESS_CACHE_MS, readiness } from '../../readiness.ts';
import type { AppDeps } from '../../context.ts';
import { route, type RouteDef } from '../../registry.ts';

export function getHealthRoute(deps: AppDeps): RouteDef {
  return route({
    method: 'get',
    path: '/v1/health',
    operation_id: 'getHealth',
    summary: `Readiness: database, Temporal and worker, each probe bounded by ${PROBE_DEADLINE_MS} ms; the result is shared for up to ${READINESS_CACHE_MS} ms`,
    tag: 'public',
    auth: 'public',
    responses: {
      200: { description: 'ready: every check ok', schema: Health },
      503: { description: 'not ready: a check failed (its detail says which and why)', schema: Health },
    },
    handler: async (ctx) => {
      const report = await readiness(deps).report();
      ctx.status = report.ok ? 200 : 503;
      ctx.body = { status: report.ok ? 'ok' : 'degraded', checks: report.checks };
    },
  });
}
