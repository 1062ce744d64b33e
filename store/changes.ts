// Change notices of pollable rows (docs/performance.md): a trigger on each pollable table calls
// pg_notify('crucible_changed', <row id>) after an update (migrations/0010_change_notify.ts). On PostgreSQL one
// LISTEN connection per process receives every notice, whichever process wrote the row; on the embedded PGlite the
// notice is delivered in-process by PGlite itself. A waiter costs a map entry and a timer, never a query.
import pg from 'pg';

export const CHANGE_CHANNEL = 'crucible_changed';

export type ChangeFeed = {
  /** Calls `listener` on the next notice for `id` (and on a lost LISTEN connection); resolves once listening. */
  subscribe(id: string, listener: () => void): Promise<() => void>;
  /** Calls `listener` with every notice's id (and `null` on a lost LISTEN connection) until close; resolves once listening. */
  observe(listener: (id: string | null) => void): Promise<void>;
  /** Waiters in this process. */
  waiting(): number;
  close(): Promise<void>;
};

type Native = { listen(channel: string, callback: (payload: string) => void): Promise<() => Promise<void>> };

export function createChangeFeed(source: { database_url: string | null; pglite: () => Promise<unknown> }): ChangeFeed {
  const listeners = new Map<string, Set<() => void>>();
  const observers = new Set<(id: string | null) => void>();
  let count = 0;
  let started: Promise<void> | null = null;
  let stop: (() => Promise<void>) | null = null;
  let closed = false;

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
    for (const observer of observers) observer(null);
    for (const id of [...listeners.keys()]) dispatch(id);
  };

  const start = async () => {
    if (source.database_url) {
      const client = new pg.Client({ connectionString: source.database_url });
      client.on('notification', (message) => {
        if (message.channel === CHANGE_CHANNEL && message.payload) dispatch(message.payload);
      });
      client.on('error', () => wakeAll());
      client.on('end', () => {
        if (!closed) wakeAll();
      });
      await client.connect();
      await client.query(`listen ${CHANGE_CHANNEL}`);
      stop = () => client.end();
    } else {
      const native = (await source.pglite()) as Native;
      const unlisten = await native.listen(CHANGE_CHANNEL, (payload) => dispatch(payload));
      stop = unlisten;
    }
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
    waiting: () => count,
    async close() {
      closed = true;
      for (const observer of observers) observer(null);
      observers.clear();
      for (const id of [...listeners.keys()]) dispatch(id);
      if (started) await started.catch(() => {});
      await stop?.().catch(() => {});
    },
  };
}
