// The row cache (store/rowCache.ts) is exact: a read after a committed write sees the write, whether the write changed
// the row itself or a row its view reads (replications, AI usage), inside a transaction or not. On PGlite (always) and,
// with DATABASE_URL, on PostgreSQL, where the write may come from another process (a second database handle here).
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../domain/ids.ts';
import type { Checkpoint } from '../../domain/authoring/checkpoint.ts';
import { findSession, latestCheckpoint, writeCheckpoint } from '../../store/authoring/sessions.ts';
import { findIntent } from '../../store/billing/billing.ts';
import { CHANGE_FEED_APPLICATION, FENCE_INTERVAL_MIN_MS } from '../../store/changes.ts';
import { openDatabase, type Db } from '../../store/db.ts';
import { findDraft } from '../../store/intake/drafts.ts';
import { findProject } from '../../store/projects/projects.ts';
import { findReview, reviewUsage } from '../../store/reviews/reviews.ts';
import { getRun } from '../../store/runs/runs.ts';
import { freshPostgresDatabase } from '../support/harness.ts';
import { eventually } from '../support/harness.ts';
import { type Pollables, seedPollables } from '../support/pollables.ts';
import { queueWorld } from '../support/worlds.ts';

type Ids = Pollables;

async function seed(db: Db): Promise<Ids> {
  return db.transaction((tx) => seedPollables(tx, { label: 'cache', world: queueWorld({ servers: 2, arrivals_per_minute: 1, mean_service_minutes: 1 }) }));
}

const databases = process.env.DATABASE_URL ? (['pglite', 'postgresql'] as const) : (['pglite'] as const);

describe.each(databases)('the row cache on %s', (kind) => {
  let db: Db;
  let ids: Ids;
  let drop: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const database = kind === 'postgresql' ? await freshPostgresDatabase() : null;
    drop = database?.drop;
    db = await openDatabase({ database_url: database?.url ?? null, pglite_dir: 'memory://' });
    await db.migrate();
    ids = await seed(db);
  });
  afterAll(async () => {
    await db?.close();
    await drop?.();
  });

  it('is on for the database itself and answers the same row again from memory', async () => {
    expect(db.row_cache).toBeDefined();
    const first = await findProject(db, ids.project);
    const hits = db.row_cache!.stats.hits;
    expect(await findProject(db, ids.project)).toEqual(first);
    expect(db.row_cache!.stats.hits).toBe(hits + 1);
  });

  it('shows a committed change of the row at once', async () => {
    expect((await findDraft(db, ids.draft))?.status).toBe('drafting');
    await db.transaction((tx) => tx.query(`update intake_drafts set status = 'failed' where id = ?`, [ids.draft]));
    expect((await findDraft(db, ids.draft))?.status).toBe('failed');
    expect((await findReview(db, ids.review))?.status).toBe('searching');
    await db.query(`update reviews set status = 'drafting' where id = ?`, [ids.review]);
    expect((await findReview(db, ids.review))?.status).toBe('drafting');
  });

  it("shows a run's new replication and a review's new AI usage at once", async () => {
    expect((await getRun(db, ids.run))?.replications_completed).toBe(0);
    await db.transaction((tx) =>
      tx.query(`insert into run_replications (run_id, variant_id, replication_index, events_total, result) values (?, 'baseline', 0, 123, '{}'::jsonb)`, [
        ids.run,
      ]),
    );
    const run = await getRun(db, ids.run);
    expect(run?.replications_completed).toBe(1);
    expect(run?.events_simulated).toBe(123);

    expect((await reviewUsage(db, ids.review)).calls).toBe(0);
    await db.query(
      `insert into ai_usage (id, org_id, provider, model, byok, input_tokens, output_tokens, duration_ms, project_id, subject_kind, subject_id, task,
         credits_charged, workflow_id, run_id, activity_id)
       values (?, ?, 'anthropic', 'm', false, 10, 20, 1, ?, 'review', ?, 'draft', 3, 'wf', 'r', 'a')`,
      [newId('use'), ids.org, ids.project, ids.review],
    );
    expect(await reviewUsage(db, ids.review)).toEqual({ calls: 1, input_tokens: 10, output_tokens: 20, credits_charged: 3 });
  });

  it("shows an authoring session's new checkpoint and a purchase's completion at once", async () => {
    expect((await findSession(db, ids.session))?.status).toBe('drafting');
    expect(await latestCheckpoint(db, ids.session)).toBeNull();
    expect(await latestCheckpoint(db, ids.session)).toBeNull();
    const checkpoint = { number: 1, questions: [{ id: 'q1' }], ai: { cap_reached: false } } as unknown as Checkpoint;
    await db.transaction((tx) => writeCheckpoint(tx, { session_id: ids.session, checkpoint, status: 'waiting' }));
    expect((await findSession(db, ids.session))?.status).toBe('waiting');
    expect(await latestCheckpoint(db, ids.session)).toEqual(checkpoint);
    // each reader gets a body of its own
    (await latestCheckpoint(db, ids.session))!.questions.length = 0;
    expect(await latestCheckpoint(db, ids.session)).toEqual(checkpoint);

    expect((await findIntent(db, ids.intent))?.status).toBe('pending');
    expect((await findIntent(db, ids.intent))?.status).toBe('pending');
    await db.query(`update purchase_intents set status = 'completed' where id = ?`, [ids.intent]);
    expect((await findIntent(db, ids.intent))?.status).toBe('completed');
  });

  it('gives each caller its own copy of a kept row', async () => {
    const run = (await getRun(db, ids.run))!;
    run.status = 'canceled';
    expect((await getRun(db, ids.run))?.status).toBe('running');
  });

  it('never serves a transaction from the cache', async () => {
    await getRun(db, ids.run);
    const inside = await db.transaction(async (tx) => {
      await tx.query(`update runs set status = 'timed_out' where id = ?`, [ids.run]);
      return (await getRun(tx, ids.run))?.status;
    });
    expect(inside).toBe('timed_out');
    expect((await getRun(db, ids.run))?.status).toBe('timed_out');
  });
});

