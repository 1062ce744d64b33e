// Every workflow the worker runs; one file per process.
export { maintenanceWorkflow } from './maintenance.ts';
export { aiCallTestWorkflow } from './testing-ai.ts';
export { creditSagaProbeWorkflow, creditSettleRetryProbeWorkflow } from './testing.ts';
export { intakeDraftWorkflow, reconcileQueuedIntakeDraftsWorkflow } from './intakeDraft.ts';
export { conceptReviewWorkflow, reconcileQueuedReviewsWorkflow } from './conceptReview.ts';
export { reconcileQueuedRunsWorkflow, worldRunWorkflow } from './worldRun.ts';
export { authoringSessionWorkflow } from './authoringSession.ts';
