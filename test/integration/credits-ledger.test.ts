// The credit ledger's store against a real database: PGlite in memory, or a fresh PostgreSQL database when
// DATABASE_URL is set (the property test and the 200-against-50 race run on both).
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Subject } from '../../domain/credits/rules.ts';
import { isServiceError } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import { runOperator } from '../../runtime/operator.ts';
import {
  allocateCredits,
  balances,
  fundProgramPool,
  grantCredits,
  ledgerTotals,
  listLedger,
  release,
  reserve,
  settle,
  sponsoredUsage,
  transferIdFor,
} from '../../store/credits/ledger.ts';
import { openDatabase, type Db } from '../../store/db.ts';
import { freshPostgresDatabase } from '../support/harness.ts';

let db: Db;
let dropDatabase: (() => Promise<void>) | undefined;

beforeAll(async () => {
  const fresh = await freshPostgresDatabase();
  dropDatabase = fresh?.drop;
  db = await openDatabase({ database_url: fresh?.url ?? null, pglite_dir: 'memory://', pool_max: 20 });
  await db.migrate();
});
afterAll(async () => {
  await db?.close();
  await dropDatabase?.();
});

/** A new organization with no credits (builder). */
async function newOrg(): Promise<string> {
  const id = newId('org');
  await db.query('insert into organizations (id, name) values (?, ?)', [id, `Ledger test ${id}`]);
  return id;
}

/** A sponsor program's pool with credits, ending in `days` (builder). */
async function newProgram(credits: number, days: number): Promise<string> {
  const program_id = newId('prog');
  const ends_at = new Date(Date.now() + days * 86_400_000).toISOString();
  await db.transaction((tx) => fundProgramPool(tx, { program_id, ends_at, credits, reason: 'test pool', caused_by: 'test' }));
  return program_id;
}

const subject = (id = newId('run')): Subject => ({ project_id: 'proj_test', kind: 'run', id });

function codeOf(error: unknown): string {
  return isServiceError(error) ? (error as { code: string }).code : `unexpected: ${(error as Error).message}`;
}

async function expectBooksBalance(): Promise<void> {
  const totals = await ledgerTotals(db);
  expect(totals.debits_posted).toBe(totals.credits_posted);
  expect(totals.debits_pending).toBe(totals.credits_pending);
  expect(totals.negative_spendable_accounts).toBe(0);
  const twice = await db.query('select pending_id from credit_transfers where pending_id is not null group by pending_id having count(*) > 1');
  expect(twice).toEqual([]);
}

