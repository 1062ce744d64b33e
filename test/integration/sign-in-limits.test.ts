// Sign-in resists brute force: attempts are counted per email and per client address in the database (so several API
// processes share the count), refused with 429 RATE_LIMITED and Retry-After, the same whether or not the email exists.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOperator } from '../../runtime/operator.ts';
import { purgeExpiredSignInAttempts, signInAttempts } from '../../store/accounts/signInAttempts.ts';
import { type Db, openDatabase } from '../../store/db.ts';
import { http, startTestService, type TestService } from '../support/harness.ts';

const PER_EMAIL = 3;
const PER_ADDRESS = 8;
const WINDOW_SECONDS = 600;

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
      // each test signs in from an address of its own, named by X-Forwarded-For
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
  it(`refuses the attempt after ${PER_EMAIL} for one email with 429 RATE_LIMITED and Retry-After, even with the right password`, async () => {
    const address = newAddress();
    for (let i = 0; i < PER_EMAIL; i++) expect((await signIn(address, { email, password: 'wrong password' })).status).toBe(401);
    const refused = await signIn(newAddress(), { email: email.toUpperCase(), password });
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ code: 'RATE_LIMITED', message: expect.stringContaining('try again in'), request_id: expect.any(String) });
    const retry_after = Number(refused.headers.get('retry-after'));
    expect(retry_after).toBeGreaterThan(0);
    expect(retry_after).toBeLessThanOrEqual(WINDOW_SECONDS);
    expect(refused.body.details.retry_after_seconds).toBe(retry_after);
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
    for (let i = 0; i < PER_EMAIL - 1; i++) expect((await signIn(address, { email: own, password: 'typo again' })).status).toBe(401);
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
      expect(await elsewhere.attempt(target, newAddress())).toMatchObject({ allowed: false });
      const stored = await other.query<{ key: string }>('select key from sign_in_attempts');
      // digests only: no stored key holds an email
      expect(stored.some((row) => row.key.includes('@'))).toBe(false);
      expect(await purgeExpiredSignInAttempts(other, Date.now() + (WINDOW_SECONDS + 1) * 1000)).toBeGreaterThan(0);
      expect((await signIn(newAddress(), { email: target, password: 'wrong' })).status).toBe(401);
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
