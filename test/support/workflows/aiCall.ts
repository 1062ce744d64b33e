// Exists for tests: runs the AI-call activity once on the real worker, so tests see Temporal's retries of
// callModel (a 429 retried, recorded once) exactly as a production workflow would drive it.
import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../../../activities/index.ts';
import type { AiCallInput, AiCallResult } from '../../../domain/ai/call.ts';

const { callModel } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '50 milliseconds', backoffCoefficient: 1, maximumAttempts: 4 },
});

export async function aiCallTestWorkflow(input: AiCallInput): Promise<AiCallResult> {
  return callModel(input);
}
