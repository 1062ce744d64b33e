// World runs: the run row (the source of truth the API reads), its completed replications and its bounded event trace.
// Every status change is a conditional update on the expected prior state, so a worker finishing late never overwrites
// canceled (spec: Run states — worker completion preserves a canceled state).
import type { Static } from 'typebox';
import type { JobFailure } from '../../domain/contracts/jobFailure.ts';
import { RUN_STATUSES, type Run, type STOP_REASONS } from '../../domain/contracts/runs.ts';
import { jobFailureFromStored } from '../../domain/jobs.ts';
import type { WorldSpec } from '../../domain/contracts/worldSpec.ts';
import { creditsForEvents, type ReplicationResult, type StoredTraceEvent, type TraceEvent } from '../../domain/simulation/index.ts';
import { decodeChunk, encodeChunk, type EventChunkRow } from '../../domain/simulation/traceChunks.ts';

export type { EventChunkRow } from '../../domain/simulation/traceChunks.ts';
type ChunkRow = EventChunkRow;
import { newId } from '../../domain/ids.ts';
import { iso, isoRequired } from '../../domain/time.ts';
import { type Db, notFound, type Tx } from '../db.ts';
import { moveJob, type QueuedJobRow, voidUnusedJobCredits } from '../jobs.ts';
import { cachedRow } from '../rowCache.ts';

export { RUN_STATUSES };
export type RunStatus = (typeof RUN_STATUSES)[number];
/** States in which results (summaries, events, comparison, export) can be read (spec: Run states). */
export const RESULT_STATUSES: readonly RunStatus[] = ['succeeded', 'timed_out'];
export type StopReason = (typeof STOP_REASONS)[number];

/**
 * The estimate is an expectation, not a bound: a run may simulate somewhat more events than expected. The reservation
 * (the run's spending cap) adds this headroom to the estimate, never above the budget the user authorized.
 */
export { runReservation } from '../../domain/simulation/pricing.ts';

/** A run as the API shows it (domain/contracts/runs.ts `Run`): the row with its replication counts. */
export type RunView = Static<typeof Run>;

function json<T>(value: unknown): T {
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}

const RUN_SELECT = `select r.*,
  (select count(*) from run_replications x where x.run_id = r.id) as replications_completed,
  (select coalesce(sum(x.events_total), 0) from run_replications x where x.run_id = r.id) as events_simulated
  from runs r`;

function view(row: Record<string, unknown>): RunView {
  const status = row.status as RunStatus;
  const failure = row.error ? jobFailureFromStored(json<{ code: string; message: string }>(row.error)) : null;
  return {
    run_id: row.id as string,
    org_id: row.org_id as string,
    project_id: row.project_id as string,
    world_revision_id: row.world_revision_id as string,
    status,
    budget_limit_credits: Number(row.budget_limit_credits),
    credits_estimate: Number(row.credits_estimate),
    events_estimate: Number(row.events_estimate),
    credits_reserved: Number(row.credits_reserved),
    credits_used: row.credits_used === null || row.credits_used === undefined ? null : Number(row.credits_used),
    replications_requested: Number(row.replications_requested),
    replications_completed: Number(row.replications_completed ?? 0),
    events_simulated: Number(row.events_simulated ?? 0),
    events_discarded: Number(row.events_discarded),
    stop_reason: (row.stop_reason as StopReason | null) ?? null,
    wall_clock_limit_seconds: Number(row.wall_clock_limit_seconds),
    failure,
    error: failure,
    results_available: RESULT_STATUSES.includes(status),
    created_by: row.created_by as string,
    created_at: isoRequired(row.created_at),
    started_at: iso(row.started_at),
    finished_at: iso(row.finished_at),
    settled_at: iso(row.settled_at),
  };
}

export async function createRun(
  tx: Tx,
  input: {
    org_id: string;
    project_id: string;
    world_revision_id: string;
    budget_limit_credits: number;
    credits_estimate: number;
    events_estimate: number;
    credits_reserved: number;
    replications_requested: number;
    wall_clock_limit_seconds: number;
    created_by: string;
  },
): Promise<RunView> {
  const id = newId('run');
  await tx.query(
    `insert into runs (id, org_id, project_id, world_revision_id, status, budget_limit_credits, credits_estimate, events_estimate, credits_reserved,
       replications_requested, wall_clock_limit_seconds, created_by)
     values (?, ?, ?, ?, 'queued', ?, ?, ?, ?, ?, ?, ?)`,
    [
      id,
      input.org_id,
      input.project_id,
      input.world_revision_id,
      input.budget_limit_credits,
      input.credits_estimate,
      input.events_estimate,
      input.credits_reserved,
      input.replications_requested,
      input.wall_clock_limit_seconds,
      input.created_by,
    ],
  );
  return (await getRun(tx, id))!;
}

