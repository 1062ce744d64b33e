// Benchmark: reserve+settle pairs per second through the real ledger store on PostgreSQL, on one hot organization
// (every pair locks the same account rows) and spread over 100 organizations, beside pgbench's single-row UPDATE rate
// on the same server with the same client count, measured in the same run. Prints the ratios.
// Each pair is two transactions, as the saga's two activities commit them. Not a timed test.
// Run: node_modules/.bin/node bench/ledger.ts   (BENCH_POSTGRES_URL overrides postgres://postgres@127.0.0.1:5432/postgres)
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { newId } from '../domain/ids.ts';
import { grantCredits, ledgerTotals, reserve, settle } from '../store/credits/ledger.ts';
import { openDatabase, type Db } from '../store/db.ts';
import { printGoals } from './goals.ts';

export const BENCH_CLIENTS = 8;
export const BENCH_SECONDS = 5;
export const BENCH_SPREAD_ORGS = 100;
/** The goal is "not slower": the ratios against pgbench measured when the ledger took its present form (2026-11-26, 47c272e), with 10 % for noise. */
export const LEDGER_BEFORE = { hot: 0.079, spread: 0.158 };
const LEDGER_NOISE = 0.9;
const CREDITS_PER_RESERVATION = 10;
const CREDITS_USED = 7;

export type LedgerBenchFigures = {
  clients: number;
  seconds: number;
  hot_pairs_per_second: number;
  spread_pairs_per_second: number;
  pgbench_updates_per_second: number | null;
  ratio_hot: number | null;
  ratio_spread: number | null;
};

function pgbenchPath(): string | null {
  for (const candidate of [
    '/usr/bin/pgbench',
    '/usr/lib/postgresql/15/bin/pgbench',
    '/usr/lib/postgresql/16/bin/pgbench',
    '/usr/lib/postgresql/17/bin/pgbench',
  ]) {
    if (existsSync(candidate)) return candidate;
  }
  try {
    return execFileSync('which', ['pgbench'], { encoding: 'utf8' }).trim() || null;
  } catch {
    return null;
  }
}

async function insertOrgs(db: Db, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const id = newId('org');
    await db.query('insert into organizations (id, name) values (?, ?)', [id, `bench ${i}`]);
    await db.transaction((tx) => grantCredits(tx, { org_id: id, credits: 1_000_000_000, reason: 'bench funds', caused_by: 'bench' }));
    ids.push(id);
  }
  return ids;
}

/** BENCH_CLIENTS loops of reserve-then-settle for BENCH_SECONDS; returns completed pairs per second. */
async function pairsPerSecond(db: Db, pickOrg: (client: number, n: number) => string, label: string): Promise<number> {
  const deadline = performance.now() + BENCH_SECONDS * 1000;
  const started = performance.now();
  let pairs = 0;
  await Promise.all(
    Array.from({ length: BENCH_CLIENTS }, async (_, client) => {
      for (let n = 0; performance.now() < deadline; n++) {
        const org_id = pickOrg(client, n);
        const base = `bench-${label}-${client}-${n}`;
        const held = await db.transaction((tx) =>
          reserve(tx, {
            transfer_id: `${base}:reserve`,
            org_id,
            subject: { project_id: 'proj_bench', kind: 'run', id: 'run_bench' },
            credits: CREDITS_PER_RESERVATION,
            reason: 'bench',
            caused_by: 'bench',
          }),
        );
        await db.transaction((tx) => settle(tx, { transfer_id: `${base}:settle`, reservation_id: held.reservation_id, credits_used: CREDITS_USED }));
        pairs++;
      }
    }),
  );
  return pairs / ((performance.now() - started) / 1000);
}