describe('grants, reservations, settlement and release', () => {
  it('settles part of a reservation, voids the rest, and a reservation resolves only once', async () => {
    const org_id = await newOrg();
    await db.transaction((tx) => grantCredits(tx, { org_id, credits: 100, reason: 'pilot', caused_by: 'test' }));
    const held = await db.transaction((tx) =>
      reserve(tx, { transfer_id: 'k1:reserve', org_id, subject: subject(), credits: 60, reason: 'run', caused_by: 'test' }),
    );
    expect(await balances(db, org_id)).toMatchObject({ available_credits: 40, reserved_credits: 60 });
    const settled = await db.transaction((tx) => settle(tx, { transfer_id: 'k1:settle', reservation_id: held.reservation_id, credits_used: 25 }));
    expect(settled).toMatchObject({ kind: 'settlement', credits_posted: 25, credits_voided: 35 });
    expect(await balances(db, org_id)).toMatchObject({ available_credits: 75, reserved_credits: 0 });
    const again = db.transaction((tx) => release(tx, { transfer_id: 'k1:release', reservation_id: held.reservation_id }));
    await expect(again).rejects.toMatchObject({ code: 'CONFLICT' });
    await expectBooksBalance();
  });

  it('repeats nothing when a write is retried with the same transfer id', async () => {
    const org_id = await newOrg();
    const grant = () => db.transaction((tx) => grantCredits(tx, { org_id, credits: 10, reason: 'retry', caused_by: 'test', transfer_id: `${org_id}:grant` }));
    const first = await grant();
    expect((await grant()).id).toBe(first.id);
    const hold = () =>
      db.transaction((tx) =>
        reserve(tx, { transfer_id: `${org_id}:reserve`, org_id, subject: subject('run_same'), credits: 4, reason: 'r', caused_by: 'test' }),
      );
    const [a, b] = await Promise.all([hold(), hold()]);
    expect(a.reservation_id).toBe(b.reservation_id);
    const post = () => db.transaction((tx) => settle(tx, { transfer_id: `${org_id}:settle`, reservation_id: a.reservation_id, credits_used: 3 }));
    await Promise.all([post(), post(), post()]);
    expect(await balances(db, org_id)).toMatchObject({ available_credits: 7, reserved_credits: 0 });
    const kinds = (await listLedger(db, org_id, 0, 50)).map((t) => t.kind);
    expect(kinds).toEqual(['settlement', 'reservation', 'grant']);
    await expectBooksBalance();
  });

  it('refuses a reused transfer id with different amounts', async () => {
    const org_id = await newOrg();
    await db.transaction((tx) => grantCredits(tx, { org_id, credits: 10, reason: 'r', caused_by: 'test', transfer_id: `${org_id}:g` }));
    const reused = db.transaction((tx) => grantCredits(tx, { org_id, credits: 11, reason: 'r', caused_by: 'test', transfer_id: `${org_id}:g` }));
    await expect(reused).rejects.toMatchObject({ code: 'CONFLICT' });
  });

  it('answers an unknown organization or reservation with NOT_FOUND', async () => {
    const missing = db.transaction((tx) =>
      reserve(tx, { transfer_id: newId('txn'), org_id: 'org_missing', subject: subject(), credits: 1, reason: 'r', caused_by: 'test' }),
    );
    await expect(missing).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const nothing = db.transaction((tx) => settle(tx, { transfer_id: newId('txn'), reservation_id: 'txn_nosuchreservation', credits_used: 0 }));
    await expect(nothing).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('refuses to settle more than was reserved', async () => {
    const org_id = await newOrg();
    await db.transaction((tx) => grantCredits(tx, { org_id, credits: 10, reason: 'r', caused_by: 'test' }));
    const held = await db.transaction((tx) =>
      reserve(tx, { transfer_id: `${org_id}:r`, org_id, subject: subject(), credits: 5, reason: 'r', caused_by: 'test' }),
    );
    const over = db.transaction((tx) => settle(tx, { transfer_id: `${org_id}:s`, reservation_id: held.reservation_id, credits_used: 6 }));
    await expect(over).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
  });

  it('fails with 402 INSUFFICIENT_CREDITS naming available and needed', async () => {
    const org_id = await newOrg();
    await db.transaction((tx) => grantCredits(tx, { org_id, credits: 7, reason: 'r', caused_by: 'test' }));
    const short = db.transaction((tx) => reserve(tx, { transfer_id: `${org_id}:r`, org_id, subject: subject(), credits: 9, reason: 'r', caused_by: 'test' }));
    await expect(short).rejects.toMatchObject({ code: 'INSUFFICIENT_CREDITS', status: 402, details: { available_credits: 7, needed_credits: 9 } });
    await expect(short).rejects.toThrow(/7 available.*needs 9/);
    // The failed reservation left no row behind.
    expect(await listLedger(db, org_id, 0, 10)).toHaveLength(1);
  });
});

describe('funding order and sponsor reporting', () => {
  it('draws sponsored balances first (soonest-ending program first), keeps the split through settlement, and reports per program', async () => {
    const org_id = await newOrg();
    const late = await newProgram(1000, 60);
    const soon = await newProgram(1000, 5);
    await db.transaction((tx) => grantCredits(tx, { org_id, credits: 100, reason: 'own', caused_by: 'test' }));
    await db.transaction((tx) => allocateCredits(tx, { program_id: late, org_id, credits: 30, reason: 'a', caused_by: 'test' }));
    await db.transaction((tx) => allocateCredits(tx, { program_id: soon, org_id, credits: 20, reason: 'a', caused_by: 'test' }));
    const held = await db.transaction((tx) =>
      reserve(tx, { transfer_id: `${org_id}:r1`, org_id, subject: subject('run_a'), credits: 70, reason: 'r', caused_by: 'test' }),
    );
    expect(held.legs.map((l) => [l.program_id, l.credits])).toEqual([
      [soon, 20],
      [late, 30],
      [null, 20],
    ]);
    const current = await balances(db, org_id);
    expect(current.sources.map((s) => s.source)).toEqual(['sponsored', 'sponsored', 'own']);
    expect(current).toMatchObject({ available_credits: 80, reserved_credits: 70 });
    expect(await sponsoredUsage(db, late)).toMatchObject({
      credits_allocated: 30,
      credits_reserved: 30,
      credits_used: 0,
      evaluations_funded: 1,
      pool_balance: 970,
    });

    // 35 used: the soon program's 20, then 15 of the late program's 30; own credits untouched.
    await db.transaction((tx) => settle(tx, { transfer_id: `${org_id}:s1`, reservation_id: held.reservation_id, credits_used: 35 }));
    expect(await sponsoredUsage(db, soon)).toMatchObject({ credits_used: 20, credits_reserved: 0 });
    expect(await sponsoredUsage(db, late)).toMatchObject({ credits_used: 15, credits_reserved: 0 });
    const after = await balances(db, org_id);
    expect(after.sources).toEqual([
      expect.objectContaining({ source: 'sponsored', program_id: soon, available_credits: 0 }),
      expect.objectContaining({ source: 'sponsored', program_id: late, available_credits: 15 }),
      { source: 'own', available_credits: 100, reserved_credits: 0 },
    ]);
    await expectBooksBalance();
  });

  it('refuses an allocation larger than the pool', async () => {
    const org_id = await newOrg();
    const program_id = await newProgram(10, 5);
    const big = db.transaction((tx) => allocateCredits(tx, { program_id, org_id, credits: 11, reason: 'a', caused_by: 'test' }));
    await expect(big).rejects.toMatchObject({ code: 'INSUFFICIENT_CREDITS', details: { available_credits: 10, needed_credits: 11 } });
  });
});

describe('concurrency', () => {
  it('lets exactly 50 of 200 concurrent reservations through against a balance that covers 50', async () => {
    const org_id = await newOrg();
    await db.transaction((tx) => grantCredits(tx, { org_id, credits: 50, reason: 'race', caused_by: 'test' }));
    const outcomes = await Promise.allSettled(
      Array.from({ length: 200 }, (_, i) =>
        db.transaction((tx) => reserve(tx, { transfer_id: `${org_id}:race:${i}`, org_id, subject: subject(), credits: 1, reason: 'race', caused_by: 'test' })),
      ),
    );
    const won = outcomes.filter((o) => o.status === 'fulfilled').length;
    const refused = outcomes.filter((o) => o.status === 'rejected').map((o) => codeOf((o as PromiseRejectedResult).reason));
    expect(won).toBe(50);
    expect(new Set(refused)).toEqual(new Set(['INSUFFICIENT_CREDITS']));
    expect(await balances(db, org_id)).toMatchObject({ available_credits: 0, reserved_credits: 50 });
    await expectBooksBalance();
  });

  it('answers concurrent writes of one transfer id with one reservation or a clear refusal, never a raw database error', async () => {
    const orgs = [await newOrg(), await newOrg()];
    for (const org_id of orgs) await db.transaction((tx) => grantCredits(tx, { org_id, credits: 100, reason: 'race', caused_by: 'test' }));
    const transfer_id = `${orgs[0]}:same-id`;
    const outcomes = await Promise.allSettled(
      Array.from({ length: 40 }, (_, i) =>
        db.transaction((tx) => reserve(tx, { transfer_id, org_id: orgs[i % 2]!, subject: subject(), credits: 5, reason: 'race', caused_by: 'test' })),
      ),
    );
    const refused = outcomes.filter((o) => o.status === 'rejected').map((o) => codeOf((o as PromiseRejectedResult).reason));
    expect(new Set(refused).size <= 1 && refused.every((code) => code === 'CONFLICT')).toBe(true);
    const won = outcomes.filter((o) => o.status === 'fulfilled').map((o) => (o as PromiseFulfilledResult<{ reservation_id: string }>).value.reservation_id);
    expect(new Set(won).size).toBe(1);
    const reserved = (await balances(db, orgs[0]!)).reserved_credits + (await balances(db, orgs[1]!)).reserved_credits;
    expect(reserved).toBe(5);
    await expectBooksBalance();
  });

  type Op =
    | { op: 'grant'; org: number; credits: number }
    | { op: 'allocate'; org: number; credits: number }
    | { op: 'reserve'; org: number; key: number; credits: number }
    | { op: 'settle'; key: number; used_per_mille: number }
    | { op: 'release'; key: number };

  const KEYS = 4;
  const WAVE_SIZE = 6;
  const opArb: fc.Arbitrary<Op> = fc.oneof(
    fc.record({ op: fc.constant('grant' as const), org: fc.nat({ max: 1 }), credits: fc.integer({ min: 1, max: 50 }) }),
    fc.record({ op: fc.constant('allocate' as const), org: fc.nat({ max: 1 }), credits: fc.integer({ min: 1, max: 40 }) }),
    fc.record({ op: fc.constant('reserve' as const), org: fc.nat({ max: 1 }), key: fc.nat({ max: KEYS - 1 }), credits: fc.integer({ min: 1, max: 40 }) }),
    fc.record({ op: fc.constant('settle' as const), key: fc.nat({ max: KEYS - 1 }), used_per_mille: fc.nat({ max: 1000 }) }),
    fc.record({ op: fc.constant('release' as const), key: fc.nat({ max: KEYS - 1 }) }),
  );

  it('keeps the books balanced under random concurrent grants, allocations, reservations, settlements and releases', async () => {
    const succeeded: Record<string, number> = { grant: 0, allocate: 0, reserve: 0, settle: 0, release: 0 };
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 36 }), async (ops) => {
        const run = newId('run');
        const orgs = [await newOrg(), await newOrg()];
        const program_id = await newProgram(60, 10);
        // Starting balances, so that reservations often succeed and later waves have something to settle.
        for (const org_id of orgs) await db.transaction((tx) => grantCredits(tx, { org_id, credits: 60, reason: 'seed', caused_by: 'test' }));
        // A key's reservation has one org and amount, whichever op creates it first (a repeat is a retried write).
        const firstReserve = new Map<number, Extract<Op, { op: 'reserve' }>>();
        for (const op of ops) if (op.op === 'reserve' && !firstReserve.has(op.key)) firstReserve.set(op.key, op);
        const reservation_id = (key: number) => transferIdFor(`${run}:r${key}`);
        const write = (op: Op, i: number) =>
          db.transaction(async (tx) => {
            switch (op.op) {
              case 'grant':
                return grantCredits(tx, { org_id: orgs[op.org]!, credits: op.credits, reason: 'p', caused_by: 'test' });
              case 'allocate':
                return allocateCredits(tx, { program_id, org_id: orgs[op.org]!, credits: op.credits, reason: 'p', caused_by: 'test' });
              case 'reserve': {
                const first = firstReserve.get(op.key)!;
                return reserve(tx, {
                  transfer_id: `${run}:r${op.key}`,
                  org_id: orgs[first.org]!,
                  subject: subject(`run_${op.key}`),
                  credits: first.credits,
                  reason: 'p',
                  caused_by: 'test',
                });
              }
              case 'settle': {
                const reserved = firstReserve.get(op.key)?.credits ?? 1;
                return settle(tx, {
                  transfer_id: `${run}:s${op.key}:${i}`,
                  reservation_id: reservation_id(op.key),
                  credits_used: Math.floor((reserved * op.used_per_mille) / 1000),
                });
              }
              case 'release':
                return release(tx, { transfer_id: `${run}:x${op.key}:${i}`, reservation_id: reservation_id(op.key) });
            }
          });
        // Waves of concurrent writes: inside a wave everything races; later waves see earlier reservations to resolve.
        const results: PromiseSettledResult<unknown>[] = [];
        for (let start = 0; start < ops.length; start += WAVE_SIZE) {
          results.push(...(await Promise.allSettled(ops.slice(start, start + WAVE_SIZE).map((op, j) => write(op, start + j)))));
        }
        // Refusals are the ledger's rules at work; anything else is a bug.
        const expected = new Set(['INSUFFICIENT_CREDITS', 'NOT_FOUND', 'CONFLICT']);
        results.forEach((r, i) => {
          if (r.status === 'rejected') expect(expected).toContain(codeOf(r.reason));
          else succeeded[ops[i]!.op]! += 1;
        });

        await expectBooksBalance();
        for (const org_id of orgs) {
          // Every entry's change to available credits adds up to what the balances say is available.
          const entries = await listLedger(db, org_id, 0, 200);
          const sum = entries.reduce((s, e) => s + e.available_change_credits, 0);
          const current = await balances(db, org_id);
          expect(current.available_credits).toBe(sum);
          expect(current.reserved_credits).toBe(entries.filter((e) => e.kind === 'reservation' && e.status === 'pending').reduce((s, e) => s + e.credits, 0));
          for (const r of entries.filter((e) => e.kind === 'reservation')) {
            const resolvers = entries.filter((e) => e.reservation_id === r.id);
            expect(resolvers.length).toBe(r.status === 'pending' ? 0 : 1);
            const posted = resolvers.filter((e) => e.kind === 'settlement').reduce((s, e) => s + e.credits, 0);
            expect(posted).toBeLessThanOrEqual(r.credits);
          }
        }
      }),
      {
        numRuns: 50,
        // Random programs resolve a reservation only a few times in 50 runs (a key resolves once, after its reserve);
        // this one, run first, makes every kind of write succeed whatever the random ones do.
        examples: [
          [
            [
              { op: 'grant', org: 0, credits: 10 },
              { op: 'allocate', org: 1, credits: 5 },
              { op: 'reserve', org: 0, key: 0, credits: 20 },
              { op: 'reserve', org: 1, key: 1, credits: 20 },
              { op: 'grant', org: 1, credits: 1 },
              { op: 'grant', org: 1, credits: 1 },
              { op: 'settle', key: 0, used_per_mille: 500 },
              { op: 'release', key: 1 },
            ],
          ],
        ],
      },
    );
    // The runs exercised every kind of write, not only refusals.
    for (const kind of Object.keys(succeeded)) expect(succeeded[kind], kind).toBeGreaterThan(0);
  });
});

describe('operator grant-credits', () => {
  it('grants credits and prints the transaction id', async () => {
    const org_id = await newOrg();
    const result = await runOperator(db, { command: 'grant-credits', flags: { org: org_id, credits: '250', reason: 'pilot programme' } });
    expect(result.transaction_id).toMatch(/^txn_[0-9a-z]+$/);
    const [entry] = await listLedger(db, org_id, 0, 1);
    expect(entry).toMatchObject({ id: result.transaction_id, kind: 'grant', credits: 250, reason: 'pilot programme', caused_by: 'operator' });
  });

  it('refuses a non-integer amount and an unknown organization', async () => {
    const org_id = await newOrg();
    await expect(runOperator(db, { command: 'grant-credits', flags: { org: org_id, credits: '1e3', reason: 'x' } })).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
    });
    await expect(runOperator(db, { command: 'grant-credits', flags: { org: 'org_missing', credits: '5', reason: 'x' } })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });
});
