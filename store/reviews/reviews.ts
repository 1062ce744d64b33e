// Concept reviews: the row the API reads and the workflow moves through its states, and the literature it retrieved
// (ARCHITECTURE.md: How a request flows, step 3 — the row is the source of truth).
import type { ConceptReview } from '../../domain/contracts/conceptReview.ts';
import { invariant } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import type { LiteratureRecord } from '../../domain/reviews/literature.ts';
import { REVIEW_STATES, type ReviewState } from '../../domain/reviews/states.ts';
import { iso, isoRequired } from '../../domain/time.ts';
import { notFound, type Tx } from '../db.ts';
import { moveJob, type QueuedJobRow, voidUnusedJobCredits } from '../jobs.ts';
import type { HostedAiProvider } from '../../domain/ai/providers.ts';
import { cachedRow } from '../rowCache.ts';

import type { JobFailure } from '../../domain/contracts/jobFailure.ts';
import { jobFailureFromStored } from '../../domain/jobs.ts';

export type ReviewRow = {
  id: string;
  project_id: string;
  org_id: string;
  plan_id: string;
  status: ReviewState;
  byok_provider: HostedAiProvider | null;
  credits_reserved: number;
  credits_used: number | null;
  literature_query: string | null;
  searched_at: string | null;
  result: ConceptReview | null;
  failure: JobFailure | null;
  created_by: string;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
};

function parse<T>(value: unknown): T | null {
  if (value === null || value === undefined) return null;
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}

function row(r: Record<string, unknown>): ReviewRow {
  const status = r.status as ReviewState;
  invariant(REVIEW_STATES.includes(status), `review state ${status} is known`);
  return {
    id: r.id as string,
    project_id: r.project_id as string,
    org_id: r.org_id as string,
    plan_id: r.plan_id as string,
    status,
    byok_provider: (r.byok_provider as ReviewRow['byok_provider']) ?? null,
    credits_reserved: Number(r.credits_reserved),
    credits_used: r.credits_used === null || r.credits_used === undefined ? null : Number(r.credits_used),
    literature_query: (r.literature_query as string | null) ?? null,
    searched_at: iso(r.searched_at),
    result: parse<ConceptReview>(r.result),
    failure: jobFailureFromStored(parse<JobFailure>(r.failure)),
    created_by: r.created_by as string,
    created_at: isoRequired(r.created_at),
    updated_at: isoRequired(r.updated_at),
    finished_at: iso(r.finished_at),
  };
}

export async function createReview(
  tx: Tx,
  input: { project_id: string; org_id: string; plan_id: string; byok_provider: ReviewRow['byok_provider']; credits_reserved: number; created_by: string },
): Promise<ReviewRow> {
  const [r] = await tx.query(
    `insert into reviews (id, project_id, org_id, plan_id, status, byok_provider, credits_reserved, created_by)
     values (?, ?, ?, ?, 'queued', ?, ?, ?) returning *`,
    [newId('rev'), input.project_id, input.org_id, input.plan_id, input.byok_provider, input.credits_reserved, input.created_by],
  );
  return row(r!);
}

export async function findReview(tx: Tx, id: string): Promise<ReviewRow | undefined> {
  return cachedRow(tx, id, 'review', async () => {
    const r = await tx.one('select * from reviews where id = ?', [id]);
    return r && row(r);
  });
}

/** A project's reviews, newest first (one page; limit + 1 rows to see a next page). */
export async function listReviews(tx: Tx, project_id: string, offset: number, limit: number): Promise<ReviewRow[]> {
  const rows = await tx.query('select * from reviews where project_id = ? order by created_at desc, id desc offset ? limit ?', [project_id, offset, limit + 1]);
  return rows.map(row);
}

/**
 * Moves a review to `to` when the transition is allowed from its current state; returns the row after the attempt.
 * A finished review never moves again (a retried activity after cancel or failure is a no-op).
 */
