// Sign-in limits in the database, so several API processes share them (spec: Authentication; docs/decisions.md
// "Sign-in attempts"), in the table of migration 0011 (key, points, expire in epoch ms):
// - per client address, whichever emails it names: a fixed window counted by rate-limiter-flexible's PostgreSQL store
//   (through a small adapter to our `Db`, so PGlite and PostgreSQL count the same way);
// - per email and address: exponential backoff (domain/accounts/rules.ts signInWaitSeconds). The row `pair:<digest>`
//   holds the attempts since the last success (points) and the last attempt's time plus PAIR_KEPT_MS (expire). An
//   attempt is admitted by a compare-and-set on that row, so parallel attempts cannot all pass one free slot. Nothing is
//   counted per email alone: attempts from other addresses never make the owner wait.
import { createHash } from 'node:crypto';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { type SignInLimits, signInWaitSeconds } from '../../domain/accounts/rules.ts';
import type { Db } from '../db.ts';

export const SIGN_IN_ATTEMPTS_TABLE = 'sign_in_attempts';
export type { SignInLimits };

/** An email-and-address's attempts are remembered this long after its last attempt (a success forgets them at once). */
export const PAIR_KEPT_MS = 24 * 3600 * 1000;
/** Compare-and-set rounds before an attempt racing others of the same email and address is told to wait a second. */
const ADMIT_ROUNDS_MAX = 4;

export type SignInVerdict = { allowed: true } | { allowed: false; retry_after_seconds: number };

/** The library's store client: `query({ text, values })` answering `{ rows, rowCount }`; `$n` becomes our `?`. */
function storeClient(db: Db) {
  return {
    async query(query: { text: string; values?: unknown[] }) {
      const values = query.values ?? [];
      const params: unknown[] = [];
      const sql = query.text.replace(/\$(\d+)/g, (_, n: string) => {
        params.push(values[Number(n) - 1]);
        return '?';
      });
      const rows = await db.query(sql, params);
      return { rows, rowCount: rows.length };
    },
  };
}

const digest = (value: string) => createHash('sha256').update(value).digest('hex');
/** The row of one email from one address: a digest of both, never the email or the address themselves. */
const pairKey = (email: string, address: string) => `pair:${digest(`${email}\n${address}`)}`;

export type SignInAttempts = {
  /** Counts one attempt for the address and for the email from it; refuses when the address is over its limit or the email waits there. */
  attempt(email: string, address: string): Promise<SignInVerdict>;
  /** A successful sign-in forgets the attempts of the email from that address (the address keeps its own count). */
  succeeded(email: string, address: string): Promise<void>;
};

type PairRow = { points: number; expire: number | string };

/** Admits one attempt of a pair, or says how long it waits: read, decide, then update only if nobody changed the row. */
async function admitPair(db: Db, key: string, limits: SignInLimits): Promise<SignInVerdict> {
  for (let round = 0; round < ADMIT_ROUNDS_MAX; round++) {
    const now = Date.now();
    const row = await db.one<PairRow>(`select points, expire from ${SIGN_IN_ATTEMPTS_TABLE} where key = ?`, [key]);
    const live = row !== undefined && Number(row.expire) > now;
    const attempts = live ? row.points : 0;
    if (live) {
      const last_ms = Number(row.expire) - PAIR_KEPT_MS;
      const wait_ms = last_ms + signInWaitSeconds(attempts, limits) * 1000 - now;
      if (wait_ms > 0) return { allowed: false, retry_after_seconds: Math.max(1, Math.ceil(wait_ms / 1000)) };
    }
    const changed = row
      ? await db.query(`update ${SIGN_IN_ATTEMPTS_TABLE} set points = ?, expire = ? where key = ? and points = ? and expire = ? returning key`, [
          attempts + 1,
          now + PAIR_KEPT_MS,
          key,
          row.points,
          row.expire,
        ])
      : await db.query(`insert into ${SIGN_IN_ATTEMPTS_TABLE} (key, points, expire) values (?, 1, ?) on conflict (key) do nothing returning key`, [
          key,
          now + PAIR_KEPT_MS,
        ]);
    if (changed.length === 1) return { allowed: true };
  }
  return { allowed: false, retry_after_seconds: 1 };
}

export function signInAttempts(db: Db, limits: SignInLimits): SignInAttempts {
  const common = { storeClient: storeClient(db), storeType: 'client', tableName: SIGN_IN_ATTEMPTS_TABLE, tableCreated: true, clearExpiredByTimeout: false };
  const byAddress = new RateLimiterPostgres({ ...common, keyPrefix: 'addr', points: limits.per_address_max, duration: limits.window_seconds });
  return {
    async attempt(email, address) {
      try {
        await byAddress.consume(address);
      } catch (rejection) {
        // The library rejects with a RateLimiterRes when over the limit and with an Error when the store failed.
        if (rejection instanceof RateLimiterRes) return { allowed: false, retry_after_seconds: Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)) };
        throw rejection;
      }
      return admitPair(db, pairKey(email, address), limits);
    },
    async succeeded(email, address) {
      await db.query(`delete from ${SIGN_IN_ATTEMPTS_TABLE} where key = ?`, [pairKey(email, address)]);
    },
  };
}

/** Counters whose window has ended; the maintenance workflow deletes them. */
export async function purgeExpiredSignInAttempts(db: Db, now_ms = Date.now()): Promise<number> {
  const rows = await db.query(`delete from ${SIGN_IN_ATTEMPTS_TABLE} where expire is not null and expire < ? returning key`, [now_ms]);
  return rows.length;
}