/** Runs still queued after `older_than_ms`: their workflow may never have started (the maintenance reconciler starts them). */
/** Runs left queued longer than older_than_ms, oldest first, with their owner (the job's search attributes). */
export async function queuedRuns(tx: Tx, older_than_ms: number, limit: number): Promise<QueuedJobRow[]> {
  const rows = await tx.query<QueuedJobRow>(
    `select id, org_id, project_id from runs where status = 'queued' and created_at < now() - (? * interval '1 millisecond') order by created_at limit ?`,
    [older_than_ms, limit],
  );
  return rows;
}

export async function getRun(tx: Tx, id: string): Promise<RunView | undefined> {
  return cachedRow(tx, id, 'run', async () => {
    const row = await tx.one(`${RUN_SELECT} where r.id = ?`, [id]);
    return row && view(row);
  });
}

/** A project's runs, newest first; fetches limit+1 rows for `page()`. */
export async function listRuns(tx: Tx, project_id: string, offset: number, limit: number): Promise<RunView[]> {
  const rows = await tx.query(`${RUN_SELECT} where r.project_id = ? order by r.created_at desc, r.id desc offset ? limit ?`, [project_id, offset, limit + 1]);
  return rows.map(view);
}

/**
 * Cancels a queued or running run (conditional on that prior state). A run canceled while queued used nothing: its
 * reservation is voided in this transaction and it is settled at 0 at once; a running one is settled by its workflow.
 * Returns null when the run was in another state.
 */
export async function cancelRun(tx: Tx, id: string): Promise<RunView | null> {
  const prior = await tx.one<{ status: RunStatus }>('select status from runs where id = ? for update', [id]);
  if (prior?.status !== 'queued' && prior?.status !== 'running') return null;
  const queued = prior.status === 'queued';
  const failure: JobFailure = { code: 'CANCELED', message: queued ? 'the run was canceled before it started; nothing was charged' : 'the run was canceled' };
  await moveJob(tx, 'run', id, 'canceled', { set: { error: failure } });
  if (queued) {
    await tx.query('update runs set credits_used = 0, settled_at = now() where id = ?', [id]);
    await voidUnusedJobCredits(tx, 'run', id);
  }
  return (await getRun(tx, id)) ?? null;
}

export type RunStart = {
  started: boolean;
  status: RunStatus;
  org_id: string;
  project_id: string;
  credits_reserved: number;
  created_by: string;
};

/** queued -> running (only from queued). A retried activity finds the run running already and reports it started. */
export async function markRunning(db: Db, id: string): Promise<RunStart> {
  return db.transaction(async (tx) => {
    await moveJob(tx, 'run', id, 'running', { from: ['queued'] });
    const row = await tx.one<Record<string, unknown>>('select * from runs where id = ?', [id]);
    if (!row) throw notFound(`Run ${id}`);
    const status = row.status as RunStatus;
    return {
      started: status === 'running',
      status,
      org_id: row.org_id as string,
      project_id: row.project_id as string,
      credits_reserved: Number(row.credits_reserved),
      created_by: row.created_by as string,
    };
  });
}

/** What the run activity needs: the world, the cap, the clock and what is stored already. */
export async function loadRunWork(db: Db, id: string) {
  const row = await db.one<Record<string, unknown>>(
    `select r.org_id, r.status, r.credits_reserved, r.events_estimate, r.started_at, r.wall_clock_limit_seconds, r.world_revision_id, w.spec
     from runs r join world_revisions w on w.id = r.world_revision_id where r.id = ?`,
    [id],
  );
  if (!row) throw notFound(`Run ${id}`);
  const stored = await db.query<{ variant_id: string; replication_index: number; events_total: string | number }>(
    'select variant_id, replication_index, events_total from run_replications where run_id = ?',
    [id],
  );
  return {
    org_id: String(row.org_id),
    status: row.status as RunStatus,
    credits_reserved: Number(row.credits_reserved),
    events_estimate: Number(row.events_estimate),
    started_at: isoRequired(row.started_at ?? new Date()),
    wall_clock_limit_seconds: Number(row.wall_clock_limit_seconds),
    world: json<WorldSpec>(row.spec),
    stored: stored.map((s) => ({ variant_id: s.variant_id, replication_index: Number(s.replication_index), events_total: Number(s.events_total) })),
  };
}

