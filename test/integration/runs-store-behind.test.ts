// A world run stores its replications behind the computation (activities/runs.ts): one store at a time, and the groups
// kept while it commits go together in the next. On PostgreSQL, another connection holds the run row, so the first
// store waits on it while the pool computes every other replication; once the row is let go, all of them are stored in
// one more transaction. Each stored row's xmin says which transaction wrote it.
import { MockActivityEnvironment } from '@temporalio/testing';
import pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActivityDeps } from '../../activities/deps.ts';
import { type RunReplicationsResult, runActivities } from '../../activities/runs.ts';
import { closeComputePool } from '../../compute/pool.ts';
import { runReplication } from '../../domain/simulation/index.ts';
import { openDatabase, type Db } from '../../store/db.ts';
import { eventually, freshPostgresDatabase } from '../support/harness.ts';
import { seedPollables } from '../support/pollables.ts';
import { queueWorld } from '../support/worlds.ts';

const REPLICATIONS = 12;

describe.runIf(process.env.DATABASE_URL)('world runs store behind the computation (PostgreSQL)', () => {
  let db: Db;
  let url: string;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const database = (await freshPostgresDatabase())!;
    url = database.url;
    drop = database.drop;
    db = await openDatabase({ database_url: url, pglite_dir: null });
    await db.migrate();
  });
  afterAll(async () => {
    await closeComputePool();
    await db?.close();
    await drop?.();
  });

  it('stores the groups kept while a store waits in one next transaction, and every group once', async () => {
    const world = queueWorld({
      servers: 2,
      arrivals_per_minute: 1,
      mean_service_minutes: 1,
      horizon_minutes: 2_000,
      warm_up_minutes: 0,
      replications: REPLICATIONS,
    });
    const ids = await db.transaction((tx) => seedPollables(tx, { label: 'store-behind', world }));
    await db.query(
      'update runs set credits_reserved = 1000000, budget_limit_credits = 1000000, started_at = now(), wall_clock_limit_seconds = 600 where id = ?',
      [ids.run],
    );

    // the events of every replication, computed here the same way (the engine is deterministic)
    let total = 0;
    for (const variant of world.variants)
      for (let replication = 0; replication < REPLICATIONS; replication++)
        total += runReplication(world, { variant_id: variant.id, replication_index: replication, trace_limit: 0 }).event_counts.events_total;

    const holder = new pg.Client({ connectionString: url });
    await holder.connect();
    try {
      await holder.query('begin');
      await holder.query('select 1 from runs where id = $1 for update', [ids.run]);

      const environment = new MockActivityEnvironment({ activityId: 'run', attempt: 1 });
      let kept = 0;
      environment.on('heartbeat', (details: { events_kept?: number }) => {
        kept = details?.events_kept ?? kept;
      });
      const deps = { db, logger: pino({ level: 'silent' }) } as unknown as ActivityDeps;
      const activity = runActivities(deps);
      const finished: Promise<RunReplicationsResult> = environment.run(activity.runReplications, { run_id: ids.run });

      // The first store waits on the held row ...
      await eventually(
        async () => {
          const waiting = await holder.query(`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`);
          return waiting.rows[0].n > 0 || null;
        },
        60_000,
        'the first store to wait on the run row',
      );
      // ... while every replication is computed and kept (the heartbeat reports what is kept, stored or not).
      await eventually(async () => kept === total || null, 120_000, 'every replication to be kept');
      expect((await db.one<{ n: number }>('select count(*)::int as n from run_replications where run_id = ?', [ids.run]))!.n).toBe(0);
      await holder.query('commit');

      const result = await finished;
      expect(result.outcome).toBe('completed');
      const stored = await db.query<{ n: number; transactions: number; events: string }>(
        'select count(*)::int as n, count(distinct xmin::text)::int as transactions, sum(events_total)::text as events from run_replications where run_id = ?',
        [ids.run],
      );
      // every group once, in two transactions: the first group's (which waited), and everything kept meanwhile
      expect(stored[0]!.n).toBe(REPLICATIONS * 2);
      expect(stored[0]!.transactions).toBe(2);
      expect(Number(stored[0]!.events)).toBe(total);
      expect(result.usage.events_simulated).toBe(total);
    } finally {
      await holder.query('rollback').catch(() => {});
      await holder.end();
    }
  }, 240_000);
});
