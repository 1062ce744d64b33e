// Change notices of pollable rows (docs/performance.md): a trigger on each pollable table calls
// pg_notify('crucible_changed', <row id>) after an update (migrations/0010_change_notify.ts). On PostgreSQL one
// LISTEN connection per process receives every notice, whichever process wrote the row; on the embedded PGlite the
// notice is delivered in-process by PGlite itself. A waiter costs a map entry and a timer, never a query.
//
// A fence (`fence()`) tells a reader that every notice of a transaction committed before the fence was asked for has
// been handled: on PostgreSQL the LISTEN connection sends itself a notice on a channel of its own, and PostgreSQL
// delivers the notices of different transactions in the order they committed, so when that notice arrives every
// earlier one has (docs/performance.md: the row cache on PostgreSQL). Readers arriving while a fence is in flight share
// the next one, so a busy process sends about one fence per round trip (at most one per FENCE_INTERVAL_MIN_MS), not
// one per read.
import { randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import pg from 'pg';

export const CHANGE_CHANNEL = 'crucible_changed';
/** A fence that has not come back by then counts as a lost connection: the feed starts again, readers go to the database. */
export const FENCE_TIMEOUT_MS = 5_000;
/**
 * Fences are sent at most this often per process: each is a tiny transaction that takes a transaction id (NOTIFY needs
 * one), so a busy process spends at most 500 ids a second on them; a reader waits at most this long for its turn.
 */
export const FENCE_INTERVAL_MIN_MS = 2;
const FENCE_PASSED = Promise.resolve(true);
/** The LISTEN connection's application_name, so an operator can tell it apart in pg_stat_activity. */
export const CHANGE_FEED_APPLICATION = 'crucible change feed';

export type ChangeFeed = {
  /** Calls `listener` on the next notice for `id` (and on a lost LISTEN connection); resolves once listening. */
  subscribe(id: string, listener: () => void): Promise<() => void>;
  /** Calls `listener` with every notice's id (and `null` on a lost LISTEN connection) until close; resolves once listening. */
  observe(listener: (id: string | null) => void): Promise<void>;
  /**
   * Resolves true once every notice of a transaction committed before this call has been handed to the observers;
   * false when the feed cannot promise it (not listening, the connection lost, the fence timed out).
   */
  fence(): Promise<boolean>;
  /** Whether the feed is listening now (a notice committed from now on will reach the observers). */
  live(): boolean;
  /** Fences sent to PostgreSQL since the feed was made. */
  fencesSent(): number;
  /** Waiters in this process. */
  waiting(): number;
  close(): Promise<void>;
};

type Native = { listen(channel: string, callback: (payload: string) => void): Promise<() => Promise<void>> };

// Over 70 lines, listed in test/unit/architecture.test.ts: not yet split: the change feed keeps its connection, listeners and reconnect state in one closure.
export function createChangeFeed(source: { database_url: string | null; pglite: () => Promise<unknown> }): ChangeFeed {
  const listeners = new Map<string, Set<() => void>>();
  const observers = new Set<(id: string | null) => void>();
  let count = 0;
  let started: Promise<void> | null = null;
  let stop: (() => Promise<void>) | null = null;
  let closed = false;
  let listening = false;
  /** PostgreSQL: the LISTEN connection now, and how to give it up. */
  let current: pg.Client | null = null;
  let drop: (() => void) | null = null;
  /** PostgreSQL: sends a fence on the LISTEN connection; null on PGlite (its notices arrive during the COMMIT). */
  let sendFence: ((token: string) => Promise<unknown>) | null = null;
  const fences = new Map<string, (arrived: boolean) => void>();
  let fence_count = 0;
  /** The fence sent and not back yet, the one the next callers share, and when the last was sent. */
  let fence_in_flight: Promise<boolean> | null = null;
  let fence_next: Promise<boolean> | null = null;
  let fence_sent_at = Number.NEGATIVE_INFINITY;

  const dispatch = (id: string) => {
    for (const observer of observers) observer(id);
    const set = listeners.get(id);
    if (!set) return;
    listeners.delete(id);
    count -= set.size;
    for (const listener of set) listener();
  };
  /** The LISTEN connection was lost: every waiter re-reads (and re-subscribes, which reconnects). */
  const wakeAll = () => {
    started = null;
    listening = false;
    sendFence = null;
    drop = null;
    for (const settle of fences.values()) settle(false);
    fences.clear();
    for (const observer of observers) observer(null);
    for (const id of [...listeners.keys()]) dispatch(id);
  };

  const start = async () => {
    if (source.database_url) {
      // A channel of this connection's own for its fences, so no other process receives them.
      const fence_channel = `crucible_fence_${randomBytes(8).toString('hex')}`;
      const client = new pg.Client({ connectionString: source.database_url, application_name: CHANGE_FEED_APPLICATION });
      client.on('notification', (message) => {
        if (message.channel === CHANGE_CHANNEL && message.payload) dispatch(message.payload);
        else if (message.channel === fence_channel && message.payload) {
          const settle = fences.get(message.payload);
          fences.delete(message.payload);
          settle?.(true);
        }
      });
      // Only the current connection's loss counts (an old one's late 'end' must not drop its successor).
      const lost = () => {
        if (current !== client) return;
        current = null;
        client.end().catch(() => {});
        wakeAll();
      };
      client.on('error', lost);
      client.on('end', () => {
        if (!closed) lost();
      });
      current = client;
      try {
        await client.connect();
        // A fence is a transaction of its own (NOTIFY takes a transaction id); nothing is lost if one is not durable.
        await client.query('set synchronous_commit = off');
        await client.query(`listen ${CHANGE_CHANNEL}`);
        await client.query(`listen ${fence_channel}`);
      } catch (error) {
        lost();
        throw error;
      }
      stop = () => client.end();
      drop = lost;
      sendFence = (token) => client.query('select pg_notify($1, $2)', [fence_channel, token]);
    } else {
      const native = (await source.pglite()) as Native;
      const unlisten = await native.listen(CHANGE_CHANNEL, (payload) => dispatch(payload));
      stop = unlisten;
    }
    listening = true;
  };

  /** One fence: its own notice, sent after every reader sharing it arrived. */
  const runFence = async (): Promise<boolean> => {
    if (closed) return false;
    try {
      started ??= start();
      await started;
    } catch {
      started = null;
      return false;
    }
    if (!listening) return false;
    if (!sendFence) return true; // PGlite: a committed change was announced before its COMMIT returned
    const token = String(++fence_count);
    const arrived = new Promise<boolean>((settle) => fences.set(token, settle));
    let timer: NodeJS.Timeout | undefined;
    const timed_out = new Promise<boolean>((settle) => {
      timer = setTimeout(() => settle(false), FENCE_TIMEOUT_MS);
    });
    sendFence(token).catch(() => fences.get(token)?.(false));
    const ok = await Promise.race([arrived, timed_out]);
    clearTimeout(timer);
    fences.delete(token);
    // A fence that never came back: what the connection delivers can no longer be trusted.
    if (!ok) drop?.();
    return ok;
  };

  /** The next fence: sent after one turn, once the one in flight is back and the minimum interval has passed. */
  const nextFence = async (): Promise<boolean> => {
    await null; // fence() records this promise as the next fence before anything below runs
    // One fence at a time, and at most one per FENCE_INTERVAL_MIN_MS (each is a transaction with an id).
    while (fence_in_flight) await fence_in_flight;
    // (a timer may fire early by up to a millisecond of the loop's clock, so the wait is checked again)
    for (
      let wait_ms = fence_sent_at + FENCE_INTERVAL_MIN_MS - performance.now();
      wait_ms > 0;
      wait_ms = fence_sent_at + FENCE_INTERVAL_MIN_MS - performance.now()
    ) {
      await delay(Math.ceil(wait_ms));
    }
    fence_next = null; // callers from here on need a fence sent after them
    fence_sent_at = performance.now();
    const sent = runFence();
    fence_in_flight = sent;
    try {
      return await sent;
    } finally {
      if (fence_in_flight === sent) fence_in_flight = null;
    }
  };

  const fence = (): Promise<boolean> => {
    // PGlite: every committed change was announced before its COMMIT returned; nothing to wait for.
    if (listening && !sendFence) return FENCE_PASSED;
    // Every caller until the next fence is sent shares it: it is sent after each of them arrived.
    fence_next ??= nextFence();
    return fence_next;
  };

  return {
    async subscribe(id, listener) {
      if (closed) throw new Error('the change feed is closed');
      let set = listeners.get(id);
      if (!set) {
        set = new Set();
        listeners.set(id, set);
      }
      const once = () => listener();
      set.add(once);
      count++;
      const unsubscribe = () => {
        const current = listeners.get(id);
        if (current?.delete(once)) {
          count--;
          if (current.size === 0) listeners.delete(id);
        }
      };
      try {
        started ??= start();
        await started;
      } catch (error) {
        started = null;
        unsubscribe();
        throw error;
      }
      return unsubscribe;
    },
    async observe(listener) {
      if (closed) throw new Error('the change feed is closed');
      observers.add(listener);
      try {
        started ??= start();
        await started;
      } catch (error) {
        started = null;
        observers.delete(listener);
        throw error;
      }
    },
    fence,
    live: () => listening,
    fencesSent: () => fence_count,
    waiting: () => count,
    async close() {
      closed = true;
      listening = false;
      for (const settle of fences.values()) settle(false);
      fences.clear();
      for (const observer of observers) observer(null);
      observers.clear();
      for (const id of [...listeners.keys()]) dispatch(id);
      if (started) await started.catch(() => {});
      await stop?.().catch(() => {});
    },
  };
}
