// Every workflow the production worker runs; one file per process. Test-only workflows live in test/support/workflows/.
export { maintenanceWorkflow } from './maintenance.ts';
export { intakeDraftWorkflow } from './intakeDraft.ts';
export { conceptReviewWorkflow } from './conceptReview.ts';
export { worldRunWorkflow } from './worldRun.ts';
