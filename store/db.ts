// The database handle: PGlite (in-process PostgreSQL, data under .data/pg) by default, PostgreSQL when DATABASE_URL is set.
// One SQL dialect, one set of migrations (ARCHITECTURE.md: persistence). Rooms run SQL through `Tx` inside `transaction`.
import { randomUUID } from 'node:crypto';
import type { MikroORM as CoreORM } from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/sql';
import { Migrator } from '@mikro-orm/migrations';
import { ServiceError } from '../domain/errors.ts';
import { migrationsList } from '../migrations/index.ts';
import { type ChangeFeed, createChangeFeed } from './changes.ts';
import { type FastReader, pgliteReader } from './pgliteReads.ts';
import { createRowCache, type RowCache } from './rowCache.ts';

export type DatabaseKind = 'pglite' | 'postgresql';

export type Tx = {
  em: SqlEntityManager;
  /** Runs SQL with `?` placeholders and returns the rows. */
  query<T = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<T[]>;
  one<T = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<T | undefined>;
  /**
   * Runs SQL with `$1`…`$n` placeholders as a parameterised statement: the values travel beside the text. `query` has
   * MikroORM inline every value into the text (an escape pass in JS, then PostgreSQL's lexer over it), which for large
   * text values (a run's trace chunks, about 1 MB a run) is most of the statement's cost. Strings, numbers, nulls and
   * bytes (bytea) only.
   */
  bound<T = Record<string, unknown>>(sql: string, params: readonly (string | number | null | Uint8Array)[]): Promise<T[]>;
};

export type Db = Tx & {
  kind: DatabaseKind;
  orm: CoreORM;
  /** One transaction; the callback's SQL commits together or not at all. */
  transaction<T>(fn: (tx: Tx) => Promise<T>, options?: { isolation?: 'serializable' | 'repeatable read' }): Promise<T>;
  migrate(): Promise<string[]>;
  /** Notices of changed pollable rows (store/changes.ts). */
  changes: ChangeFeed;
  /** Pollable rows kept in memory, exact by the change feed (store/rowCache.ts). */
  row_cache?: RowCache;
  close(): Promise<void>;
};

export type DatabaseOptions = { database_url: string | null; pglite_dir: string | null; pool_max?: number };

/**
 * `fast`: the PGlite read path for `select`s outside transactions (store/pgliteReads.ts); `ordinary` counts the
 * reads that took MikroORM's path instead (the row cache keeps only what the prepared path read).
 */
function wrap(em: SqlEntityManager, embedded: boolean, fast?: FastReader, ordinary?: { count: number }): Tx {
  const run = async <T>(sql: string, params: readonly unknown[] = []): Promise<T[]> => {
    if (embedded) await turn();
    const rows = fast ? await fast(sql, params) : undefined;
    if (rows) return rows as T[];
    if (ordinary) ordinary.count++;
    return (await em.execute(sql, params as unknown[], 'all')) as T[];
  };
  return {
    em,
    query: run,
    async one<T>(sql: string, params: readonly unknown[] = []) {
      return (await run<T>(sql, params))[0];
    },
    async bound<T>(sql: string, params: readonly (string | number | null | Uint8Array)[]) {
      if (embedded) await turn();
      // The transaction's kysely handle (or the connection's), given a raw compiled query as kysely's `CompiledQuery.raw`
      // builds it (kysely is MikroORM's, not a dependency of ours); its drivers send `parameters` as bind values.
      const kysely = em.getTransactionContext<RawExecutor>() ?? (em.getConnection() as unknown as { getClient(): RawExecutor }).getClient();
      const compiled = { sql, parameters: params, query: { kind: 'RawNode', sqlFragments: [sql], parameters: [] }, queryId: { queryId: randomUUID() } };
      return (await kysely.executeQuery(compiled)).rows as T[];
    },
  };
}

/**
 * On the embedded PGlite a statement runs on this thread and its promise settles in the same turn of the event loop, so
 * a chain of awaited statements (a transaction, a run's trace written in parts) would run as one long task that no
 * request gets between, however small each statement is. Each statement first lets the loop serve what arrived.
 */
function turn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

type RawExecutor = { executeQuery(compiled: object): Promise<{ rows: unknown[] }> };

const RETRYABLE_SQLSTATES = new Set(['40001', '40P01']);
/** Serialization failures and deadlocks are retried a bounded number of times. */
export const TRANSACTION_ATTEMPTS_MAX = 8;

export async function openDatabase(options: DatabaseOptions): Promise<Db> {
  let orm: CoreORM;
  let kind: DatabaseKind;
  // MikroORM is the driver and migrator only: every room writes its SQL by hand (docs/decisions.md), so no entities.
  const common = {
    entities: [],
    discovery: { warnWhenNoEntities: false },
    extensions: [Migrator],
    migrations: { migrationsList, transactional: true, allOrNothing: true, snapshot: false, tableName: 'schema_migrations', silent: true },
    allowGlobalContext: false,
    debug: false,
  };
  if (options.database_url) {
    const { MikroORM } = await import('@mikro-orm/postgresql');
    kind = 'postgresql';
    orm = (await MikroORM.init({
      ...common,
      clientUrl: options.database_url,
      pool: { min: 0, max: options.pool_max ?? 10 },
    } as never)) as unknown as CoreORM;
  } else {
    const { MikroORM } = await import('@mikro-orm/pglite');
    kind = 'pglite';
    orm = (await MikroORM.init({
      ...common,
      dbName: options.pglite_dir ?? 'memory://',
    } as never)) as unknown as CoreORM;
  }
  const root = orm.em as unknown as SqlEntityManager;
  const native = () => (orm.em.getConnection() as unknown as { getNativeClient(): Promise<unknown> }).getNativeClient();
  const ordinary = { count: 0 };
  const base = wrap(root.fork() as SqlEntityManager, kind === 'pglite', kind === 'pglite' ? pgliteReader(native) : undefined, ordinary);
  const changes = createChangeFeed({ database_url: options.database_url, pglite: native });
  const db: Db = {
    ...base,
    kind,
    orm,
    changes,
    row_cache: createRowCache(changes, kind === 'pglite' ? () => ordinary.count : null),
    async transaction<T>(fn: (tx: Tx) => Promise<T>, txOptions?: { isolation?: 'serializable' | 'repeatable read' }) {
      for (let attempt = 1; ; attempt++) {
        try {
          return await (root.fork() as SqlEntityManager).transactional((em) => fn(wrap(em as SqlEntityManager, kind === 'pglite')), {
            isolationLevel: txOptions?.isolation,
          });
        } catch (error) {
          const code = (error as { code?: string }).code;
          if (code && RETRYABLE_SQLSTATES.has(code) && attempt < TRANSACTION_ATTEMPTS_MAX) continue;
          throw error;
        }
      }
    },
    async migrate() {
      const migrator = orm.migrator as unknown as { up(): Promise<{ name: string }[]> };
      const done = await migrator.up();
      return done.map((m) => m.name);
    },
    async close() {
      await changes.close();
      await orm.close(true);
    },
  };
  return db;
}

/** Maps a unique violation to a ServiceError a caller can show. */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; cause?: { code?: string } };
  return e?.code === '23505' || e?.cause?.code === '23505';
}

export function notFound(what: string): ServiceError {
  return new ServiceError('NOT_FOUND', `${what} was not found`);
}
