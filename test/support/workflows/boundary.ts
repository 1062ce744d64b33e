// Test workflow for the worker's failure boundary (activities/index.ts): runs `failingProbe` with a retry policy that
// would try it many times, so a test can count how often the worker actually ran it.
import { proxyActivities } from '@temporalio/workflow';
import type { testActivities } from '../activities.ts';

/** The attempts a retryable failure gets here; a non-retryable one must stop after the first. */
export const BOUNDARY_PROBE_ATTEMPTS_MAX = 5;

const { failingProbe } = proxyActivities<ReturnType<typeof testActivities>>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '10 milliseconds', backoffCoefficient: 1, maximumAttempts: BOUNDARY_PROBE_ATTEMPTS_MAX },
});

export async function failureBoundaryProbeWorkflow(input: { probe_id: string; throws: 'service_error' | 'internal' | 'plain_error' }): Promise<void> {
  await failingProbe(input);
}
