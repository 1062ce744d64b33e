// On the embedded PGlite a statement runs on the API's thread and settles in the same turn of the event loop; a chain of
// awaited statements must still let the loop serve what arrives between two of them (store/db.ts, `turn`), or one
// organization's transaction holds every other request (docs/decisions.md).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Db, openDatabase } from '../../store/db.ts';

let db: Db;
beforeAll(async () => {
  db = await openDatabase({ database_url: null, pglite_dir: 'memory://' });
});
afterAll(async () => {
  await db.close();
});

/** Counts the turns of the event loop that `work` lets happen, by an immediate that schedules itself. */
async function turnsDuring(work: () => Promise<void>): Promise<number> {
  let turns = 0;
  let running = true;
  const tick = () => {
    turns++;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  const before = turns;
  await work();
  running = false;
  return turns - before;
}

describe('PGlite statements and the event loop', () => {
  it('lets the loop turn between the statements of a chain, in and out of a transaction', async () => {
    const statements = 40;
    const outside = await turnsDuring(async () => {
      for (let index = 0; index < statements; index++) await db.query('select ?::int as n', [index]);
    });
    expect(outside).toBeGreaterThanOrEqual(statements);
    const inside = await turnsDuring(() =>
      db.transaction(async (tx) => {
        for (let index = 0; index < statements; index++) await tx.bound('select $1::int as n', [index]);
      }),
    );
    expect(inside).toBeGreaterThanOrEqual(statements);
  });

  it('answers an HTTP request that arrives while a long chain of statements runs, before the chain ends', async () => {
    const server = createServer((_request, response) => response.end('ok'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      let chain_done = false;
      const chain = (async () => {
        for (let index = 0; index < 400; index++) await db.query('select ?::int as n', [index]);
        chain_done = true;
      })();
      const answer = await fetch(`http://127.0.0.1:${port}/`).then((response) => response.text());
      expect(answer).toBe('ok');
      expect(chain_done).toBe(false);
      await chain;
    } finally {
      server.close();
    }
  });
});
