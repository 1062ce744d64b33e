// The bounded trace is stored in chunks of RUN_EVENT_CHUNK_SIZE events (store/runs/runs.ts, migration 0014). Every page
// of the events endpoint is read from the chunks it overlaps and must be exactly that slice of the trace, across chunk
// and variant boundaries; a retried store adds nothing; and events stored one row each before migration 0014 read the
// same afterwards. On PGlite, and on PostgreSQL when DATABASE_URL is set.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runReplication, type StoredTraceEvent } from '../../domain/simulation/index.ts';
import { openDatabase, type Db } from '../../store/db.ts';
import { allRunEvents, CHUNKS_PER_STATEMENT, countRunEvents, pageRunEvents, RUN_EVENT_CHUNK_SIZE, recordReplications } from '../../store/runs/runs.ts';
import { freshPostgresDatabase } from '../support/harness.ts';
import { seedPollables } from '../support/pollables.ts';
import { queueWorld } from '../support/worlds.ts';

// Two variants whose replication-0 traces are several chunks long and not a multiple of the chunk size.
const world = queueWorld({ servers: 2, arrivals_per_minute: 1.5, mean_service_minutes: 1, replications: 2, horizon_minutes: 700, warm_up_minutes: 0 });

function traced(variant_id: string, trace_limit: number) {
  return runReplication(world, { variant_id, replication_index: 0, trace_limit });
}

function expectedTrace(limits: Record<string, number>): StoredTraceEvent[] {
  return world.variants.flatMap((variant) =>
    (traced(variant.id, limits[variant.id] ?? 10_000).trace ?? []).map((event) => ({ ...event, variant_id: variant.id, replication_index: 0 })),
  );
}

/** Offsets and limits that start, end and straddle chunk and variant boundaries, and a few arbitrary ones. */
function pages(total: number, first_variant_length: number): [number, number][] {
  const size = RUN_EVENT_CHUNK_SIZE;
  const marks = [
    0,
    1,
    size - 1,
    size,
    size + 1,
    2 * size - 3,
    first_variant_length - 1,
    first_variant_length,
    first_variant_length + 1,
    total - 1,
    total,
    total + 5,
  ];
  const limits = [1, 2, 7, size - 1, size];
  const out: [number, number][] = [];
  for (const offset of marks) for (const limit of limits) if (offset >= 0) out.push([offset, limit]);
  for (let index = 0; index < 20; index++) out.push([(index * 7919) % (total + 1), 1 + ((index * 104_729) % size)]);
  return out;
}

async function expectPagesMatch(db: Db, run_id: string, expected: StoredTraceEvent[], first_variant_length: number): Promise<void> {
  expect(await countRunEvents(db, run_id)).toBe(expected.length);
  expect(await allRunEvents(db, run_id)).toEqual(expected);
  for (const [offset, limit] of pages(expected.length, first_variant_length)) {
    const page = await pageRunEvents(db, run_id, offset, limit);
    expect(page.events_included, `offset ${offset} limit ${limit}`).toBe(expected.length);
    expect(page.events, `offset ${offset} limit ${limit}`).toEqual(expected.slice(offset, offset + limit));
  }
}

describe('the stored trace in chunks', () => {
  let db: Db;
  let drop: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const fresh = await freshPostgresDatabase();
    drop = fresh?.drop;
    db = await openDatabase({ database_url: fresh?.url ?? null, pglite_dir: 'memory://' });
  });
  afterAll(async () => {
    await db?.close();
    await drop?.();
  });

  it('reads events stored one row each before migration 0014 the same afterwards, and drops the old table', async () => {
    const migrator = db.orm.migrator as unknown as { up(options: { to: string }): Promise<unknown> };
    await migrator.up({ to: '0013_change_notify_sessions_purchases' });
    const ids = await db.transaction((tx) => seedPollables(tx, { label: 'chunks-migrated', world }));
    const limits = { [world.variants[0]!.id]: 2_345, [world.variants[1]!.id]: 7 };
    const expected = expectedTrace(limits);
    for (const [variant_order, variant] of world.variants.entries()) {
      const events = expected.filter((event) => event.variant_id === variant.id);
      for (const [position, event] of events.entries())
        await db.query(
          `insert into run_events (run_id, variant_order, "position", variant_id, replication_index, "sequence", "time", kind, entity, step, resource, "value")
           values (?, ?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?)`,
          [ids.run, variant_order, position, variant.id, event.sequence, event.time, event.kind, event.entity, event.step, event.resource, event.value],
        );
    }
    await db.migrate();
    expect(await db.query(`select 1 from information_schema.tables where table_name = 'run_events'`)).toEqual([]);
    const chunks = await db.query<{ n: number }>('select count(*)::int as n from run_event_chunks where run_id = ?', [ids.run]);
    expect(chunks[0]!.n).toBe(Math.ceil(2_345 / RUN_EVENT_CHUNK_SIZE) + 1);
    await expectPagesMatch(db, ids.run, expected, 2_345);
  });

  it('stores a traced replication as chunks and pages it exactly, and a retried store adds nothing', async () => {
    await db.migrate(); // nothing left to apply after the first test; here so this test stands alone
    const ids = await db.transaction((tx) => seedPollables(tx, { label: 'chunks-stored', world }));
    const members = world.variants.map((variant, variant_order) => ({ variant_order, result: traced(variant.id, 10_000) }));
    const first_variant_length = members[0]!.result.trace!.length;
    expect(first_variant_length).toBeGreaterThan(2 * RUN_EVENT_CHUNK_SIZE);
    expect(first_variant_length % RUN_EVENT_CHUNK_SIZE).not.toBe(0);
    // more chunks than one statement writes: the store sends them in several
    const chunk_count = members.reduce((sum, member) => sum + Math.ceil(member.result.trace!.length / RUN_EVENT_CHUNK_SIZE), 0);
    expect(Math.ceil(members[0]!.result.trace!.length / RUN_EVENT_CHUNK_SIZE)).toBeLessThan(chunk_count);
    expect(chunk_count).toBeGreaterThan(CHUNKS_PER_STATEMENT);
    // the second variant first, as replications may finish in any order
    expect(await recordReplications(db, ids.run, [members[1]!])).toBe('stored');
    expect(await recordReplications(db, ids.run, members)).toBe('stored');
    const expected = expectedTrace({});
    await expectPagesMatch(db, ids.run, expected, first_variant_length);
    const rows = await db.query<{ n: number; largest: number }>(
      'select count(*)::int as n, max(event_count)::int as largest from run_event_chunks where run_id = ?',
      [ids.run],
    );
    expect(rows[0]).toEqual({
      n: chunk_count,
      largest: RUN_EVENT_CHUNK_SIZE,
    });
  });

  it('reads nothing for a run without a trace', async () => {
    await db.migrate();
    const ids = await db.transaction((tx) => seedPollables(tx, { label: 'chunks-none', world }));
    expect(await countRunEvents(db, ids.run)).toBe(0);
    expect(await pageRunEvents(db, ids.run, 0, 100)).toEqual({ events: [], events_included: 0 });
    expect(await allRunEvents(db, ids.run)).toEqual([]);
  });
});
