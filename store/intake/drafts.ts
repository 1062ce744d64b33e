// Intake drafting runs: the row the API reads and the workflow moves through its states (ARCHITECTURE.md: How a request flows 3).
import type { Static } from 'typebox';
import { JOB_LIFECYCLES, jobFailureFromStored } from '../../domain/jobs.ts';
import { DRAFT_STATUSES, type DraftUsage as DraftUsageBody } from '../../domain/contracts/intake.ts';
import type { JobFailure } from '../../domain/contracts/jobFailure.ts';
import type { IntakeSpec } from '../../domain/contracts/intakeSpec.ts';
import type { DroppedCitation, DroppedClaim } from '../../domain/intake/citations.ts';
import { newId } from '../../domain/ids.ts';
import { iso, isoRequired } from '../../domain/time.ts';
import type { Tx } from '../db.ts';
import { moveJob, type QueuedJobRow, voidUnusedJobCredits } from '../jobs.ts';
import { parseJson } from './sources.ts';
import { cachedRow } from '../rowCache.ts';

export { DRAFT_STATUSES };
export type DraftStatus = (typeof DRAFT_STATUSES)[number];
export const TERMINAL_DRAFT_STATUSES: readonly DraftStatus[] = JOB_LIFECYCLES.intake_draft.ended;

export type DraftUsage = Static<typeof DraftUsageBody>;

export type DraftView = {
  id: string;
  project_id: string;
  org_id: string;
  source_ids: string[];
  skipped_source_ids: string[];
  byok_provider: string | null;
  status: DraftStatus;
  credits_max: number;
  spec: IntakeSpec | null;
  dropped_citations: { citations: DroppedCitation[]; claims: DroppedClaim[] } | null;
  usage: DraftUsage | null;
  failure: JobFailure | null;
  created_by: string;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
};

function view(row: Record<string, unknown>): DraftView {
  return {
    id: row.id as string,
    project_id: row.project_id as string,
    org_id: row.org_id as string,
    source_ids: parseJson<string[]>(row.source_ids),
    skipped_source_ids: parseJson<string[]>(row.skipped_source_ids) ?? [],
    byok_provider: (row.byok_provider as string | null) ?? null,
    status: row.status as DraftStatus,
    credits_max: Number(row.credits_max),
    spec: parseJson<IntakeSpec | null>(row.spec) ?? null,
    dropped_citations: parseJson<DraftView['dropped_citations']>(row.dropped_citations) ?? null,
    usage: parseJson<DraftUsage | null>(row.usage) ?? null,
    failure: jobFailureFromStored(parseJson<JobFailure | null>(row.error)),
    created_by: row.created_by as string,
    created_at: isoRequired(row.created_at),
    started_at: iso(row.started_at),
    finished_at: iso(row.finished_at),
  };
}

export async function createDraft(
  tx: Tx,
  input: {
    project_id: string;
    org_id: string;
    source_ids: string[];
    skipped_source_ids: string[];
    byok_provider: string | null;
    credits_max: number;
    created_by: string;
  },
): Promise<DraftView> {
  const [row] = await tx.query(
    `insert into intake_drafts (id, project_id, org_id, source_ids, skipped_source_ids, byok_provider, status, credits_max, created_by)
     values (?, ?, ?, ?::jsonb, ?::jsonb, ?, 'queued', ?, ?) returning *`,
    [
      newId('drf'),
      input.project_id,
      input.org_id,
      JSON.stringify(input.source_ids),
      JSON.stringify(input.skipped_source_ids),
      input.byok_provider,
      input.credits_max,
      input.created_by,
    ],
  );
  return view(row!);
}

export async function findDraft(tx: Tx, id: string): Promise<DraftView | undefined> {
  return cachedRow(tx, id, 'draft', async () => {
    const row = await tx.one('select * from intake_drafts where id = ?', [id]);
    return row && view(row);
  });
}

/** queued → drafting; returns the row as it is afterwards (a terminal row stays as it was: safe to retry). */
export async function markDraftStarted(tx: Tx, id: string): Promise<DraftView | undefined> {
  await moveJob(tx, 'intake_draft', id, 'drafting', { from: ['queued'] });
  return findDraft(tx, id);
}

/** drafting → succeeded with the checked spec; a no-op when the row already left drafting. */
export async function markDraftSucceeded(
  tx: Tx,
  input: { id: string; spec: IntakeSpec; dropped: { citations: DroppedCitation[]; claims: DroppedClaim[] }; usage: DraftUsage },
): Promise<DraftView | undefined> {
  await moveJob(tx, 'intake_draft', input.id, 'succeeded', { set: { spec: input.spec, dropped_citations: input.dropped, usage: input.usage, error: null } });
  return findDraft(tx, input.id);
}

/** queued/drafting → failed or canceled, with what is known of the usage; a no-op on a terminal row. */
export async function markDraftEnded(
  tx: Tx,
  input: { id: string; status: 'failed' | 'canceled'; failure: JobFailure | null; usage: DraftUsage | null },
): Promise<DraftView | undefined> {
  await moveJob(tx, 'intake_draft', input.id, input.status, { set: { error: input.failure, usage: input.usage ?? undefined } });
  return findDraft(tx, input.id);
}

/** queued → canceled, only while nothing started (its reservation voided in this transaction): the row when it changed, else undefined. */
export async function markQueuedDraftCanceled(tx: Tx, id: string): Promise<DraftView | undefined> {
  const failure: JobFailure = { code: 'CANCELED', message: 'the draft was canceled before it started' };
  if (!(await moveJob(tx, 'intake_draft', id, 'canceled', { from: ['queued'], set: { error: failure } }))) return undefined;
  await voidUnusedJobCredits(tx, 'intake_draft', id);
  return findDraft(tx, id);
}

/** Drafts still queued after `older_than_ms` (their workflow may never have started), oldest first. */
/** Drafts left queued longer than older_than_ms, oldest first, with their owner (the job's search attributes). */
export async function queuedDrafts(tx: Tx, older_than_ms: number, limit: number): Promise<QueuedJobRow[]> {
  const rows = await tx.query<QueuedJobRow>(
    `select id, org_id, project_id from intake_drafts where status = 'queued' and created_at < now() - (? * interval '1 millisecond') order by created_at, id limit ?`,
    [older_than_ms, limit],
  );
  return rows;
}

export async function listDrafts(tx: Tx, project_id: string, offset: number, limit: number): Promise<DraftView[]> {
  const rows = await tx.query('select * from intake_drafts where project_id = ? order by created_at desc, id desc offset ? limit ?', [
    project_id,
    offset,
    limit + 1,
  ]);
  return rows.map(view);
}
