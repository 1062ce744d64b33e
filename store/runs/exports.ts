// A run's export archive, stored once per run (migrations/0016_run_exports.ts) in parts of EXPORT_PART_BYTES
// (migrations/0018_run_export_parts.ts): written one part per statement and read one part per statement as the download
// is sent, so no statement carries the whole archive (on the embedded PGlite every statement runs on the API's thread).
// A part travels as base64 text in a bound parameter and comes back the same way: one form on PGlite and PostgreSQL.
import { createHash } from 'node:crypto';
import type { Db, Tx } from '../db.ts';

/** The size of a stored part (the last may be shorter). */
export const EXPORT_PART_BYTES = 256 * 1024;

export type StoredRunExport = {
  size_bytes: number;
  sha256: string;
  created_at: string;
  /** The archive's bytes, read one part at a time as they are asked for. */
  parts(): AsyncGenerator<Buffer>;
};

/** The stored archive of `run_id` when it belongs to `org_id`; undefined when none is stored (or the run is another's). */
export async function storedRunExport(db: Tx, run_id: string, org_id: string): Promise<StoredRunExport | undefined> {
  const [row] = await db.bound<{ size_bytes: number | string; sha256: string; created_at: Date | string }>(
    'select size_bytes, sha256, created_at from run_exports where run_id = $1 and org_id = $2',
    [run_id, org_id],
  );
  if (!row) return undefined;
  const created_at = row.created_at instanceof Date ? row.created_at.toISOString() : new Date(row.created_at).toISOString();
  return {
    size_bytes: Number(row.size_bytes),
    sha256: row.sha256,
    created_at,
    async *parts() {
      for (let part = 0; ; part++) {
        const [found] = await db.bound<{ bytes: string }>(`select encode(bytes, 'base64') as bytes from run_export_parts where run_id = $1 and part = $2`, [
          run_id,
          part,
        ]);
        if (!found) return;
        yield Buffer.from(found.bytes, 'base64'); // PostgreSQL breaks its base64 into lines; the decoder skips them
      }
    },
  };
}

/**
 * Stores a run's archive unless one is stored already (another process built it at the same time: the first stored
 * wins), and answers the stored one, so every download of a run serves the same bytes. The row and its parts commit
 * together.
 */
export async function storeRunExport(db: Db, input: { run_id: string; org_id: string; archive: Uint8Array; part_bytes?: number }): Promise<StoredRunExport> {
  const archive = Buffer.from(input.archive.buffer, input.archive.byteOffset, input.archive.byteLength);
  const sha256 = createHash('sha256').update(archive).digest('hex');
  const part_bytes = input.part_bytes ?? EXPORT_PART_BYTES;
  await db.transaction(async (tx) => {
    const created = await tx.bound(
      `insert into run_exports (run_id, org_id, size_bytes, sha256) values ($1, $2, $3, $4) on conflict (run_id) do nothing returning run_id`,
      [input.run_id, input.org_id, archive.byteLength, sha256],
    );
    if (created.length === 0) return;
    for (let offset = 0, part = 0; offset < archive.byteLength; offset += part_bytes, part++) {
      await tx.bound(`insert into run_export_parts (run_id, part, bytes) values ($1, $2, decode($3, 'base64'))`, [
        input.run_id,
        part,
        archive.subarray(offset, offset + part_bytes).toString('base64'),
      ]);
    }
  });
  return (await storedRunExport(db, input.run_id, input.org_id))!;
}
