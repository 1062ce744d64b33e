// Pollable rows kept in memory on the embedded PGlite (docs/performance.md): a polled draft, review, run or project
// answers without a query. Exact, not "fresh enough": every write to a PGlite database goes through the one process
// that owns it, and a trigger announces every change of a cached row or of a row its view reads (migrations 0010 and
// 0012). PGlite hands the notice to the feed during the COMMIT's own response, before the committing caller resumes,
// so a read after a write this process committed never sees the old row. A read that overlapped any notice is not
// kept, nor one during which any read took MikroORM's path: only what the prepared path read (which holds PGlite's
// transaction lock, so no transaction is open) is kept, as that can never be a transaction's uncommitted state. Only
// reads on the database itself are cached, never inside a transaction. Not used on PostgreSQL, where another process's
// notice arrives later than its commit.
import type { ChangeFeed } from './changes.ts';

/** Row ids kept per process; the oldest goes first. */
export const ROW_CACHE_IDS_MAX = 10_000;

export type RowCache = {
  /** `load`'s answer for (id, part), from memory when no change of `id` was announced since it was kept. */
  read<T extends object>(id: string, part: string, load: () => Promise<T | undefined>): Promise<T | undefined>;
};

/** `ordinary_reads`: how many reads on the database took MikroORM's path so far (store/db.ts). */
export function createRowCache(changes: ChangeFeed, ordinary_reads: () => number): RowCache {
  const rows = new Map<string, Map<string, object>>();
  /** Bumped on every notice: a load that overlapped one is not kept. */
  let generation = 0;
  let listening: Promise<boolean> | null = null;
  const listen = () =>
    (listening ??= changes
      .observe((id) => {
        generation++;
        if (id === null) rows.clear();
        else rows.delete(id);
      })
      .then(
        () => true,
        () => false,
      ));

  return {
    async read(id, part, load) {
      const kept = rows.get(id)?.get(part);
      // A shallow copy: a caller that sets a field does not change what the next caller reads.
      if (kept) return { ...kept } as never;
      if (!(await listen())) return load();
      const before = generation;
      const ordinary_before = ordinary_reads();
      const value = await load();
      if (value === undefined || generation !== before || ordinary_reads() !== ordinary_before) return value;
      let parts = rows.get(id);
      if (!parts) {
        if (rows.size >= ROW_CACHE_IDS_MAX) rows.delete(rows.keys().next().value!);
        parts = new Map();
        rows.set(id, parts);
      }
      parts.set(part, { ...value });
      return value;
    },
  };
}

/** Reads through the database's row cache when `tx` is a PGlite database itself (not a transaction). */
export function cachedRow<T extends object>(tx: unknown, id: string, part: string, load: () => Promise<T | undefined>): Promise<T | undefined> {
  const cache = (tx as { row_cache?: RowCache }).row_cache;
  return cache ? cache.read(id, part, load) : load();
}
