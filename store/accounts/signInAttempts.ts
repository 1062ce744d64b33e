// Counting sign-in attempts per email and per client address in the database, so several API processes share the
// count (spec: Authentication; docs/decisions.md "Sign-in attempts"). rate-limiter-flexible's PostgreSQL store does
// the counting; it speaks to our `Db` (PGlite or PostgreSQL) through a small adapter, so the embedded default and
// a PostgreSQL deployment count the same way, in the table of migration 0011.
import { createHash } from 'node:crypto';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import type { Db } from '../db.ts';

export const SIGN_IN_ATTEMPTS_TABLE = 'sign_in_attempts';

export type SignInLimits = {
  /** attempts allowed per normalised email per window (a success clears the email's count) */
  per_email_max: number;
  /** attempts allowed per client address per window, whichever emails they name */
  per_address_max: number;
  window_seconds: number;
};

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

export type SignInAttempts = {
  /** Counts one attempt for the email and the address; refuses when either is over its limit. */
  attempt(email: string, address: string): Promise<SignInVerdict>;
  /** A successful sign-in clears the email's count (the address keeps its own). */
  succeeded(email: string): Promise<void>;
};

export function signInAttempts(db: Db, limits: SignInLimits): SignInAttempts {
  const common = { storeClient: storeClient(db), storeType: 'client', tableName: SIGN_IN_ATTEMPTS_TABLE, tableCreated: true, clearExpiredByTimeout: false };
  const byEmail = new RateLimiterPostgres({ ...common, keyPrefix: 'email', points: limits.per_email_max, duration: limits.window_seconds });
  const byAddress = new RateLimiterPostgres({ ...common, keyPrefix: 'addr', points: limits.per_address_max, duration: limits.window_seconds });
  const refused = (rejection: unknown): SignInVerdict => {
    // The library rejects with a RateLimiterRes when over the limit and with an Error when the store failed.
    if (rejection instanceof RateLimiterRes) return { allowed: false, retry_after_seconds: Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)) };
    throw rejection;
  };
  return {
    async attempt(email, address) {
      try {
        await byAddress.consume(address);
      } catch (rejection) {
        return refused(rejection);
      }
      try {
        await byEmail.consume(digest(email));
      } catch (rejection) {
        return refused(rejection);
      }
      return { allowed: true };
    },
    async succeeded(email) {
      await byEmail.delete(digest(email));
    },
  };
}

/** Counters whose window has ended; the maintenance workflow deletes them. */
export async function purgeExpiredSignInAttempts(db: Db, now_ms = Date.now()): Promise<number> {
  const rows = await db.query(`delete from ${SIGN_IN_ATTEMPTS_TABLE} where expire is not null and expire < ? returning key`, [now_ms]);
  return rows.length;
}
