// The periodic maintenance workflow, started by the maintenance schedule (domain/jobs.ts: MAINTENANCE_INTERVAL_MINUTES):
// purge idempotency records past retention and expired sign-in counters, reconcile rows whose workflow never started
// (ARCHITECTURE.md: How a request flows, step 3) so nothing is left queued forever, then purge quarantined sources' sealed
// lines past their retention and extraction requests staged for a worker that nobody will read, and end the rows whose
// workflow ended without ending them (terminated by an operator, failed), releasing what they had reserved. The
// reconcilers are activities, so one tick is one workflow execution and an idle service does not bury the jobs operators
// look for (docs/operators.md).
import { patched, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { ACTIVITY_PROFILES } from './activityOptions.ts';

const {
  purgeExpiredIdempotencyRecords,
  purgeExpiredSignInAttempts,
  purgeExpiredQuarantinedLines,
  purgeAbandonedStagedReads,
  reconcileQueuedJobs,
  reconcileEndedJobs,
} = proxyActivities<Activities>(ACTIVITY_PROFILES.maintenance);

/** A maintenance tick in flight when the purge arrived replays without it (Temporal's patching). */
export const QUARANTINE_PURGE_PATCH = 'quarantine-purge';
/** Likewise for the purge of abandoned staged reads. */
export const STAGED_READ_PURGE_PATCH = 'staged-read-purge';
/** Likewise for ending the rows whose workflow ended without them. */
export const ENDED_JOBS_PATCH = 'ended-jobs-reconcile';

/** The kinds whose rows the ended-jobs reconciler checks against their workflows. */
const ENDED_JOB_KINDS = ['run', 'review', 'intake_draft', 'authoring'] as const;

export type MaintenanceInput = {
  /** Restart rows queued longer than this (default: the reconciler's own, 5 minutes); tests pass 0. */
  older_than_ms?: number;
};

export type MaintenanceResult = {
  idempotency_records_purged: number;
  sign_in_attempts_purged: number;
  intake_drafts_started: number;
  reviews_started: number;
  runs_started: number;
  quarantined_sources_purged: number;
  /** extraction requests staged for a worker by an API process that died while it waited */
  staged_reads_purged: number;
  /** rows left open after their workflow ended without ending them (terminated, failed), ended with their credits released */
  jobs_ended?: number;
};

export async function maintenanceWorkflow(input: MaintenanceInput = {}): Promise<MaintenanceResult> {
  const { purged } = await purgeExpiredIdempotencyRecords();
  const attempts = await purgeExpiredSignInAttempts();
  const { older_than_ms } = input;
  const drafts = await reconcileQueuedJobs({ kind: 'intake_draft', older_than_ms });
  const reviews = await reconcileQueuedJobs({ kind: 'review', older_than_ms });
  const runs = await reconcileQueuedJobs({ kind: 'run', older_than_ms });
  const quarantine = patched(QUARANTINE_PURGE_PATCH) ? await purgeExpiredQuarantinedLines() : { purged: 0 };
  const staged = patched(STAGED_READ_PURGE_PATCH) ? await purgeAbandonedStagedReads() : { purged: 0 };
  let jobs_ended: number | undefined;
  if (patched(ENDED_JOBS_PATCH)) {
    jobs_ended = 0;
    for (const kind of ENDED_JOB_KINDS) jobs_ended += (await reconcileEndedJobs({ kind, older_than_ms })).ended;
  }
  return {
    idempotency_records_purged: purged,
    sign_in_attempts_purged: attempts.purged,
    intake_drafts_started: drafts.started,
    reviews_started: reviews.started,
    runs_started: runs.started,
    quarantined_sources_purged: quarantine.purged,
    staged_reads_purged: staged.purged,
    ...(jobs_ended === undefined ? {} : { jobs_ended }),
  };
}
