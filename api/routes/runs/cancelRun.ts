import { Run } from '../../../domain/contracts/runs.ts';
import { ServiceError } from '../../../domain/errors.ts';
import { cancelJob } from '../../../integrations/temporal/jobs.ts';
import { cancelRun, getRun } from '../../../store/runs/runs.ts';
import type { AppDeps } from '../../context.ts';
import { route, type RouteDef } from '../../registry.ts';
import { loadRun } from './load.ts';

export function cancelRunRoute(deps: AppDeps): RouteDef {
  const { db } = deps;
  return route({
    method: 'post',
    path: '/v1/runs/{run_id}/cancel',
    operation_id: 'cancelRun',
    summary: 'Cancel a queued or running run; credits settle for the work done',
    tag: 'runs',
    auth: 'user',
    scope: 'run',
    role: 'member',
    responses: {
      200: { description: 'the run, canceled (also when it was canceled already)', schema: Run },
      409: { description: 'CONFLICT: the run already ended (succeeded, timed_out or failed)' },
    },
    handler: async (ctx, input) => {
      const run = await loadRun(deps, ctx, input.params.run_id, 'run');
      if (run.status === 'canceled') {
        ctx.body = run;
        return;
      }
      const canceled = await db.transaction((tx) => cancelRun(tx, run.run_id));
      if (!canceled) {
        const now = await getRun(db, run.run_id);
        if (now?.status === 'canceled') {
          ctx.body = now;
          return;
        }
        throw new ServiceError('CONFLICT', `Run ${run.run_id} already ended (${now?.status}); only a queued or running run can be canceled.`, {
          status: now?.status,
        });
      }
      await cancelJob(deps.temporal, { kind: 'run', resource_id: run.run_id });
      ctx.body = canceled;
    },
  });
}
