// The long jobs' rows as the store sees them: what the reconcilers read of a row left queued, the one helper that moves
// a row along its kind's lifecycle (domain/jobs.ts), and each job's credits reserved at creation (ARCHITECTURE.md: How a request flows, step 4 — one admission rule for every kind of job).
import type { Subject } from '../domain/credits/rules.ts';
import type { JobFailure } from '../domain/contracts/jobFailure.ts';
import { invariant } from '../domain/errors.ts';
import {
  canMoveJob,
  JOB_CREDITS,
  JOB_LIFECYCLES,
  type JobLifecycle,
  type JobStates,
  jobEnded,
  type MeteredJobKind,
  meteredTransferIds,
} from '../domain/jobs.ts';
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

// ---------------------------------------------------------------------------------------------------------------------
// Moving a job's row

/** Each kind's table and the columns its moves stamp: when work first started, when the row ended. */
const JOB_TABLES: { [K in MeteredJobKind]: { table: string; started_at: string | null; started_state: JobStates[K] | null; ended_at: string } } = {
  run: { table: 'runs', started_at: 'started_at', started_state: 'running', ended_at: 'finished_at' },
  review: { table: 'reviews', started_at: null, started_state: null, ended_at: 'finished_at' },
  intake_draft: { table: 'intake_drafts', started_at: 'started_at', started_state: 'drafting', ended_at: 'finished_at' },
  authoring: { table: 'authoring_sessions', started_at: null, started_state: null, ended_at: 'ended_at' },
};

/** A column a move also sets: a JSON value (written as jsonb), a plain value, or undefined to leave it as it is. */
export type JobColumns = Record<string, unknown>;

/**
 * Moves a job's row to `to` along its kind's lifecycle (domain/jobs.ts: JOB_LIFECYCLES), in one conditional update:
 * only from a state that may move there (of `from`, when given), stamping the start and end columns once, with the
 * `set` columns. Returns whether the row moved; a row in any other state (ended, or moved on by someone else) is left
 * as it is, so a retried or late step changes nothing.
 */
export async function moveJob<K extends MeteredJobKind>(
  tx: Tx,
  kind: K,
  id: string,
  to: JobStates[K],
  options: { from?: readonly JobStates[K][]; set?: JobColumns } = {},
): Promise<boolean> {
  const { table, started_at, started_state, ended_at } = JOB_TABLES[kind];
  // A state that has not ended may also be moved to again, with new columns (a review stores its result while verifying).
  const allowed = (state: JobStates[K]) => canMoveJob(kind, state, to) || (state === to && !jobEnded(kind, to));
  const from = (options.from ?? (JOB_LIFECYCLES[kind] as JobLifecycle<JobStates[K]>).states).filter(allowed);
  if (from.length === 0) return false;
  const assignments = ['status = ?', 'updated_at = now()'];
  const params: unknown[] = [to];
  if (started_at && to === started_state) assignments.push(`${started_at} = coalesce(${started_at}, now())`);
  if (jobEnded(kind, to)) assignments.push(`${ended_at} = coalesce(${ended_at}, now())`);
  for (const [column, value] of Object.entries(options.set ?? {})) {
    if (value === undefined) continue;
    invariant(/^[a-z_]+$/.test(column), `a job column name is a plain identifier (${column})`);
    const json = value !== null && typeof value === 'object';
    assignments.push(json ? `${column} = ?::jsonb` : `${column} = ?`);
    params.push(json ? JSON.stringify(value) : value);
  }
  const rows = await tx.query(`update ${table} set ${assignments.join(', ')} where id = ? and status in (${from.map(() => '?').join(', ')}) returning id`, [
    ...params,
    id,
    ...from,
  ]);
  return rows.length > 0;
}

// ---------------------------------------------------------------------------------------------------------------------
// Rows whose workflow ended outside its own steps

/** A job's row that has not ended: what the maintenance reconciler checks against its workflow. */
export type OpenJobRow = { id: string; status: string };

