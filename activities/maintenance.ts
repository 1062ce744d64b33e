// Housekeeping run by the maintenance schedule (one workflow per tick, workflows/maintenance.ts): idempotency records
// past retention, expired sign-in counters, quarantined lines past their retention, abandoned staged reads, and the
// reconcilers (ARCHITECTURE.md: How a request flows, step 3) that start the workflow of every row left queued, through
// the same startJob the routes use, so nothing stays queued forever.
import { ServiceError } from '../domain/errors.ts';
import type { JobKind, MeteredJobKind } from '../domain/jobs.ts';
import { jobWorkflowEndedOutside, startJobOf } from '../integrations/temporal/jobs.ts';
import { purgeExpiredSignInAttempts } from '../store/accounts/signInAttempts.ts';
import { purgeIdempotencyRecords } from '../store/idempotency.ts';
import { queuedDrafts } from '../store/intake/drafts.ts';
import { purgeQuarantinedLines } from '../store/intake/quarantine.ts';
import { purgeAbandonedStagedReads } from '../store/intake/staged.ts';
import { queuedReviews } from '../store/reviews/reviews.ts';
import { queuedRuns } from '../store/runs/runs.ts';
import { endOrphanedJob, openJobRows } from '../store/jobs.ts';
import type { ActivityDeps } from './deps.ts';

/** A row still queued after this long is (re)started; a younger one may still be starting from its route. */
export const QUEUED_JOB_RESTART_AFTER_MS = 5 * 60 * 1000;
/** Jobs (re)started per kind per reconciler pass; the next tick takes the rest. */
export const QUEUED_JOBS_PER_PASS_MAX = 100;

export type ReconciledKind = Extract<JobKind, 'run' | 'review' | 'intake_draft'>;

/** Each reconciled kind's rows left queued. */
const queuedRows: Record<ReconciledKind, typeof queuedRuns> = { run: queuedRuns, review: queuedReviews, intake_draft: queuedDrafts };

export function maintenanceActivities(deps: ActivityDeps) {
  return {
    async purgeExpiredIdempotencyRecords(): Promise<{ purged: number }> {
      return { purged: await purgeIdempotencyRecords(deps.db) };
    },

    /** Sign-in attempt counters whose window has ended (store/accounts/signInAttempts.ts). */
    async purgeExpiredSignInAttempts(): Promise<{ purged: number }> {
      return { purged: await purgeExpiredSignInAttempts(deps.db) };
    },

    /** Quarantined sources' sealed lines past CRUCIBLE_QUARANTINE_RETENTION_DAYS (store/intake/quarantine.ts). */
    async purgeExpiredQuarantinedLines(): Promise<{ purged: number }> {
      return { purged: await purgeQuarantinedLines(deps.db, deps.config.quarantine_retention_days) };
    },

    /** Extraction requests staged for a worker that nobody will read any more (store/intake/staged.ts). */
    async purgeAbandonedStagedReads(): Promise<{ purged: number }> {
      return { purged: await purgeAbandonedStagedReads(deps.db) };
    },

    /** Starts the workflow of every row of `kind` queued longer than older_than_ms; one already started or finished is skipped. */
    async reconcileQueuedJobs(input: { kind: ReconciledKind; older_than_ms?: number }): Promise<{ started: number }> {
      const temporal = deps.jobs;
      if (!temporal) throw new ServiceError('INTERNAL', 'the reconciler runs on a worker without a Temporal client');
      const rows = await queuedRows[input.kind](deps.db, input.older_than_ms ?? QUEUED_JOB_RESTART_AFTER_MS, QUEUED_JOBS_PER_PASS_MAX);
      let started = 0;
      for (const row of rows) {
        if ((await startJobOf(temporal, input.kind, row)) === 'started') started += 1;
      }
      return { started };
    },

    /**
     * Ends every row of `kind` left open after its workflow ended without ending it (terminated or failed; canceled by an
     * operator before a cancel waited for a job's first step), its reservations released: nothing stays reserved for
     * work nobody will do. A row whose workflow still runs, completed, or is unknown to Temporal is left alone.
     */
    async reconcileEndedJobs(input: { kind: MeteredJobKind; older_than_ms?: number }): Promise<{ ended: number }> {
      const temporal = deps.jobs;
      if (!temporal) throw new ServiceError('INTERNAL', 'the reconciler runs on a worker without a Temporal client');
      const rows = await openJobRows(deps.db, input.kind, input.older_than_ms ?? QUEUED_JOB_RESTART_AFTER_MS, QUEUED_JOBS_PER_PASS_MAX);
      let ended = 0;
      for (const row of rows) {
        const how = await jobWorkflowEndedOutside(temporal, input.kind, row.id);
        if (how && (await deps.db.transaction((tx) => endOrphanedJob(tx, input.kind, row, how)))) ended += 1;
      }
      return { ended };
    },
  };
}
