// Authoring sessions and their checkpoints (spec: Authoring sessions (beta)). The workflow writes through activities;
// GET reads these rows, so a session is readable while no worker runs.
import type { AiLimits, Checkpoint } from '../../domain/authoring/checkpoint.ts';
import type { WorldSpec } from '../../domain/contracts/worldSpec.ts';
import { newId } from '../../domain/ids.ts';
import { isoRequired } from '../../domain/time.ts';
import type { Tx } from '../db.ts';
import { cachedRow } from '../rowCache.ts';

import type { JobFailure } from '../../domain/contracts/jobFailure.ts';
import { jobFailureFromStored, SESSION_STATUSES } from '../../domain/jobs.ts';
import { moveJob } from '../jobs.ts';

export { SESSION_STATUSES };
export type SessionStatus = (typeof SESSION_STATUSES)[number];

export type SessionRow = {
  id: string;
  org_id: string;
  project_id: string;
  intake_revision_id: string | null;
  status: SessionStatus;
  byok_provider: 'openai' | 'anthropic' | 'google' | null;
  ai_limits: AiLimits;
  starting_world: WorldSpec | null;
  wait_seconds_max: number;
  checkpoint_count: number;
  cap_reached: boolean;
  world_revision_id: string | null;
  failure: JobFailure | null;
  created_by: string;
  created_at: string;
  updated_at: string;
  ended_at: string | null;
};

function json<T>(value: unknown): T {
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}

function row(raw: Record<string, unknown>): SessionRow {
  return {
    id: raw.id as string,
    org_id: raw.org_id as string,
    project_id: raw.project_id as string,
    intake_revision_id: (raw.intake_revision_id as string | null) ?? null,
    status: raw.status as SessionStatus,
    byok_provider: (raw.byok_provider as SessionRow['byok_provider']) ?? null,
    ai_limits: json<AiLimits>(raw.ai_limits),
    starting_world: raw.starting_world == null ? null : json<WorldSpec>(raw.starting_world),
    wait_seconds_max: Number(raw.wait_seconds_max),
    checkpoint_count: Number(raw.checkpoint_count),
    cap_reached: Boolean(raw.cap_reached),
    world_revision_id: (raw.world_revision_id as string | null) ?? null,
    failure: raw.error == null ? null : jobFailureFromStored(json(raw.error)),
    created_by: raw.created_by as string,
    created_at: isoRequired(raw.created_at),
    updated_at: isoRequired(raw.updated_at),
    ended_at: raw.ended_at == null ? null : isoRequired(raw.ended_at),
  };
}

export async function createSession(
  tx: Tx,
  input: Pick<
    SessionRow,
    'org_id' | 'project_id' | 'intake_revision_id' | 'byok_provider' | 'ai_limits' | 'starting_world' | 'wait_seconds_max' | 'created_by'
  >,
): Promise<SessionRow> {
  const [created] = await tx.query(
    `insert into authoring_sessions (id, org_id, project_id, intake_revision_id, status, byok_provider, ai_limits, starting_world, wait_seconds_max, created_by)
     values (?, ?, ?, ?, 'drafting', ?, ?::jsonb, ?::jsonb, ?, ?) returning *`,
    [
      newId('sess'),
      input.org_id,
      input.project_id,
      input.intake_revision_id,
      input.byok_provider,
      JSON.stringify(input.ai_limits),
      input.starting_world === null ? null : JSON.stringify(input.starting_world),
      input.wait_seconds_max,
      input.created_by,
    ],
  );
  return row(created!);
}

export async function findSession(tx: Tx, id: string): Promise<SessionRow | undefined> {
  return cachedRow(tx, id, 'session', async () => {
    const found = await tx.one('select * from authoring_sessions where id = ?', [id]);
    return found && row(found);
  });
}

/** A project's sessions, newest first; fetches limit+1 rows for `page()`. */
export async function listSessions(tx: Tx, project_id: string, offset: number, limit: number): Promise<SessionRow[]> {
  const rows = await tx.query('select * from authoring_sessions where project_id = ? order by created_at desc, id desc offset ? limit ?', [
    project_id,
    offset,
    limit + 1,
  ]);
  return rows.map(row);
}

export async function latestCheckpoint(tx: Tx, session_id: string): Promise<Checkpoint | null> {
  // Kept as JSON text (a new checkpoint announces its session: 0013), so every reader gets a body of its own.
  const kept = await cachedRow(tx, session_id, 'latest checkpoint', async () => {
    const found = await tx.one<{ body: unknown }>('select body from authoring_checkpoints where session_id = ? order by number desc limit 1', [session_id]);
    return { text: found ? JSON.stringify(json<Checkpoint>(found.body)) : null };
  });
  return kept?.text ? (JSON.parse(kept.text) as Checkpoint) : null;
}

/** Stores checkpoint n once (a retried activity finds it) and moves the session to `status`. */
export async function writeCheckpoint(tx: Tx, input: { session_id: string; checkpoint: Checkpoint; status: SessionStatus }): Promise<void> {
  await tx.query('insert into authoring_checkpoints (session_id, number, body) values (?, ?, ?::jsonb) on conflict do nothing', [
    input.session_id,
    input.checkpoint.number,
    JSON.stringify(input.checkpoint),
  ]);
  await tx.query(
    `update authoring_sessions set status = ?, checkpoint_count = greatest(checkpoint_count, ?), cap_reached = ?, updated_at = now()
     where id = ? and status in ('drafting', 'waiting')`,
    [input.status, input.checkpoint.number, input.checkpoint.ai.cap_reached, input.session_id],
  );
}

export async function setSessionStatus(tx: Tx, id: string, status: SessionStatus, failure: JobFailure | null = null): Promise<void> {
  await moveJob(tx, 'authoring', id, status, { set: { error: failure } });
}

export async function markApproved(tx: Tx, id: string, world_revision_id: string): Promise<void> {
  await moveJob(tx, 'authoring', id, 'approved', { set: { world_revision_id } });
}
