// The run activity's store behind the computation (activities/replicationAttempt.ts): the first kept group is stored at
// once, later groups wait until STORE_INTERVAL_MIN_MS after the last store began and then go together in one
// transaction, and once the pool is done what is left is stored at once. The database is a recording fake; the clock is
// vitest's.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ReplicationAttempt, type RunWork, STORE_INTERVAL_MIN_MS } from '../../activities/replicationAttempt.ts';
import { runReplication } from '../../domain/simulation/index.ts';
import type { Db, Tx } from '../../store/db.ts';
import { queueWorld } from '../support/worlds.ts';

const world = queueWorld({ servers: 2, arrivals_per_minute: 1, mean_service_minutes: 1, horizon_minutes: 200, warm_up_minutes: 0, replications: 4 });
const results = (index: number) => world.variants.map((variant) => runReplication(world, { variant_id: variant.id, replication_index: index, trace_limit: 0 }));

/** A database that records each store: the replications its transaction inserted. */
function recordingDb(): { db: Db; stores: number[][] } {
  const stores: number[][] = [];
  const tx = {
    async one() {
      return { status: 'running' };
    },
    async query(sql: string, params: unknown[] = []) {
      if (!sql.startsWith('insert into run_replications')) return [];
      const rows = JSON.parse(params[1] as string) as Array<{ replication_index: number }>;
      stores.at(-1)!.push(...rows.map((row) => row.replication_index));
      return [];
    },
    async bound() {
      return [];
    },
  } as unknown as Tx;
  const db = {
    async transaction<T>(fn: (tx: Tx) => Promise<T>) {
      stores.push([]);
      return fn(tx);
    },
  } as unknown as Db;
  return { db, stores };
}

/** An attempt of a running run with a 10-minute wall clock and nothing stored yet. */
function runningAttempt(db: ReturnType<typeof recordingDb>['db']): ReplicationAttempt {
  const work: RunWork = {
    org_id: 'org_test',
    status: 'running',
    credits_reserved: 1_000_000,
    events_estimate: 1_000_000,
    started_at: new Date().toISOString(),
    wall_clock_limit_seconds: 600,
    world,
    stored: [],
  };
  return new ReplicationAttempt(db, 'run_test', work, Date.now() + 600_000);
}

describe('ReplicationAttempt stores', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance', 'Date'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('stores the first group at once, the groups of the next interval together, and the rest at once when done', async () => {
    const { db, stores } = recordingDb();
    const attempt = runningAttempt(db);
    const pairs = [0, 1, 2, 3].map(results);

    for (const result of pairs[0]!) attempt.keep(result);
    await vi.advanceTimersByTimeAsync(0);
    expect(stores).toEqual([[0, 0]]);

    for (const result of pairs[1]!) attempt.keep(result);
    await vi.advanceTimersByTimeAsync(STORE_INTERVAL_MIN_MS / 4);
    for (const result of pairs[2]!) attempt.keep(result);
    await vi.advanceTimersByTimeAsync(STORE_INTERVAL_MIN_MS / 4);
    expect(stores).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(STORE_INTERVAL_MIN_MS / 2);
    expect(stores).toEqual([
      [0, 0],
      [1, 1, 2, 2],
    ]);

    for (const result of pairs[3]!) attempt.keep(result);
    await attempt.stored();
    expect(stores).toEqual([
      [0, 0],
      [1, 1, 2, 2],
      [3, 3],
    ]);
  });

  it('stores nothing more after dispose (a failed attempt: the retry recomputes what was not stored)', async () => {
    const { db, stores } = recordingDb();
    const attempt = runningAttempt(db);
    for (const result of results(0)) attempt.keep(result);
    await vi.advanceTimersByTimeAsync(0);
    for (const result of results(1)) attempt.keep(result);
    attempt.dispose();
    await vi.advanceTimersByTimeAsync(STORE_INTERVAL_MIN_MS * 2);
    expect(stores).toEqual([[0, 0]]);
  });
});