// Another process's commit reaches this one's LISTEN connection some time after the commit: the fence is what keeps a
// kept row from being answered in between.
describe.runIf(process.env.DATABASE_URL)('the row cache on PostgreSQL, written by another process', () => {
  let reader: Db;
  let writer: Db;
  let ids: Ids;
  let drop: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const database = (await freshPostgresDatabase())!;
    drop = database.drop;
    reader = await openDatabase({ database_url: database.url, pglite_dir: null });
    await reader.migrate();
    writer = await openDatabase({ database_url: database.url, pglite_dir: null });
    ids = await seed(writer);
  });
  afterAll(async () => {
    await reader?.close();
    await writer?.close();
    await drop?.();
  });

  it('never answers a row older than a change committed before the read began', async () => {
    const hits = reader.row_cache!.stats.hits;
    for (let round = 1; round <= 100; round++) {
      // kept after this read (or the one before)
      expect((await getRun(reader, ids.run))?.events_discarded).toBe(round - 1);
      expect((await getRun(reader, ids.run))?.events_discarded).toBe(round - 1);
      await writer.query('update runs set events_discarded = ? where id = ?', [round, ids.run]);
      expect((await getRun(reader, ids.run))?.events_discarded).toBe(round);
    }
    // the unchanged re-reads came from memory
    expect(reader.row_cache!.stats.hits - hits).toBeGreaterThanOrEqual(50);
  });

  it('shares one fence among the reads that arrive together', async () => {
    await getRun(reader, ids.run);
    const hits = reader.row_cache!.stats.hits;
    await writer.query(`update projects set title = 'Renamed elsewhere' where id = ?`, [ids.project]);
    const reads = await Promise.all(Array.from({ length: 50 }, () => findProject(reader, ids.project)));
    expect(reads.every((project) => project?.title === 'Renamed elsewhere')).toBe(true);
    const again = await Promise.all(Array.from({ length: 50 }, () => getRun(reader, ids.run)));
    expect(again.every((run) => run?.run_id === ids.run)).toBe(true);
    expect(reader.row_cache!.stats.hits - hits).toBeGreaterThanOrEqual(50);
  });

  it('sends at most one fence per FENCE_INTERVAL_MIN_MS, however many reads there are', async () => {
    await getRun(reader, ids.run);
    const sent = reader.changes.fencesSent();
    const started = performance.now();
    for (let round = 0; round < 20; round++) await Promise.all(Array.from({ length: 20 }, () => getRun(reader, ids.run)));
    const elapsed_ms = performance.now() - started;
    const fences = reader.changes.fencesSent() - sent;
    expect(fences).toBeGreaterThanOrEqual(20);
    expect(fences).toBeLessThanOrEqual(Math.floor(elapsed_ms / FENCE_INTERVAL_MIN_MS) + 1);
  });

  it('empties itself when its LISTEN connection is lost, and keeps rows again once it listens again', async () => {
    await getRun(reader, ids.run);
    await getRun(reader, ids.run);
    const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
    try {
      const database = new URL((reader.orm.config.get('clientUrl') as string) ?? '').pathname.slice(1);
      const ended = await admin.query('select pg_terminate_backend(pid) as ended from pg_stat_activity where application_name = $1 and datname = $2', [
        CHANGE_FEED_APPLICATION,
        database,
      ]);
      expect(ended.rows.length).toBeGreaterThanOrEqual(1);
    } finally {
      await admin.end();
    }
    // A change while nothing listens: no notice will ever arrive for it.
    await writer.query('update runs set events_discarded = 1000 where id = ?', [ids.run]);
    expect((await getRun(reader, ids.run))?.events_discarded).toBe(1000);
    await eventually(async () => reader.changes.live(), 10_000, 'the change feed listening again');
    const hits = reader.row_cache!.stats.hits;
    await getRun(reader, ids.run);
    expect((await getRun(reader, ids.run))?.events_discarded).toBe(1000);
    expect(reader.row_cache!.stats.hits).toBeGreaterThan(hits);
    await writer.query('update runs set events_discarded = 1001 where id = ?', [ids.run]);
    expect((await getRun(reader, ids.run))?.events_discarded).toBe(1001);
  });
});
