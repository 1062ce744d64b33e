// Reading an extraction request's PDFs on a worker (docs/deploy.md "Where the work runs"): one activity reads the
// sources the API staged in the database and stores them; the workflow returns their ids. Input and result are ids only,
// so the history holds no text of the sources (docs/decisions.md). The API sets the execution timeout and waits for the
// result; a typed failure (a limit the request broke) reaches it as the activity threw it.
import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import type { IntakeReadInput, IntakeReadResult } from '../domain/jobs.ts';
import { ACTIVITY_PROFILES } from './activityOptions.ts';

const { readStagedIntakeSources } = proxyActivities<Activities>(ACTIVITY_PROFILES.intake_read);

export async function intakeReadWorkflow(input: IntakeReadInput): Promise<IntakeReadResult> {
  return readStagedIntakeSources(input);
}
