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

type FeedSource = { database_url: string | null; pglite: () => Promise<unknown> };

/**
 * One process's change feed: the waiters, the observers, the LISTEN connection (PostgreSQL) or PGlite's own listener,
 * and the fences in flight. Its methods share that state; `createChangeFeed` hands out the `ChangeFeed` view of it.
 */
class Feed {
  private readonly listeners = new Map<string, Set<() => void>>();
  private readonly observers = new Set<(id: string | null) => void>();
  private count = 0;
  private started: Promise<void> | null = null;
  private stop: (() => Promise<void>) | null = null;
  private closed = false;
  listening = false;
  /** PostgreSQL: the LISTEN connection now, and how to give it up. */
  private current: pg.Client | null = null;
  private drop: (() => void) | null = null;
  /** PostgreSQL: sends a fence on the LISTEN connection; null on PGlite (its notices arrive during the COMMIT). */
  private sendFence: ((token: string) => Promise<unknown>) | null = null;
  private readonly fences = new Map<string, (arrived: boolean) => void>();
  fence_count = 0;
  /** The fence sent and not back yet, the one the next callers share, and when the last was sent. */
  private fence_in_flight: Promise<boolean> | null = null;
  private fence_next: Promise<boolean> | null = null;
  private fence_sent_at = Number.NEGATIVE_INFINITY;

  private readonly source: FeedSource;

  constructor(source: FeedSource) {
    this.source = source;
  }

  waiting(): number {
    return this.count;
  }

  private dispatch(id: string): void {
    for (const observer of this.observers) observer(id);
    const set = this.listeners.get(id);
    if (!set) return;
    this.listeners.delete(id);
    this.count -= set.size;
    for (const listener of set) listener();
  }

  private failFences(): void {
    for (const settle of this.fences.values()) settle(false);
    this.fences.clear();
  }

  /** Wakes every waiter and observer (they re-read, and re-subscribe, which reconnects) and fails the fences. */
  private wakeAll(): void {
    this.listening = false;
    this.failFences();
    for (const observer of this.observers) observer(null);
    for (const id of [...this.listeners.keys()]) this.dispatch(id);
  }

  /** The LISTEN connection was lost: the next subscriber starts a new one. */
  private lost(): void {
    this.started = null;
    this.sendFence = null;
    this.drop = null;
    this.wakeAll();
  }

  /** Starts listening once; a failed start is forgotten so the next caller tries again. */
  private async ensureStarted(): Promise<void> {
    try {
      this.started ??= this.start();
      await this.started;
    } catch (error) {
      this.started = null;
      throw error;
    }
  }

  private async start(): Promise<void> {
    if (this.source.database_url) await this.listenPostgres(this.source.database_url);
    else {
      const native = (await this.source.pglite()) as Native;
      this.stop = await native.listen(CHANGE_CHANNEL, (payload) => this.dispatch(payload));
    }
    this.listening = true;
  }

  private async listenPostgres(database_url: string): Promise<void> {
    // A channel of this connection's own for its fences, so no other process receives them.
    const fence_channel = `crucible_fence_${randomBytes(8).toString('hex')}`;
    const client = new pg.Client({ connectionString: database_url, application_name: CHANGE_FEED_APPLICATION });
    client.on('notification', (message) => {
      if (message.channel === CHANGE_CHANNEL && message.payload) this.dispatch(message.payload);
      else if (message.channel === fence_channel && message.payload) {
        const settle = this.fences.get(message.payload);
        this.fences.delete(message.payload);
        settle?.(true);
      }
    });
    // Only the current connection's loss counts (an old one's late 'end' must not drop its successor).
    const lost = () => {
      if (this.current !== client) return;
      this.current = null;
      client.end().catch(() => {});
      this.lost();
    };
    client.on('error', lost);
    client.on('end', () => {
      if (!this.closed) lost();
    });
    this.current = client;
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
    this.stop = () => client.end();
    this.drop = lost;
    this.sendFence = (token) => client.query('select pg_notify($1, $2)', [fence_channel, token]);
  }