export async function runStatus(db: Tx, id: string): Promise<RunStatus | undefined> {
  const row = await db.one<{ status: RunStatus }>('select status from runs where id = ?', [id]);
  return row?.status;
}

/** A completed replication to store, with its variant's position in the world (the trace's order). */
export type ReplicationToStore = { variant_order: number; result: ReplicationResult };

/**
 * Stores completed replications (and, for replication 0, their traces) in one transaction while the run is running.
 * Returns 'stored' when kept (also when a retried attempt stored some already) and 'not_running' when the run left
 * running (canceled): late results are discarded, never written over a canceled run. The run row is share-locked so a
 * cancel waits for this commit.
 */
export async function recordReplications(db: Db, run_id: string, members: readonly ReplicationToStore[]): Promise<'stored' | 'not_running'> {
  return db.transaction(async (tx) => {
    const run = await tx.one<{ status: RunStatus }>('select status from runs where id = ? for share', [run_id]);
    if (run?.status !== 'running') return 'not_running';
    await storeMembers(tx, run_id, members);
    return 'stored';
  });
}

/**
 * As recordReplications, for one of several shards of a run storing at once: the run's budget is judged here, across
 * shards, from the events already stored. The run row is locked for the transaction (so the shards' stores of one run
 * take turns), and the complete groups of `members` (every variant of a replication index, contiguous, in order) are
 * stored while the run's stored events stay within `credits_reserved`; the first group that would pass it and those
 * after it are refused ('budget'). Never stores past the reservation, whatever the shards' timing.
 */
export async function recordReplicationsWithinBudget(
  db: Db,
  run_id: string,
  members: readonly ReplicationToStore[],
  credits_reserved: number,
): Promise<{ status: 'stored' | 'not_running' | 'budget'; events_stored: number }> {
  return db.transaction(async (tx) => {
    const run = await tx.one<{ status: RunStatus }>('select status from runs where id = ? for update', [run_id]);
    if (run?.status !== 'running') return { status: 'not_running', events_stored: 0 };
    const stored = await tx.one<{ n: string | number | null }>('select coalesce(sum(events_total), 0) as n from run_replications where run_id = ?', [run_id]);
    let events = Number(stored?.n ?? 0);
    let accepted = 0;
    let events_stored = 0;
    while (accepted < members.length) {
      const index = members[accepted]!.result.replication_index;
      let end = accepted;
      let groupEvents = 0;
      while (end < members.length && members[end]!.result.replication_index === index) groupEvents += members[end++]!.result.event_counts.events_total;
      if (creditsForEvents(events + groupEvents) > credits_reserved) break;
      events += groupEvents;
      events_stored += groupEvents;
      accepted = end;
    }
    if (accepted > 0) await storeMembers(tx, run_id, members.slice(0, accepted));
    return { status: accepted < members.length ? 'budget' : 'stored', events_stored };
  });
}

/** Inserts replications (and, for replication 0, their traces); a replication stored already is left as it is. */
async function storeMembers(tx: Tx, run_id: string, members: readonly ReplicationToStore[]): Promise<void> {
  {
    const rows = members.map(({ result }) => {
      const { trace: _trace, ...kept } = result;
      return {
        variant_id: result.variant_id,
        replication_index: result.replication_index,
        events_total: result.event_counts.events_total,
        result: { ...kept, trace: null },
      };
    });
    const inserted = await tx.query<{ variant_id: string; replication_index: number }>(
      `insert into run_replications (run_id, variant_id, replication_index, events_total, result)
       select ?, r.variant_id, r.replication_index, r.events_total, r.result
       from jsonb_to_recordset(?::jsonb) as r(variant_id text, replication_index integer, events_total bigint, result jsonb)
       on conflict do nothing returning variant_id, replication_index`,
      [run_id, JSON.stringify(rows)],
    );
    const new_keys = new Set(inserted.map((row) => `${row.variant_id}\u0000${row.replication_index}`));
    const chunks: Array<{ variant_order: number; chunk: number; result: ReplicationResult; events: readonly TraceEvent[] }> = [];
    for (const { variant_order, result } of members) {
      const { trace } = result;
      if (!trace || trace.length === 0 || !new_keys.has(`${result.variant_id}\u0000${result.replication_index}`)) continue;
      for (let chunk = 0; chunk * RUN_EVENT_CHUNK_SIZE < trace.length; chunk++)
        chunks.push({ variant_order, chunk, result, events: trace.slice(chunk * RUN_EVENT_CHUNK_SIZE, (chunk + 1) * RUN_EVENT_CHUNK_SIZE) });
    }
    // At most CHUNKS_PER_STATEMENT chunks (about 120 KB of text) per statement, each encoded just before it is sent:
    // between two statements the process serves other requests (on the embedded PGlite every statement runs on this
    // thread, so one statement of a 20-variant run's 200 chunks held it for a second). Bound, not inlined: the chunks'
    // text is sent as values, not escaped into the statement and lexed by PostgreSQL.
    for (let from = 0; from < chunks.length; from += CHUNKS_PER_STATEMENT) {
      const values: Array<string | number> = [];
      for (const { variant_order, chunk, result, events } of chunks.slice(from, from + CHUNKS_PER_STATEMENT))
        values.push(run_id, variant_order, chunk, result.variant_id, result.replication_index, events.length, encodeChunk(events));
      const rows = Array.from(
        { length: values.length / 7 },
        (_, row) => `(${Array.from({ length: 7 }, (_, column) => `$${row * 7 + column + 1}`).join(', ')})`,
      );
      await tx.bound(
        `insert into run_event_chunks (run_id, variant_order, chunk, variant_id, replication_index, event_count, events) values ${rows.join(', ')} on conflict do nothing`,
        values,
      );
    }
  }
}

