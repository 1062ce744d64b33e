// Routing activities to the task queue of their kind of work (domain/jobs.ts WORK_QUEUES): a workflow proxies its model
// calls and its simulation with queuedActivities('model' | 'simulation', profile) instead of proxyActivities(profile);
// everything else stays on the workflow's own (default) queue. The queue is derived from the workflow's own task queue
// when the activity is scheduled (module scope has no workflow context), so a deployment's or a test's queue names follow.
// The task queue is not part of what a replay compares: histories recorded before the routing replay unchanged
// (test/integration/workflow-histories.test.ts). Deterministic: the workflow SDK and domain only.
import { type ActivityInterfaceFor, type ActivityOptions, proxyActivities, workflowInfo } from '@temporalio/workflow';
import { type WorkQueue, workQueueName } from '../domain/jobs.ts';

export function queuedActivities<A extends object>(queue: Exclude<WorkQueue, 'default'>, options: ActivityOptions): ActivityInterfaceFor<A> {
  return new Proxy({} as ActivityInterfaceFor<A>, {
    get(_target, name) {
      if (typeof name !== 'string') return undefined;
      return (...args: unknown[]) => {
        const routed = proxyActivities<Record<string, (...args: unknown[]) => Promise<unknown>>>({
          ...options,
          taskQueue: workQueueName(workflowInfo().taskQueue, queue),
        });
        return routed[name]!(...args);
      };
    },
  });
}
