// A run's export archive, stored once per run (migrations/0016_run_exports.ts). The archive travels as base64 text in
// a bound parameter and comes back the same way: one form on PGlite and PostgreSQL, with no inlined hex literal of a
// megabyte-sized value on the event loop.
import { createHash } from 'node:crypto';
import type { Tx } from '../db.ts';

export type StoredRunExport = { archive: Buffer; sha256: string; created_at: string };

/** The stored archive of `run_id` when it belongs to `org_id`; undefined when none is stored (or the run is another's). */
export async function storedRunExport(db: Tx, run_id: string, org_id: string): Promise<StoredRunExport | undefined> {
  const [row] = await db.bound<{ archive: string; sha256: string; created_at: Date | string }>(
    `select encode(archive, 'base64') as archive, sha256, created_at from run_exports where run_id = $1 and org_id = $2`,
    [run_id, org_id],
  );
  if (!row) return undefined;
  const created_at = row.created_at instanceof Date ? row.created_at.toISOString() : new Date(row.created_at).toISOString();
  return { archive: Buffer.from(row.archive, 'base64') /* PostgreSQL breaks its base64 into lines; the decoder skips them */, sha256: row.sha256, created_at };
}

/**
 * Stores a run's archive unless one is stored already (another process built it at the same time: the first stored
 * wins), and answers the stored one, so every download of a run serves the same bytes.
 */
export async function storeRunExport(db: Tx, input: { run_id: string; org_id: string; archive: Uint8Array }): Promise<StoredRunExport> {
  const archive = Buffer.from(input.archive.buffer, input.archive.byteOffset, input.archive.byteLength);
  const sha256 = createHash('sha256').update(archive).digest('hex');
  await db.bound(
    `insert into run_exports (run_id, org_id, archive, size_bytes, sha256) values ($1, $2, decode($3, 'base64'), $4, $5)
     on conflict (run_id) do nothing`,
    [input.run_id, input.org_id, archive.toString('base64'), archive.byteLength, sha256],
  );
  return (await storedRunExport(db, input.run_id, input.org_id))!;
}
