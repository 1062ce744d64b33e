import { RUN_EVENTS_PAGE_LIMIT_DEFAULT, RUN_EVENTS_PAGE_LIMIT_MAX, RunEventsPage } from '../../../domain/contracts/runs.ts';
import { EVENT_TRACE_DESCRIPTION } from '../../../domain/simulation/results.ts';
import { pageRunEvents } from '../../../store/runs/runs.ts';
import type { AppDeps } from '../../context.ts';
import { route, type RouteDef } from '../../registry.ts';
import { pageQuery } from '../../schemas.ts';
import { loadRun, requireResults } from './load.ts';

export function listRunEventsRoute(deps: AppDeps): RouteDef {
  return route({
    method: 'get',
    path: '/v1/runs/{run_id}/events',
    operation_id: 'listRunEvents',
    summary: 'Page through the bounded event trace of a succeeded or timed-out run',
    tag: 'runs',
    auth: 'user',
    scope: 'read',
    role: 'member',
    query: pageQuery(RUN_EVENTS_PAGE_LIMIT_MAX, RUN_EVENTS_PAGE_LIMIT_DEFAULT),
    responses: { 200: { description: 'one page of events', schema: RunEventsPage }, 409: { description: 'CONFLICT: the run has not succeeded or timed out' } },
    handler: async (ctx, input) => {
      const { offset, limit } = input.query;
      const run = await loadRun(deps, ctx, input.params.run_id, 'read');
      requireResults(run);
      const stored = await pageRunEvents(deps.db, run.run_id, offset, limit);
      const next = offset + stored.events.length;
      ctx.body = {
        events: stored.events,
        next_offset: stored.events.length > 0 && next < stored.events_included ? next : null,
        events_included: stored.events_included,
        description: EVENT_TRACE_DESCRIPTION,
      };
    },
  });
}