export async function moveReview(
  tx: Tx,
  id: string,
  to: ReviewState,
  fields: { result?: ConceptReview; failure?: JobFailure; credits_used?: number; literature_query?: string } = {},
): Promise<ReviewRow> {
  await moveJob(tx, 'review', id, to, {
    set: { result: fields.result, failure: fields.failure, credits_used: fields.credits_used, literature_query: fields.literature_query },
  });
  const current = await tx.one('select * from reviews where id = ?', [id]);
  if (!current) throw notFound(`Review ${id}`);
  return row(current);
}

/**
 * Cancels a review that is still queued, in one conditional update: nothing was used, so credits_used is 0 and its
 * reservation is voided in this transaction. Returns undefined when the review had already left `queued` (its workflow
 * owns it then and records the cancellation).
 */
export async function cancelQueuedReview(tx: Tx, id: string): Promise<ReviewRow | undefined> {
  const failure: JobFailure = { code: 'CANCELED', message: 'the review was canceled before it started; nothing was charged' };
  if (!(await moveJob(tx, 'review', id, 'canceled', { from: ['queued'], set: { failure, credits_used: 0 } }))) return undefined;
  await voidUnusedJobCredits(tx, 'review', id);
  return findReview(tx, id);
}

/** Reviews still queued and older than `older_than_ms`: candidates for the reconciler to (re)start. */
/** Reviews left queued longer than older_than_ms, oldest first, with their owner (the job's search attributes). */
export async function queuedReviews(tx: Tx, older_than_ms: number, limit: number): Promise<QueuedJobRow[]> {
  const rows = await tx.query<QueuedJobRow>(
    `select id, org_id, project_id from reviews where status = 'queued' and created_at < now() - (? * interval '1 millisecond') order by created_at limit ?`,
    [older_than_ms, limit],
  );
  return rows;
}

export type StoredRecord = { record: LiteratureRecord; open_text: string | null };

/** Stores the record set retrieved for a review (replacing any earlier attempt's set: the activity is retried). */
export async function storeReviewRecords(tx: Tx, review_id: string, records: StoredRecord[]): Promise<void> {
  await tx.query('delete from review_records where review_id = ?', [review_id]);
  for (const [position, item] of records.entries()) {
    await tx.query('insert into review_records (review_id, position, record_id, record, open_text) values (?, ?, ?, ?::jsonb, ?)', [
      review_id,
      position,
      item.record.record_id,
      JSON.stringify(item.record),
      item.open_text,
    ]);
  }
}

export async function reviewRecords(tx: Tx, review_id: string): Promise<StoredRecord[]> {
  const rows = await tx.query('select record, open_text from review_records where review_id = ? order by position', [review_id]);
  return rows.map((r) => ({ record: parse<LiteratureRecord>(r.record)!, open_text: (r.open_text as string | null) ?? null }));
}

/** Tokens and credits the review's AI calls recorded (ai_usage, keyed by subject). */
export async function reviewUsage(tx: Tx, review_id: string): Promise<{ calls: number; input_tokens: number; output_tokens: number; credits_charged: number }> {
  return (await cachedRow(tx, review_id, 'review usage', () => reviewUsageRead(tx, review_id)))!;
}

async function reviewUsageRead(tx: Tx, review_id: string): Promise<{ calls: number; input_tokens: number; output_tokens: number; credits_charged: number }> {
  const r = await tx.one<Record<string, unknown>>(
    `select count(*) as calls, coalesce(sum(input_tokens), 0) as input_tokens, coalesce(sum(output_tokens), 0) as output_tokens,
       coalesce(sum(credits_charged), 0) as credits_charged
     from ai_usage where subject_kind = 'review' and subject_id = ?`,
    [review_id],
  );
  return {
    calls: Number(r?.calls ?? 0),
    input_tokens: Number(r?.input_tokens ?? 0),
    output_tokens: Number(r?.output_tokens ?? 0),
    credits_charged: Number(r?.credits_charged ?? 0),
  };
}
