// Sign-in resists brute force without locking anyone out: attempts are counted per client address and per email from
// that address in the database (so several API processes share the count); past the free attempts an email waits
// there, doubling each time (429 RATE_LIMITED with Retry-After), the same whether or not the email exists, while the
// right password from another address still signs in. Behind a proxy the address is the entry the proxy appended.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOperator } from '../../runtime/operator.ts';
import { hashPassword, SCRYPT_PARAMETERS } from '../../store/secrets.ts';
import { PAIR_KEPT_MS, purgeExpiredSignInAttempts, signInAttempts } from '../../store/accounts/signInAttempts.ts';
import { type Db, openDatabase } from '../../store/db.ts';
import { http, startTestService, type TestService } from '../support/harness.ts';

const PER_EMAIL = 3;
const PER_ADDRESS = 8;
const WINDOW_SECONDS = 600;
/** Long enough that no retry in this file outlives a wait by accident. */
const BACKOFF_BASE_SECONDS = 60;

let service: TestService;
let email: string;
let password: string;

beforeAll(async () => {
  service = await startTestService({
    mode: 'api',
    env: {
      CRUCIBLE_SIGN_IN_ATTEMPTS_PER_EMAIL_MAX: String(PER_EMAIL),
      CRUCIBLE_SIGN_IN_ATTEMPTS_PER_ADDRESS_MAX: String(PER_ADDRESS),
      CRUCIBLE_SIGN_IN_WINDOW_SECONDS: String(WINDOW_SECONDS),
      CRUCIBLE_SIGN_IN_BACKOFF_BASE_SECONDS: String(BACKOFF_BASE_SECONDS),
      // each test signs in from an address of its own, named by X-Forwarded-For as one trusted proxy appends it
      CRUCIBLE_TRUST_PROXY: 'true',
    },
  });
  email = `limited-${randomBytes(3).toString('hex')}@example.org`;
  password = ((await runOperator(service.db, { command: 'create-user', flags: { email } })) as { password: string }).password;
});
afterAll(async () => {
  await service?.stop();
});

let addresses = 0;
const newAddress = () => `198.51.100.${++addresses}`;
const signIn = (address: string, body: { email: string; password: string }) =>
  http(service, 'POST', '/v1/auth/sessions', { body, headers: { 'x-forwarded-for': address } });

