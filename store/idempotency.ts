import type { Db } from './db.ts';

/** Records are kept at least 24 hours; the maintenance workflow purges them after this. */
export const IDEMPOTENCY_RETENTION_HOURS = 72;

export async function purgeIdempotencyRecords(db: Db, older_than_hours = IDEMPOTENCY_RETENTION_HOURS): Promise<number> {
  const rows = await db.query(`delete from idempotency_records where created_at < now() - (? || ' hours')::interval returning key`, [
    String(Math.max(24, older_than_hours)),
  ]);
  return rows.length;
}
