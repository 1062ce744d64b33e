// Metered AI calls: one row per call, recorded once per activity execution so a retried activity
// never records (or charges) twice.
import type { Static } from 'typebox';
import type { AiCallProvider as AiProvider } from '../../domain/ai/keys.ts';
import type { AiSubject as AiSubjectBody, AiUsage } from '../../domain/contracts/providerKeys.ts';
import { newId } from '../../domain/ids.ts';
import { isoRequired } from '../../domain/time.ts';
import type { Tx } from '../db.ts';

export type AiSubject = Static<typeof AiSubjectBody>;

/** A metered AI call as the API lists it (domain/contracts/providerKeys.ts). */
export type AiUsageView = Static<typeof AiUsage>;

export type AiUsageInput = Omit<AiUsageView, 'id' | 'created_at'> & {
  key_id: string | null;
  /** The activity execution that made the call: Temporal's workflow id, run id and activity id. */
  call: { workflow_id: string; run_id: string; activity_id: string };
};

function view(row: Record<string, unknown>): AiUsageView {
  return {
    id: row.id as string,
    org_id: row.org_id as string,
    provider: row.provider as AiProvider,
    model: row.model as string,
    byok: row.byok as boolean,
    input_tokens: Number(row.input_tokens),
    output_tokens: Number(row.output_tokens),
    duration_ms: Number(row.duration_ms),
    subject: { project_id: (row.project_id as string | null) ?? null, kind: row.subject_kind as string, id: row.subject_id as string },
    task: row.task as string,
    credits_charged: Number(row.credits_charged),
    credits_absorbed: Number(row.credits_absorbed ?? 0),
    created_at: isoRequired(row.created_at),
  };
}

/**
 * Records a call once per (workflow id, run id, activity id). A second record for the same activity execution (a retry
 * after the first attempt recorded but its completion was lost) returns the first row, whose credits stand.
 */
export async function recordAiUsage(tx: Tx, input: AiUsageInput): Promise<{ usage: AiUsageView; recorded_now: boolean }> {
  const inserted = await tx.query(
    `insert into ai_usage (id, org_id, provider, model, byok, key_id, input_tokens, output_tokens, duration_ms,
       project_id, subject_kind, subject_id, task, credits_charged, credits_absorbed, workflow_id, run_id, activity_id)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     on conflict (workflow_id, run_id, activity_id) do nothing returning *`,
    [
      newId('use'),
      input.org_id,
      input.provider,
      input.model,
      input.byok,
      input.key_id,
      input.input_tokens,
      input.output_tokens,
      input.duration_ms,
      input.subject.project_id,
      input.subject.kind,
      input.subject.id,
      input.task,
      input.credits_charged,
      input.credits_absorbed,
      input.call.workflow_id,
      input.call.run_id,
      input.call.activity_id,
    ],
  );
  if (inserted[0]) return { usage: view(inserted[0]), recorded_now: true };
  const existing = await tx.one('select * from ai_usage where workflow_id = ? and run_id = ? and activity_id = ?', [
    input.call.workflow_id,
    input.call.run_id,
    input.call.activity_id,
  ]);
  return { usage: view(existing!), recorded_now: false };
}

/** An organization's metered calls, newest first (limit+1 rows for paging). */
export async function listAiUsage(tx: Tx, org_id: string, offset: number, limit: number): Promise<AiUsageView[]> {
  const rows = await tx.query('select * from ai_usage where org_id = ? order by created_at desc, id desc offset ? limit ?', [org_id, offset, limit + 1]);
  return rows.map(view);
}
