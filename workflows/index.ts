// Every workflow the production worker runs; one file per process. Test-only workflows live in test/support/workflows/.
export { maintenanceWorkflow } from './maintenance.ts';
export { intakeDraftWorkflow } from './intakeDraft.ts';
export { conceptReviewWorkflow } from './conceptReview.ts';
export { worldRunWorkflow } from './worldRun.ts';
export { checkoutWorkflow } from './checkout.ts';
export { authoringSessionWorkflow } from './authoringSession.ts';
export { intakeReadWorkflow } from './intakeRead.ts';

import type { JobInputs, JobKind } from '../domain/jobs.ts';
import { authoringSessionWorkflow } from './authoringSession.ts';
import { checkoutWorkflow } from './checkout.ts';
import { conceptReviewWorkflow } from './conceptReview.ts';
import { intakeDraftWorkflow } from './intakeDraft.ts';
import { worldRunWorkflow } from './worldRun.ts';

/** Each job's workflow takes the input the job seam starts it with (domain/jobs.ts: JobInputs); a mismatch fails the type check. */
const JOB_WORKFLOWS = {
  run: worldRunWorkflow,
  review: conceptReviewWorkflow,
  intake_draft: intakeDraftWorkflow,
  authoring: authoringSessionWorkflow,
  checkout: checkoutWorkflow,
} satisfies { [K in JobKind]: (input: JobInputs[K]) => Promise<unknown> };
void JOB_WORKFLOWS;