  /** One fence: its own notice, sent after every reader sharing it arrived. */
  private async runFence(): Promise<boolean> {
    if (this.closed) return false;
    try {
      await this.ensureStarted();
    } catch {
      return false;
    }
    if (!this.listening) return false;
    const send = this.sendFence;
    if (!send) return true; // PGlite: a committed change was announced before its COMMIT returned
    const token = String(++this.fence_count);
    const arrived = new Promise<boolean>((settle) => this.fences.set(token, settle));
    let timer: NodeJS.Timeout | undefined;
    const timed_out = new Promise<boolean>((settle) => {
      timer = setTimeout(() => settle(false), FENCE_TIMEOUT_MS);
    });
    send(token).catch(() => this.fences.get(token)?.(false));
    const ok = await Promise.race([arrived, timed_out]);
    clearTimeout(timer);
    this.fences.delete(token);
    // A fence that never came back: what the connection delivers can no longer be trusted.
    if (!ok) this.drop?.();
    return ok;
  }

  /** The next fence: sent after one turn, once the one in flight is back and the minimum interval has passed. */
  private async nextFence(): Promise<boolean> {
    await null; // fence() records this promise as the next fence before anything below runs
    // One fence at a time, and at most one per FENCE_INTERVAL_MIN_MS (each is a transaction with an id).
    while (this.fence_in_flight) await this.fence_in_flight;
    // (a timer may fire early by up to a millisecond of the loop's clock, so the wait is checked again)
    for (
      let wait_ms = this.fence_sent_at + FENCE_INTERVAL_MIN_MS - performance.now();
      wait_ms > 0;
      wait_ms = this.fence_sent_at + FENCE_INTERVAL_MIN_MS - performance.now()
    ) {
      await delay(Math.ceil(wait_ms));
    }
    this.fence_next = null; // callers from here on need a fence sent after them
    this.fence_sent_at = performance.now();
    const sent = this.runFence();
    this.fence_in_flight = sent;
    try {
      return await sent;
    } finally {
      if (this.fence_in_flight === sent) this.fence_in_flight = null;
    }
  }

  fence(): Promise<boolean> {
    // PGlite: every committed change was announced before its COMMIT returned; nothing to wait for.
    if (this.listening && !this.sendFence) return FENCE_PASSED;
    // Every caller until the next fence is sent shares it: it is sent after each of them arrived.
    this.fence_next ??= this.nextFence();
    return this.fence_next;
  }

  async subscribe(id: string, listener: () => void): Promise<() => void> {
    if (this.closed) throw new Error('the change feed is closed');
    let set = this.listeners.get(id);
    if (!set) {
      set = new Set();
      this.listeners.set(id, set);
    }
    const once = () => listener();
    set.add(once);
    this.count++;
    const unsubscribe = () => {
      const current = this.listeners.get(id);
      if (current?.delete(once)) {
        this.count--;
        if (current.size === 0) this.listeners.delete(id);
      }
    };
    try {
      await this.ensureStarted();
    } catch (error) {
      unsubscribe();
      throw error;
    }
    return unsubscribe;
  }

  async observe(listener: (id: string | null) => void): Promise<void> {
    if (this.closed) throw new Error('the change feed is closed');
    this.observers.add(listener);
    try {
      await this.ensureStarted();
    } catch (error) {
      this.observers.delete(listener);
      throw error;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.listening = false;
    this.failFences();
    for (const observer of this.observers) observer(null);
    this.observers.clear();
    for (const id of [...this.listeners.keys()]) this.dispatch(id);
    if (this.started) await this.started.catch(() => {});
    await this.stop?.().catch(() => {});
  }
}

export function createChangeFeed(source: FeedSource): ChangeFeed {
  const feed = new Feed(source);
  return {
    subscribe: (id, listener) => feed.subscribe(id, listener),
    observe: (listener) => feed.observe(listener),
    fence: () => feed.fence(),
    live: () => feed.listening,
    fencesSent: () => feed.fence_count,
    waiting: () => feed.waiting(),
    close: () => feed.close(),
  };
}
