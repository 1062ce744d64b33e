// The periodic maintenance workflow, started every minute by a Temporal schedule: purge idempotency records past
// retention, then reconcile rows whose workflow never started (ARCHITECTURE.md: How a request flows, step 3), so
// nothing is left queued forever. Each reconciler is a child workflow, visible on its own in the Temporal UI.
import { executeChild, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { reconcileQueuedReviewsWorkflow } from './conceptReview.ts';
import { reconcileQueuedIntakeDraftsWorkflow } from './intakeDraft.ts';
import { reconcileQueuedRunsWorkflow } from './worldRun.ts';

const { purgeExpiredIdempotencyRecords } = proxyActivities<Activities>({ startToCloseTimeout: '1 minute', retry: { maximumAttempts: 5 } });

export type MaintenanceResult = {
  idempotency_records_purged: number;
  intake_drafts_started: number;
  reviews_started: number;
  runs_started: number;
};

export async function maintenanceWorkflow(): Promise<MaintenanceResult> {
  const { purged } = await purgeExpiredIdempotencyRecords();
  const base = workflowInfo().workflowId;
  const drafts = await executeChild(reconcileQueuedIntakeDraftsWorkflow, { workflowId: `${base}-intake-drafts`, args: [{}] });
  const reviews = await executeChild(reconcileQueuedReviewsWorkflow, { workflowId: `${base}-reviews` });
  const runs = await executeChild(reconcileQueuedRunsWorkflow, { workflowId: `${base}-runs`, args: [{}] });
  return { idempotency_records_purged: purged, intake_drafts_started: drafts.started, reviews_started: reviews.started, runs_started: runs.started };
}
