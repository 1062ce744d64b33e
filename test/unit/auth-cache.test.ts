// The credential cache's lookups (api/auth.ts): requests presenting a credential while its lookup runs wait for that
// lookup instead of each running their own; each still proves its own secret; a credential forgotten meanwhile is not kept.
import type { Context } from 'koa';
import { describe, expect, it } from 'vitest';
import { authenticate, forgetCredential } from '../../api/auth.ts';
import type { AppDeps } from '../../api/context.ts';
import { sha256 } from '../../store/secrets.ts';

const SECRET = 'a'.repeat(32);
const TOKEN = `cru.tok_1.${SECRET}`;

/** A database whose token lookups wait until `release` is called, counting them. */
function fakeDeps() {
  const row = {
    id: 'tok_1',
    user_id: 'usr_1',
    org_id: 'org_1',
    scopes: ['read'],
    secret_hash: sha256(SECRET),
    expires_ms: Date.now() + 3_600_000,
    expired: false,
    revoked: false,
    role: 'member',
  };
  const pending: Array<() => void> = [];
  const db = {
    lookups: 0,
    one: async () => {
      db.lookups++;
      await new Promise<void>((resolve) => pending.push(resolve));
      return row;
    },
  };
  const release = () => {
    for (const resolve of pending.splice(0)) resolve();
  };
  return { deps: { db } as unknown as AppDeps, db, pending, release };
}

const request = (credential: string) => ({ get: (name: string) => (name === 'authorization' ? `Bearer ${credential}` : '') }) as unknown as Context;

/** Waits until `count` lookups are waiting for their answer. */
async function lookupsWaiting(pending: unknown[], count: number): Promise<void> {
  while (pending.length < count) await new Promise<void>((resolve) => setImmediate(resolve));
}

describe('credential lookups', () => {
  it('runs one lookup for 50 concurrent requests with the same token, then answers from the cache', async () => {
    const { deps, db, pending, release } = fakeDeps();
    const answers = Array.from({ length: 50 }, () => authenticate(deps, request(TOKEN)));
    await lookupsWaiting(pending, 1);
    release();
    const done = await Promise.all(answers);
    expect(db.lookups).toBe(1);
    expect(done.every((found) => found?.auth.user_id === 'usr_1')).toBe(true);
    await authenticate(deps, request(TOKEN));
    expect(db.lookups).toBe(1);
  });

  it('refuses a request with a wrong secret that joined the lookup of a right one', async () => {
    const { deps, pending, release } = fakeDeps();
    const right = authenticate(deps, request(TOKEN));
    const wrong = authenticate(deps, request(`cru.tok_1.${'b'.repeat(32)}`));
    await lookupsWaiting(pending, 1);
    release();
    await expect(right).resolves.toMatchObject({ auth: { token_id: 'tok_1' } });
    await expect(wrong).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
  });

  it('neither keeps nor lets later requests join a lookup that overlapped a revocation', async () => {
    const { deps, db, pending, release } = fakeDeps();
    const before = authenticate(deps, request(TOKEN));
    await lookupsWaiting(pending, 1);
    forgetCredential(deps, { token_id: 'tok_1' });
    const after = authenticate(deps, request(TOKEN));
    await lookupsWaiting(pending, 2);
    release();
    await Promise.all([before, after]);
    expect(db.lookups).toBe(2);

    // A lookup that overlapped a revocation answers its own requests but is not kept: the next request looks up again.
    const overlapped = authenticate(deps, request(`cru.tok_2.${SECRET}`));
    await lookupsWaiting(pending, 1);
    forgetCredential(deps, { token_id: 'tok_2' });
    release();
    await overlapped;
    const next = authenticate(deps, request(`cru.tok_2.${SECRET}`));
    await lookupsWaiting(pending, 1);
    expect(db.lookups).toBe(4);
    release();
    await next;
  });
});