/**
 * Rows of `kind` that have not ended and have not moved for `older_than_ms`, at most `limit` of them, picked at random:
 * rows whose work legitimately goes on (a session waiting for its person) never hide the others from later passes.
 */
export async function openJobRows(tx: Tx, kind: MeteredJobKind, older_than_ms: number, limit: number): Promise<OpenJobRow[]> {
  const { table } = JOB_TABLES[kind];
  const lifecycle = JOB_LIFECYCLES[kind] as JobLifecycle<string>;
  const open = lifecycle.states.filter((state) => !lifecycle.ended.includes(state));
  return tx.query<OpenJobRow>(
    `select id, status from ${table} where status in (${open.map(() => '?').join(', ')}) and updated_at < now() - (? * interval '1 millisecond')
     order by random() limit ?`,
    [...open, older_than_ms, limit],
  );
}

/** The column each kind records its failure in, with what else an end of nothing charged sets. */
const END_COLUMNS: { [K in MeteredJobKind]: (failure: JobFailure) => JobColumns } = {
  run: (failure) => ({ error: failure, credits_used: 0 }),
  review: (failure) => ({ failure, credits_used: 0 }),
  intake_draft: (failure) => ({ error: failure }),
  authoring: (failure) => ({ error: failure }),
};

/**
 * Ends a row whose workflow ended without ending it (terminated or canceled before this release by an operator, failed,
 * or timed out): `canceled` with CANCELED when it was stopped from outside, `failed` otherwise (each kind's other end
 * when its lifecycle has no move to that one from where the row is), and its reservation voided: nothing is charged for
 * work the service did not finish. Returns whether the row moved (a row that moved on meanwhile is left as it is).
 */
export async function endOrphanedJob(tx: Tx, kind: MeteredJobKind, row: OpenJobRow, how: 'stopped' | 'failed'): Promise<boolean> {
  const failure: JobFailure =
    how === 'stopped'
      ? { code: 'CANCELED', message: 'the job was stopped outside the service (by an operator) before it finished; nothing was charged; start it again' }
      : { code: 'INTERNAL', message: 'the job ended inside the service before it finished; nothing was charged; start it again' };
  const status = row.status as JobStates[typeof kind];
  const preferred = (how === 'stopped' ? 'canceled' : 'failed') as JobStates[typeof kind];
  const other = (how === 'stopped' ? 'failed' : 'canceled') as JobStates[typeof kind];
  // moveJob refuses a move the kind's lifecycle does not have (an authoring session has no `canceled`).
  const to = canMoveJob(kind, status, preferred) ? preferred : other;
  if (!(await moveJob(tx, kind, row.id, to, { from: [status], set: END_COLUMNS[kind](failure) }))) return false;
  if (kind === 'run') await tx.query('update runs set settled_at = coalesce(settled_at, now()) where id = ?', [row.id]);
  await voidPendingJobReservations(tx, kind, row.id);
  return true;
}

/**
 * Settles at 0 every reservation of a job still pending (a session's reservation of a later AI step too), each under its
 * saga's own settlement id: what a job that ended outside its workflow had reserved is all released.
 */
async function voidPendingJobReservations(tx: Tx, kind: MeteredJobKind, resource_id: string): Promise<number> {
  const pending = await tx.query<{ id: string; transfer_key: string }>(
    "select id, transfer_key from credit_transfers where subject_kind = ? and subject_id = ? and kind = 'reservation' and status = 'pending' order by seq",
    [JOB_CREDITS[kind].subject_kind, resource_id],
  );
  for (const reservation of pending) {
    const base = reservation.transfer_key.replace(/:reserve$/, '');
    await settle(tx, {
      transfer_id: meteredTransferIds(base).settle,
      reservation_id: reservation.id,
      credits_used: 0,
      reason: `${JOB_CREDITS[kind].reason}: ended outside its workflow before using credits`,
    });
  }
  return pending.length;
}