function pgbenchRate(binary: string, url: URL, database: string): number {
  const dir = mkdtempSync(join(tmpdir(), 'crucible-pgbench-'));
  try {
    const script = join(dir, 'update.sql');
    writeFileSync(script, 'update bench_counter set n = n + 1 where id = 1;\n');
    const output = execFileSync(
      binary,
      [
        '-n',
        '-h',
        url.hostname,
        '-p',
        url.port || '5432',
        '-U',
        decodeURIComponent(url.username || 'postgres'),
        '-c',
        String(BENCH_CLIENTS),
        '-j',
        '2',
        '-T',
        String(BENCH_SECONDS),
        '-f',
        script,
        database,
      ],
      { encoding: 'utf8', env: { ...process.env, PGPASSWORD: decodeURIComponent(url.password) } },
    );
    const match = /tps = ([0-9.]+)/.exec(output);
    if (!match) throw new Error(`pgbench printed no tps:\n${output}`);
    return Number(match[1]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function main(): Promise<LedgerBenchFigures> {
  const server = new URL(process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  const database = `crucible_bench_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: server.toString() });
  await admin.connect();
  await admin.query(`create database ${database}`);
  const url = new URL(server.toString());
  url.pathname = `/${database}`;
  const db = await openDatabase({ database_url: url.toString(), pglite_dir: null, pool_max: BENCH_CLIENTS });
  try {
    await db.migrate();
    const [hot] = await insertOrgs(db, 1);
    const spread = await insertOrgs(db, BENCH_SPREAD_ORGS);
    // A short warm-up: connections opened, statements planned.
    await pairsPerSecondFor(db, 0.5, () => hot!);
    const hot_pairs_per_second = await pairsPerSecond(db, () => hot!, 'hot');
    const spread_pairs_per_second = await pairsPerSecond(db, (client, n) => spread[(client * 13 + n) % BENCH_SPREAD_ORGS]!, 'spread');
    const totals = await ledgerTotals(db);
    if (totals.debits_posted !== totals.credits_posted || totals.debits_pending !== totals.credits_pending)
      throw new Error('the ledger does not balance after the bench');

    await db.query('create table bench_counter (id integer primary key, n bigint not null)');
    await db.query('insert into bench_counter values (1, 0)');
    const binary = pgbenchPath();
    const pgbench_updates_per_second = binary ? pgbenchRate(binary, url, database) : null;
    const figures: LedgerBenchFigures = {
      clients: BENCH_CLIENTS,
      seconds: BENCH_SECONDS,
      hot_pairs_per_second: Math.round(hot_pairs_per_second),
      spread_pairs_per_second: Math.round(spread_pairs_per_second),
      pgbench_updates_per_second: pgbench_updates_per_second === null ? null : Math.round(pgbench_updates_per_second),
      ratio_hot: pgbench_updates_per_second ? round(hot_pairs_per_second / pgbench_updates_per_second) : null,
      ratio_spread: pgbench_updates_per_second ? round(spread_pairs_per_second / pgbench_updates_per_second) : null,
    };
    const say = (line: string) => process.stdout.write(`${line}\n`);
    say(`ledger on PostgreSQL, ${BENCH_CLIENTS} clients, ${BENCH_SECONDS} s each (one pair = a reserve transaction and a settle transaction)`);
    say(`  reserve+settle pairs/s, one hot organization:      ${figures.hot_pairs_per_second}`);
    say(`  reserve+settle pairs/s, over ${BENCH_SPREAD_ORGS} organizations: ${figures.spread_pairs_per_second}`);
    say(`  pgbench single-row UPDATE transactions/s:          ${figures.pgbench_updates_per_second ?? 'pgbench not found (install postgresql-client)'}`);
    if (figures.ratio_hot !== null) {
      say(`  ratio hot pairs / pgbench updates:                 ${figures.ratio_hot}`);
      say(`  ratio spread pairs / pgbench updates:              ${figures.ratio_spread}`);
    }
    const notSlower = (ratio: number | null, before: number) => (ratio === null ? null : ratio >= before * LEDGER_NOISE);
    printGoals([
      {
        goal: `ledger, one hot organization: not slower than its reference (${LEDGER_BEFORE.hot} of pgbench, less 10 % noise)`,
        figure: `${figures.ratio_hot ?? 'no pgbench'}`,
        met: notSlower(figures.ratio_hot, LEDGER_BEFORE.hot),
      },
      {
        goal: `ledger, spread over ${BENCH_SPREAD_ORGS} organizations: not slower than its reference (${LEDGER_BEFORE.spread} of pgbench, less 10 % noise)`,
        figure: `${figures.ratio_spread ?? 'no pgbench'}`,
        met: notSlower(figures.ratio_spread, LEDGER_BEFORE.spread),
      },
    ]);
    say(JSON.stringify(figures));
    return figures;
  } finally {
    await db.close();
    await admin.query(`drop database if exists ${database} with (force)`);
    await admin.end();
  }
}

async function pairsPerSecondFor(db: Db, seconds: number, pickOrg: () => string): Promise<void> {
  const deadline = performance.now() + seconds * 1000;
  for (let n = 0; performance.now() < deadline; n++) {
    const held = await db.transaction((tx) =>
      reserve(tx, { transfer_id: `warmup-${n}:reserve`, org_id: pickOrg(), subject: null, credits: 1, reason: 'warm-up', caused_by: 'bench' }),
    );
    await db.transaction((tx) => settle(tx, { transfer_id: `warmup-${n}:settle`, reservation_id: held.reservation_id, credits_used: 1 }));
  }
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