/** Adds events computed but not kept (late results after a cancel or stop); they count as work done. */
export async function addDiscardedEvents(db: Tx, run_id: string, events: number): Promise<void> {
  if (events > 0) await db.query('update runs set events_discarded = events_discarded + ?, updated_at = now() where id = ?', [events, run_id]);
}

export async function recordStopReason(db: Tx, run_id: string, stop_reason: StopReason | null): Promise<void> {
  await db.query('update runs set stop_reason = ?, updated_at = now() where id = ?', [stop_reason, run_id]);
}

export type RunUsage = { events_simulated: number; events_discarded: number; replications_completed: number; stop_reason: StopReason | null };

export async function runUsage(db: Tx, run_id: string): Promise<RunUsage> {
  const run = await getRun(db, run_id);
  if (!run) throw notFound(`Run ${run_id}`);
  return {
    events_simulated: run.events_simulated,
    events_discarded: run.events_discarded,
    replications_completed: run.replications_completed,
    stop_reason: run.stop_reason,
  };
}

/**
 * Ends a run after its credits settled: the status moves only from running (a canceled run stays canceled, whatever the
 * worker reports); credits_used and settled_at are facts of the ledger and are always recorded. Returns the final status.
 */
export async function finishRun(
  db: Db,
  input: {
    run_id: string;
    status: 'succeeded' | 'timed_out' | 'canceled' | 'failed';
    credits_used: number;
    failure?: JobFailure | null;
    /** why a timed_out run stopped, when the caller (a sharded run's workflow) records it with the end */
    stop_reason?: StopReason | null;
  },
): Promise<RunStatus> {
  return db.transaction(async (tx) => {
    await moveJob(tx, 'run', input.run_id, input.status, { from: ['running'], set: { error: input.failure ?? null } });
    if (input.stop_reason && input.status === 'timed_out')
      await tx.query('update runs set stop_reason = ? where id = ? and status = ?', [input.stop_reason, input.run_id, 'timed_out']);
    await tx.query('update runs set credits_used = ?, settled_at = coalesce(settled_at, now()), updated_at = now() where id = ?', [
      input.credits_used,
      input.run_id,
    ]);
    const row = await tx.one<{ status: RunStatus }>('select status from runs where id = ?', [input.run_id]);
    return row!.status;
  });
}

/** The kept replications of a run (traces not included), in job order: replication-major, variants in world order. */
export async function loadReplications(db: Tx, run_id: string, variant_ids: string[]): Promise<ReplicationResult[]> {
  const rows: Array<{ result: unknown; replication_index: number; variant_id: string }> = [];
  for (;;) {
    const last = rows.at(-1);
    const page = await db.query<{ result: unknown; replication_index: number; variant_id: string }>(
      `select result, replication_index, variant_id from run_replications
       where run_id = ? and (replication_index, variant_id) > (?, ?) order by replication_index, variant_id limit ?`,
      [run_id, last?.replication_index ?? -1, last?.variant_id ?? '', REPLICATIONS_PER_READ],
    );
    rows.push(...page);
    if (page.length < REPLICATIONS_PER_READ) break;
  }
  const order = new Map(variant_ids.map((id, index) => [id, index]));
  return rows
    .map((row) => json<ReplicationResult>(row.result))
    .sort((a, b) => a.replication_index - b.replication_index || (order.get(a.variant_id) ?? 0) - (order.get(b.variant_id) ?? 0));
}

