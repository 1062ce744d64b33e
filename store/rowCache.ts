// Pollable rows kept in memory (docs/performance.md): a polled draft, review, run or project answers without a query.
// Exact, not "fresh enough": a trigger announces every change of a cached row or of a row its view reads (migrations
// 0010 and 0012) on the change feed (store/changes.ts), and a kept row is dropped when its notice arrives.
// - PGlite: every write goes through the one process that owns the database, and PGlite hands the notice to the feed
//   during the COMMIT's own response, before the committing caller resumes, so a read after a committed write never
//   sees the old row. Only what the prepared path read is kept (it holds PGlite's transaction lock, so no transaction
//   is open): never a read during which any read took MikroORM's path, which could be a transaction's uncommitted state.
// - PostgreSQL: another process's notice arrives some time after its commit, so a kept row is answered only after a
//   fence (ChangeFeed.fence) asked for after the read began: every notice of a transaction committed before the read
//   began has been handled by then, so the row is current as of the read's start. Loads run on the pool outside any
//   transaction, so they see committed rows only.
// On both, a load that overlapped any notice (or a lost LISTEN connection) is not kept, nor one made while the feed was
// not listening. Only reads on the database itself are cached, never inside a transaction.
import type { ChangeFeed } from './changes.ts';

/** Row ids kept per process; the oldest goes first. */
export const ROW_CACHE_IDS_MAX = 10_000;

export type RowCache = {
  /** `load`'s answer for (id, part), from memory when no change of `id` was announced since it was kept. */
  read<T extends object>(id: string, part: string, load: () => Promise<T | undefined>): Promise<T | undefined>;
  /** Reads answered from memory and reads that ran `load`, since the cache was made. */
  stats: { hits: number; loads: number };
};

/**
 * `ordinary_reads` (PGlite): how many reads on the database took MikroORM's path so far (store/db.ts); null on
 * PostgreSQL, where every load runs on a pool connection outside any transaction.
 */
export function createRowCache(changes: ChangeFeed, ordinary_reads: (() => number) | null): RowCache {
  const rows = new Map<string, Map<string, object>>();
  /** Bumped on every notice: a load that overlapped one is not kept. */
  let generation = 0;
  let listening: Promise<boolean> | null = null;
  const stats = { hits: 0, loads: 0 };
  const listen = () =>
    (listening ??= changes
      .observe((id) => {
        generation++;
        if (id === null) rows.clear();
        else rows.delete(id);
      })
      .then(
        () => true,
        () => {
          // Not listening (the database refused the LISTEN connection): a later read tries again.
          listening = null;
          return false;
        },
      ));

  return {
    stats,
    async read(id, part, load) {
      if (rows.get(id)?.has(part)) {
        // The fence may drop the row (a notice that arrived meanwhile), so it is looked up again after it.
        const kept = (await changes.fence()) ? rows.get(id)?.get(part) : undefined;
        if (kept) {
          stats.hits++;
          // A shallow copy: a caller that sets a field does not change what the next caller reads.
          return { ...kept } as never;
        }
      }
      stats.loads++;
      if (!(await listen())) return load();
      if (!changes.live()) {
        // The LISTEN connection was lost: a fence starts it again (in the background); this read goes to the database.
        void changes.fence();
        return load();
      }
      const before = generation;
      const ordinary_before = ordinary_reads?.() ?? 0;
      const value = await load();
      if (value === undefined || generation !== before || !changes.live() || (ordinary_reads?.() ?? 0) !== ordinary_before) return value;
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

/** Reads through the database's row cache when `tx` is the database itself (never a transaction). */
export function cachedRow<T extends object>(tx: unknown, id: string, part: string, load: () => Promise<T | undefined>): Promise<T | undefined> {
  const cache = (tx as { row_cache?: RowCache }).row_cache;
  return cache ? cache.read(id, part, load) : load();
}
