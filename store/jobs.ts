// The long jobs' rows as the store sees them: what the reconcilers read of a row left queued, and each job's credits
// reserved at creation (ARCHITECTURE.md: How a request flows, step 4 — one admission rule for every kind of job).
import type { Subject } from '../domain/credits/rules.ts';
import { JOB_CREDITS, type MeteredJobKind, meteredTransferIds } from '../domain/jobs.ts';
import { findTransfer, type ReservationView, type ResolutionView, reserve, settle, transferIdFor } from './credits/ledger.ts';
import type { Tx } from './db.ts';

/** What the maintenance reconcilers read of a row left queued: its id and owner (the job's search attributes, domain/jobs.ts). */
export type QueuedJobRow = { id: string; org_id: string; project_id: string };

export type JobReservationInput = {
  kind: MeteredJobKind;
  resource_id: string;
  org_id: string;
  project_id: string;
  /** What the job's workflow reserves for its metered work (0: nothing is reserved, e.g. the organization's own key). */
  credits: number;
  caused_by: string;
};

/** The ledger subject of a job's metered work. */
export function jobSubject(kind: MeteredJobKind, resource_id: string, project_id: string): Subject {
  return { project_id, kind: JOB_CREDITS[kind].subject_kind, id: resource_id };
}

/**
 * Reserves a new job's credits inside its creating transaction, under the transfer id its workflow reserves with (the
 * workflow's reserve then replays this row). This is the admission rule of every kind: the organization's available
 * credits cover this reservation, judged by the ledger under its account locks and CHECK constraints, so concurrent
 * creates cannot all be admitted against one balance; 402 INSUFFICIENT_CREDITS rolls the create back.
 */
export async function reserveJobCredits(tx: Tx, job: JobReservationInput): Promise<ReservationView | null> {
  if (job.credits === 0) return null; // the workflow's saga reserves nothing either (workflows/credits.ts)
  const { reason, transfer_base } = JOB_CREDITS[job.kind];
  return reserve(tx, {
    transfer_id: meteredTransferIds(transfer_base(job.resource_id)).reserve,
    org_id: job.org_id,
    subject: jobSubject(job.kind, job.resource_id, job.project_id),
    credits: job.credits,
    reason,
    caused_by: job.caused_by,
  });
}

/**
 * Resolves the reservation a job made at creation while nothing used it (a queued job canceled before it started; a
 * session that ended before its first AI step), in the caller's transaction: nothing is charged. It is the saga's own
 * settlement of 0 (the same transfer id), so a workflow that reaches its settlement later replays it. A no-op when
 * nothing was reserved or the reservation was resolved already.
 */
export async function voidUnusedJobCredits(tx: Tx, kind: MeteredJobKind, resource_id: string): Promise<ResolutionView | null> {
  const ids = meteredTransferIds(JOB_CREDITS[kind].transfer_base(resource_id));
  const reservation = await findTransfer(tx, transferIdFor(ids.reserve));
  if (reservation?.kind !== 'reservation' || reservation.status !== 'pending') return null;
  return settle(tx, {
    transfer_id: ids.settle,
    reservation_id: reservation.id,
    credits_used: 0,
    reason: `${JOB_CREDITS[kind].reason}: ended before using credits`,
  });
}