/**
 * A run's whole results or trace are read this many rows per statement, the process serving other requests between two
 * statements (on PGlite each statement lets the event loop turn first: store/db.ts): on the embedded PGlite every
 * statement runs on the API's thread, and one statement of a 20-variant run's whole trace (about 12 MB of text) held it
 * for about a second.
 */
export const REPLICATIONS_PER_READ = 40;
export const CHUNKS_PER_READ = 8;

/**
 * The trace is stored in chunks of this many events, one row each (migrations/0014_run_event_chunks.ts): the position of
 * an event in its variant's trace is chunk × RUN_EVENT_CHUNK_SIZE + its index in the chunk.
 */
export const RUN_EVENT_CHUNK_SIZE = 1000;
/** Trace chunks written per statement when replications are stored (recordReplications). */
export const CHUNKS_PER_STATEMENT = 2;

/** The number of stored trace events of a run. */
export async function countRunEvents(db: Tx, run_id: string): Promise<number> {
  const row = await db.one<{ n: string | number | null }>('select sum(event_count) as n from run_event_chunks where run_id = ?', [run_id]);
  return Number(row?.n ?? 0);
}

/** One page of the stored trace in its total order (variant order, then position) and the number of stored events. */
export async function pageRunEvents(db: Tx, run_id: string, offset: number, limit: number): Promise<{ events: StoredTraceEvent[]; events_included: number }> {
  // The chunks' sizes (their text is not read) place the page; then only the chunks it overlaps are read, in order.
  const sizes = await db.query<{ variant_order: number; chunk: number; event_count: number }>(
    'select variant_order, chunk, event_count from run_event_chunks where run_id = ? order by variant_order, chunk',
    [run_id],
  );
  let start = 0;
  let first: { variant_order: number; chunk: number; start: number } | undefined;
  let last: { variant_order: number; chunk: number } | undefined;
  for (const size of sizes) {
    const count = Number(size.event_count);
    if (start + count > offset && start < offset + limit) {
      first ??= { variant_order: Number(size.variant_order), chunk: Number(size.chunk), start };
      last = { variant_order: Number(size.variant_order), chunk: Number(size.chunk) };
    }
    start += count;
  }
  if (!first || !last) return { events: [], events_included: start };
  const rows = await db.query<ChunkRow>(
    `select variant_id, replication_index, events from run_event_chunks
     where run_id = ? and (variant_order, chunk) >= (?, ?) and (variant_order, chunk) <= (?, ?) order by variant_order, chunk`,
    [run_id, first.variant_order, first.chunk, last.variant_order, last.chunk],
  );
  const events = rows.flatMap(decodeChunk);
  return { events: events.slice(offset - first.start, offset - first.start + limit), events_included: start };
}

/**
 * Every stored trace chunk of a run in the trace's order (bounded by EVENT_TRACE_CAP_PER_VARIANT per variant), its
 * events still as text: the export decodes them on a compute pool thread, not on the event loop.
 */
export async function allRunEventChunks(db: Tx, run_id: string): Promise<EventChunkRow[]> {
  const chunks: EventChunkRow[] = [];
  let after = { variant_order: -1, chunk: -1 };
  for (;;) {
    const page = await db.query<ChunkRow & { variant_order: number; chunk: number }>(
      `select variant_order, chunk, variant_id, replication_index, events from run_event_chunks
       where run_id = ? and (variant_order, chunk) > (?, ?) order by variant_order, chunk limit ?`,
      [run_id, after.variant_order, after.chunk, CHUNKS_PER_READ],
    );
    for (const { variant_id, replication_index, events } of page) chunks.push({ variant_id, replication_index, events });
    if (page.length < CHUNKS_PER_READ) return chunks;
    after = { variant_order: Number(page.at(-1)!.variant_order), chunk: Number(page.at(-1)!.chunk) };
  }
}

/** Every stored trace event (bounded by EVENT_TRACE_CAP_PER_VARIANT per variant). */
export async function allRunEvents(db: Tx, run_id: string): Promise<StoredTraceEvent[]> {
  return (await allRunEventChunks(db, run_id)).flatMap(decodeChunk);
}