describe('sign-in attempts', () => {
  it(`makes one email wait at one address after ${PER_EMAIL} attempts (429, Retry-After), even with the right password there`, async () => {
    const address = newAddress();
    for (let i = 0; i < PER_EMAIL; i++) expect((await signIn(address, { email, password: 'wrong password' })).status).toBe(401);
    const refused = await signIn(address, { email: email.toUpperCase(), password });
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ code: 'RATE_LIMITED', message: expect.stringContaining('try again in'), request_id: expect.any(String) });
    const retry_after = Number(refused.headers.get('retry-after'));
    expect(retry_after).toBeGreaterThan(BACKOFF_BASE_SECONDS - 5);
    expect(retry_after).toBeLessThanOrEqual(BACKOFF_BASE_SECONDS);
    expect(refused.body.details.retry_after_seconds).toBe(retry_after);
    // the wait is this address's: the owner signs in from another one
    expect((await signIn(newAddress(), { email, password })).status).toBe(201);
  });

  it('never lets an attacker rotating addresses lock the owner out: the right password from a new address signs in', async () => {
    const target = `rotated-${randomBytes(3).toString('hex')}@example.org`;
    const own = ((await runOperator(service.db, { command: 'create-user', flags: { email: target } })) as { password: string }).password;
    const owner_address = newAddress();
    for (let round = 0; round < 4; round++) {
      const attacker = newAddress();
      const statuses: number[] = [];
      for (let i = 0; i <= PER_EMAIL; i++) statuses.push((await signIn(attacker, { email: target, password: `guess ${round}-${i}` })).status);
      expect(statuses).toEqual([...Array(PER_EMAIL).fill(401), 429]);
    }
    expect((await signIn(owner_address, { email: target, password: own })).status).toBe(201);
    expect((await signIn(newAddress(), { email: target, password: own })).status).toBe(201);
  });

  it('takes the address the trusted proxy appended: rotating a forged leftmost X-Forwarded-For entry does not escape the limit', async () => {
    const real = newAddress();
    for (let i = 0; i < PER_ADDRESS; i++) {
      const forged = `203.0.113.${i + 1}`;
      const response = await http(service, 'POST', '/v1/auth/sessions', {
        body: { email: `forged-${i}-${randomBytes(2).toString('hex')}@example.org`, password: 'guess' },
        headers: { 'x-forwarded-for': `${forged}, ${real}` },
      });
      expect(response.status).toBe(401);
    }
    const refused = await http(service, 'POST', '/v1/auth/sessions', { body: { email, password }, headers: { 'x-forwarded-for': `198.18.0.1, ${real}` } });
    expect(refused.status).toBe(429);
  });

  it('answers an unknown email exactly as a known one, so the limit reveals nothing', async () => {
    const unknown = `nobody-${randomBytes(3).toString('hex')}@example.org`;
    const known = `known-${randomBytes(3).toString('hex')}@example.org`;
    await runOperator(service.db, { command: 'create-user', flags: { email: known } });
    const sequence = async (who: string) => {
      const address = newAddress();
      const answers: Array<{ status: number; code: string; message: string }> = [];
      for (let i = 0; i <= PER_EMAIL; i++) {
        const response = await signIn(address, { email: who, password: 'wrong password' });
        answers.push({ status: response.status, code: response.body.code, message: response.body.message.replace(/\d+ seconds/, 'N seconds') });
      }
      return answers;
    };
    const forKnown = await sequence(known);
    expect(forKnown.map((answer) => answer.status)).toEqual([...Array(PER_EMAIL).fill(401), 429]);
    expect(await sequence(unknown)).toEqual(forKnown);
  });

  it(`refuses the attempt after ${PER_ADDRESS} from one address whichever emails it names`, async () => {
    const address = newAddress();
    for (let i = 0; i < PER_ADDRESS; i++) {
      expect((await signIn(address, { email: `spray-${i}-${randomBytes(2).toString('hex')}@example.org`, password: 'guess' })).status).toBe(401);
    }
    const refused = await signIn(address, { email, password });
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('RATE_LIMITED');
    // another address is not affected by this one
    const other = `other-${randomBytes(3).toString('hex')}@example.org`;
    expect((await signIn(newAddress(), { email: other, password: 'guess' })).status).toBe(401);
  });

  it("clears an email's count when its owner signs in", async () => {
    const own = `owner-${randomBytes(3).toString('hex')}@example.org`;
    const own_password = ((await runOperator(service.db, { command: 'create-user', flags: { email: own } })) as { password: string }).password;
    const address = newAddress();
    for (let i = 0; i < PER_EMAIL - 1; i++) expect((await signIn(address, { email: own, password: 'typo' })).status).toBe(401);
    expect((await signIn(address, { email: own, password: own_password })).status).toBe(201);
    for (let i = 0; i < PER_EMAIL; i++) expect((await signIn(address, { email: own, password: 'typo again' })).status).toBe(401);
  });

  it("signs in with a hash of older scrypt parameters and stores a new one at today's parameters", async () => {
    const legacy = `legacy-${randomBytes(3).toString('hex')}@example.org`;
    const created = (await runOperator(service.db, { command: 'create-user', flags: { email: legacy } })) as { user_id: string; password: string };
    const old_hash = await hashPassword(created.password, { N: 2 ** 14, r: 8, p: 1 });
    await service.db.query('update users set password_hash = ? where id = ?', [old_hash, created.user_id]);
    expect((await signIn(newAddress(), { email: legacy, password: created.password })).status).toBe(201);
    const [row] = await service.db.query<{ password_hash: string }>('select password_hash from users where id = ?', [created.user_id]);
    expect(row!.password_hash).not.toBe(old_hash);
    expect(row!.password_hash.startsWith(`scrypt$${SCRYPT_PARAMETERS.N}$${SCRYPT_PARAMETERS.r}$${SCRYPT_PARAMETERS.p}$`)).toBe(true);
    expect(SCRYPT_PARAMETERS).toMatchObject({ N: 2 ** 17, r: 8, p: 1 });
    // the new hash verifies the same password, and only it
    expect((await signIn(newAddress(), { email: legacy, password: created.password })).status).toBe(201);
    expect((await signIn(newAddress(), { email: legacy, password: `${created.password}x` })).status).toBe(401);
  });

  it('keeps the count in the database: another process (another connection) sees it, and maintenance purges expired counters', async () => {
    const target = `shared-${randomBytes(3).toString('hex')}@example.org`;
    const address = newAddress();
    for (let i = 0; i < PER_EMAIL; i++) expect((await signIn(address, { email: target, password: 'wrong' })).status).toBe(401);
    // On PostgreSQL a second connection pool stands for a second API process; PGlite has one owner process.
    const other: Db = service.config.database_url
      ? await openDatabase({ database_url: service.config.database_url, pglite_dir: null, pool_max: 2 })
      : service.db;
    try {
      const elsewhere = signInAttempts(other, service.config.sign_in_limits);
      expect(await elsewhere.attempt(target, address)).toMatchObject({ allowed: false });
      const stored = await other.query<{ key: string }>('select key from sign_in_attempts');
      // digests only: no stored key holds an email
      expect(stored.some((row) => row.key.includes('@'))).toBe(false);
      expect(await purgeExpiredSignInAttempts(other, Date.now() + PAIR_KEPT_MS + 1000)).toBeGreaterThan(0);
      expect((await signIn(address, { email: target, password: 'wrong' })).status).toBe(401);
    } finally {
      if (other !== service.db) await other.close();
    }
  });

  it('never logs a password', async () => {
    const joined = service.logs.join('\n');
    expect(joined).not.toContain(password);
    expect(joined).not.toContain('wrong password');
  });
});
