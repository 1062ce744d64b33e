// Billing end to end (spec: Billing endpoints, Checkout rules, Events, States and transitions — Purchase intent): the real
// service, Temporal and the real `stripe` SDK against a local stateful fake of the Stripe API.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../api/app.ts';
import { createLogger } from '../../runtime/logger.ts';
import { NEW_INTENTS_PER_HOUR_MAX } from '../../domain/billing/rules.ts';
import { runOperator } from '../../runtime/operator.ts';
import { allocateCredits } from '../../store/credits/ledger.ts';
import { createProgram, findProgram, poolBalance, setProgramStatus } from '../../store/sponsors/sponsors.ts';
import { startStripeFake, stripeEnv, type StripeFake } from '../fakes/stripe.ts';
import { apiToken, eventually, http, signedInMember, signedInOwner, startTestService, type TestService, type TestUser } from '../support/harness.ts';

let stripe: StripeFake;
let service: TestService;
let owner: TestUser;
const PACK_CREDITS = 5000;

beforeAll(async () => {
  stripe = await startStripeFake();
  service = await startTestService({ env: stripeEnv(stripe) });
  owner = await signedInOwner(service, 'billing');
  const price = stripe.addPrice({ unit_amount: 1500 });
  await runOperator(service.db, {
    command: 'pack bind',
    flags: { key: 'starter', title: 'Starter pack', price: price.id, credits: String(PACK_CREDITS) },
    config: service.config,
  });
});

afterAll(async () => {
  await service?.stop();
  await stripe?.close();
});

let keys = 0;
async function checkout(user: TestUser, body: Record<string, unknown>, key = `k-${++keys}`, token = user.session) {
  return http(service, 'POST', '/v1/billing/checkout', { token, body, headers: { 'idempotency-key': key } });
}

async function deliver(type: string, session_id: string, options: { timestamp?: number; secret?: string; livemode?: boolean } = {}) {
  const { body, signature } = stripe.signedEvent(type, session_id, options);
  return http(service, 'POST', '/v1/billing/stripe/webhook', { raw: body, headers: { 'content-type': 'application/json', 'stripe-signature': signature } });
}

async function purchase(user: TestUser, intent_id: string) {
  return http(service, 'GET', `/v1/billing/purchases/${intent_id}`, { token: user.session });
}

async function waitFor(user: TestUser, intent_id: string, predicate: (body: any) => boolean, what: string) {
  return eventually(
    async () => {
      const found = await purchase(user, intent_id);
      return found.status === 200 && predicate(found.body) ? found.body : null;
    },
    30_000,
    what,
  );
}

async function purchaseGrants(org_id: string): Promise<number> {
  const row = await service.db.one<{ n: number }>(`select count(*)::int as n from credit_transfers where kind = 'purchase' and org_id = ?`, [org_id]);
  return row!.n;
}

async function ownBalance(org_id: string): Promise<number> {
  const row = await service.db.one<{ n: string }>(
    `select coalesce(sum(credits_posted - debits_posted), 0)::text as n from credit_accounts where kind = 'org_own' and org_id = ?`,
    [org_id],
  );
  return Number(row!.n);
}

async function events(intent_id: string): Promise<Array<{ trigger: string; outcome: string }>> {
  return service.db.query('select trigger, outcome from billing_events where intent_id = ? order by created_at, id', [intent_id]);
}

/** A new owner with one checkout started: the intent and its session. */
async function started(label: string) {
  const user = await signedInOwner(service, label);
  const response = await checkout(user, { pack_key: 'starter', org_id: user.org_id });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return { user, intent_id: response.body.intent_id as string, session_id: response.body.session_id as string, response };
}

describe('flag and catalog', () => {
  it('answers 503 BILLING_NOT_CONFIGURED on every billing endpoint while SERVICE_BILLING_ENABLED is off', async () => {
    const { app } = createApp({
      config: { ...service.config, billing_enabled: false },
      db: service.db,
      logger: createLogger({ level: 'silent' }),
      temporal: null,
    });
    const server = createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const off = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
    try {
      for (const [method, path] of [
        ['GET', '/v1/billing/packs'],
        ['POST', '/v1/billing/checkout'],
        ['GET', '/v1/billing/purchases/pi_abc'],
        ['POST', '/v1/billing/stripe/webhook'],
      ] as const) {
        const response = await http(off, method, path, { token: owner.session, ...(method === 'POST' ? { body: {} } : {}) });
        expect(response.status, path).toBe(503);
        expect(response.body.code).toBe('BILLING_NOT_CONFIGURED');
      }
    } finally {
      server.close();
    }
  });

  it('lists bound packs with the provider amount and live_mode; bind refuses unusable prices; retire removes a pack', async () => {
    const packs = await http(service, 'GET', '/v1/billing/packs', { token: owner.session });
    expect(packs.status).toBe(200);
    expect(packs.body.live_mode).toBe(false);
    expect(packs.body.data).toContainEqual({ pack_key: 'starter', title: 'Starter pack', credits: PACK_CREDITS, amount: 1500, currency: 'usd' });
    for (const overrides of [
      { active: false },
      { type: 'recurring' as const, recurring: { interval: 'month' } },
      { currency: 'eur' },
      { livemode: true },
      { unit_amount: null },
    ]) {
      const price = stripe.addPrice(overrides);
      await expect(
        runOperator(service.db, { command: 'pack bind', flags: { key: 'bad', title: 'Bad', price: price.id, credits: '10' }, config: service.config }),
      ).rejects.toMatchObject({ code: 'BILLING_NOT_CONFIGURED' });
    }
    const other = stripe.addPrice({ unit_amount: 900 });
    await runOperator(service.db, { command: 'pack bind', flags: { key: 'small', title: 'Small', price: other.id, credits: '100' }, config: service.config });
    const listed = (await runOperator(service.db, { command: 'pack list', flags: {} })) as { packs: Array<{ pack_key: string }> };
    expect(listed.packs.map((p) => p.pack_key)).toEqual(['small', 'starter']);
    await runOperator(service.db, { command: 'pack retire', flags: { key: 'small' } });
    const after = await http(service, 'GET', '/v1/billing/packs', { token: owner.session });
    expect(after.body.data.map((p: { pack_key: string }) => p.pack_key)).toEqual(['starter']);
    const refused = await checkout(owner, { pack_key: 'small', org_id: owner.org_id });
    expect(refused.status).toBe(422);
  });
});

describe('checkout', () => {
  it('saves a pending intent (state: none → pending) and returns a session carrying the intent id', async () => {
    const { user, intent_id, session_id, response } = await started('pending');
    expect(response.body).toMatchObject({ status: 'pending', url: expect.stringContaining(session_id) });
    const session = stripe.sessions.get(session_id)!;
    expect(session.metadata.intent_id).toBe(intent_id);
    expect(session.client_reference_id).toBe(intent_id);
    expect(session.line_items_data).toEqual([{ price: [...stripe.prices.values()][0]!.id, quantity: 1 }]);
    const create = stripe.requests.find((r) => r.path === '/v1/checkout/sessions' && r.body_text.includes(intent_id))!;
    expect(create.headers['idempotency-key']).toBe(`crucible-checkout-${intent_id}`);
    expect(create.headers['stripe-version']).toBe('2026-09-30.endive');
    const seen = await purchase(user, intent_id);
    expect(seen.body).toMatchObject({ intent_id, status: 'pending', credits: PACK_CREDITS, amount: 1500, currency: 'usd', transaction_id: null });
  });

  it('refuses API tokens (403), members (403), bodies with both or no owner (422) and unknown packs (422)', async () => {
    const token = await apiToken(service, owner, ['read', 'write', 'run']);
    const byToken = await checkout(owner, { pack_key: 'starter', org_id: owner.org_id }, 'tok-1', token);
    expect(byToken.status).toBe(403);
    const member = await signedInMember(service, owner.org_id, 'member');
    expect((await checkout(member, { pack_key: 'starter', org_id: owner.org_id })).status).toBe(403);
    expect((await checkout(owner, { pack_key: 'starter' })).status).toBe(422);
    expect((await checkout(owner, { pack_key: 'starter', org_id: owner.org_id, program_id: 'prog_x' })).status).toBe(422);
    expect((await checkout(owner, { pack_key: 'nope', org_id: owner.org_id })).status).toBe(422);
    expect((await checkout(owner, { pack_key: 'starter', org_id: owner.org_id, amount: 1 })).status).toBe(422);
    const missingKey = await http(service, 'POST', '/v1/billing/checkout', { token: owner.session, body: { pack_key: 'starter', org_id: owner.org_id } });
    expect(missingKey.status).toBe(422);
  });

  it('lets an admin buy; another organization cannot inspect the purchase (404)', async () => {
    const admin = await signedInMember(service, owner.org_id, 'admin');
    const response = await checkout(admin, { pack_key: 'starter', org_id: owner.org_id });
    expect(response.status).toBe(201);
    const stranger = await signedInOwner(service, 'stranger');
    const foreign = await purchase(stranger, response.body.intent_id);
    expect(foreign.status).toBe(404);
    expect((await purchase(stranger, 'pi_doesnotexist')).status).toBe(404);
    expect((await purchase(owner, response.body.intent_id)).status).toBe(200);
  });

  it('concurrent retries make one session; a changed body with the same key is IDEMPOTENCY_KEY_REUSED', async () => {
    const user = await signedInOwner(service, 'retry');
    const body = { pack_key: 'starter', org_id: user.org_id };
    const answers = await Promise.all(Array.from({ length: 5 }, () => checkout(user, body, 'same-key')));
    for (const answer of answers) expect([201, 409]).toContain(answer.status);
    const ok = answers.filter((a) => a.status === 201);
    expect(new Set(ok.map((a) => a.body.session_id)).size).toBe(1);
    const intents = await service.db.query('select id from purchase_intents where org_id = ?', [user.org_id]);
    expect(intents).toHaveLength(1);
    const price = stripe.addPrice({ unit_amount: 4000 });
    await runOperator(service.db, { command: 'pack bind', flags: { key: 'large', title: 'Large', price: price.id, credits: '20000' }, config: service.config });
    const changed = await checkout(user, { ...body, pack_key: 'large' }, 'same-key');
    expect(changed.status).toBe(422);
    expect(changed.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  it(`refuses the ${NEW_INTENTS_PER_HOUR_MAX + 1}th new intent within an hour (409); an unchanged retry of the ${NEW_INTENTS_PER_HOUR_MAX}th is not`, async () => {
    const user = await signedInOwner(service, 'limit');
    const body = { pack_key: 'starter', org_id: user.org_id };
    for (let i = 1; i <= NEW_INTENTS_PER_HOUR_MAX; i++) expect((await checkout(user, body, `limit-${i}`)).status).toBe(201);
    const eleventh = await checkout(user, body, 'limit-11');
    expect(eleventh.status).toBe(409);
    expect(eleventh.body.code).toBe('CONFLICT');
    const retry = await checkout(user, body, `limit-${NEW_INTENTS_PER_HOUR_MAX}`);
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
  });

  it('an ambiguous provider failure is 502 PAYMENT_PROVIDER_ERROR; the retry with the same key and body reuses the saved intent', async () => {
    const user = await signedInOwner(service, 'flaky');
    const body = { pack_key: 'starter', org_id: user.org_id };
    stripe.failCreates(10);
    const failed = await checkout(user, body, 'flaky-1');
    expect(failed.status).toBe(502);
    expect(failed.body.code).toBe('PAYMENT_PROVIDER_ERROR');
    stripe.failCreates(0);
    const retried = await checkout(user, body, 'flaky-1');
    expect(retried.status).toBe(201);
    const intents = await service.db.query<{ id: string }>('select id from purchase_intents where org_id = ?', [user.org_id]);
    expect(intents.map((i) => i.id)).toEqual([retried.body.intent_id]);
  });

  it('an expired intent never makes a replacement session (409)', async () => {
    const user = await signedInOwner(service, 'expired');
    const body = { pack_key: 'starter', org_id: user.org_id };
    stripe.failCreates(10);
    expect((await checkout(user, body, 'exp-1')).status).toBe(502);
    stripe.failCreates(0);
    await service.db.query(`update purchase_intents set expires_at = now() - interval '1 second' where org_id = ?`, [user.org_id]);
    const creates = stripe.requests.filter((r) => r.path === '/v1/checkout/sessions').length;
    const again = await checkout(user, body, 'exp-1');
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('CONFLICT');
    expect(stripe.requests.filter((r) => r.path === '/v1/checkout/sessions').length).toBe(creates);
  });
});

describe('events and the purchase-intent state table', () => {
  it('pending → completed on checkout.session.completed of a paid session: credits issued with the event record, in one commit', async () => {
    const { user, intent_id, session_id } = await started('paid');
    stripe.markPaid(session_id);
    expect((await deliver('checkout.session.completed', session_id)).status).toBe(200);
    const done = await waitFor(user, intent_id, (p) => p.status === 'completed', 'completion');
    expect(done.transaction_id).toMatch(/^txn_/);
    expect(await ownBalance(user.org_id)).toBe(PACK_CREDITS);
    expect(await events(intent_id)).toContainEqual({ trigger: 'checkout.session.completed', outcome: 'completed' });
  });

  it('a purchase is pollable: 304 while it is pending, and a wait ends with "completed" when the signed webhook lands', async () => {
    const { user, intent_id, session_id } = await started('polled');
    const first = await purchase(user, intent_id);
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    const again = await http(service, 'GET', `/v1/billing/purchases/${intent_id}`, { token: user.session, headers: { 'if-none-match': etag! } });
    expect(again.status).toBe(304);
    let answered = false;
    const waiting = http(service, 'GET', `/v1/billing/purchases/${intent_id}?wait=25`, { token: user.session, headers: { 'if-none-match': etag! } }).then(
      (answer) => {
        answered = true;
        return answer;
      },
    );
    // Another owner's purchase completing does not end this wait.
    const other = await started('polled-other');
    stripe.markPaid(other.session_id);
    expect((await deliver('checkout.session.completed', other.session_id)).status).toBe(200);
    await waitFor(other.user, other.intent_id, (p) => p.status === 'completed', 'the other completion');
    expect(answered).toBe(false);
    stripe.markPaid(session_id);
    expect((await deliver('checkout.session.completed', session_id)).status).toBe(200);
    const answer = await waiting;
    expect(answer.status).toBe(200);
    expect(answer.body.status).toBe('completed');
    expect(answer.headers.get('etag')).not.toBe(etag);
  });

  it('the same completed event 10 times concurrently, interleaved in reverse with async_payment_succeeded, grants once', async () => {
    const { user, intent_id, session_id } = await started('tenfold');
    stripe.markPaid(session_id);
    const deliveries = [
      ...Array.from({ length: 10 }, () => deliver('checkout.session.completed', session_id)),
      ...Array.from({ length: 10 }, () => deliver('checkout.session.async_payment_succeeded', session_id)).reverse(),
    ];
    for (const answer of await Promise.all(deliveries)) expect(answer.status).toBe(200);
    for (let i = 0; i < 5; i++) {
      expect((await deliver('checkout.session.async_payment_succeeded', session_id)).status).toBe(200);
      expect((await deliver('checkout.session.completed', session_id)).status).toBe(200);
    }
    await waitFor(user, intent_id, (p) => p.status === 'completed', 'completion');
    await eventually(async () => (await events(intent_id)).length >= 2, 30_000, 'the repeats to be reconciled');
    expect(await purchaseGrants(user.org_id)).toBe(1);
    expect(await ownBalance(user.org_id)).toBe(PACK_CREDITS);
  });

  it('pending → failed on async_payment_failed, and on expired', async () => {
    const first = await started('asyncfail');
    stripe.markCompletedUnpaid(first.session_id);
    await deliver('checkout.session.async_payment_failed', first.session_id);
    await waitFor(first.user, first.intent_id, (p) => p.status === 'failed', 'failure');
    const second = await started('expiry');
    stripe.sessions.get(second.session_id)!.status = 'expired';
    await deliver('checkout.session.expired', second.session_id);
    await waitFor(second.user, second.intent_id, (p) => p.status === 'failed', 'failure');
    expect(await purchaseGrants(first.user.org_id)).toBe(0);
    expect(await purchaseGrants(second.user.org_id)).toBe(0);
  });

  it('pending stays pending on a completed event of an unpaid asynchronous payment, then completes when the money arrives', async () => {
    const { user, intent_id, session_id } = await started('async');
    stripe.markCompletedUnpaid(session_id);
    await deliver('checkout.session.completed', session_id);
    await eventually(async () => (await events(intent_id)).some((e) => e.outcome === 'pending'), 30_000, 'the unpaid completion');
    expect((await purchase(user, intent_id)).body.status).toBe('pending');
    expect(await purchaseGrants(user.org_id)).toBe(0);
    stripe.markPaid(session_id);
    await deliver('checkout.session.async_payment_succeeded', session_id);
    await waitFor(user, intent_id, (p) => p.status === 'completed', 'completion');
    expect(await purchaseGrants(user.org_id)).toBe(1);
  });

  it('failed or refunded + late completion: unchanged, no grant, flagged for an operator', async () => {
    const failed = await started('latefail');
    stripe.sessions.get(failed.session_id)!.status = 'expired';
    await deliver('checkout.session.expired', failed.session_id);
    await waitFor(failed.user, failed.intent_id, (p) => p.status === 'failed', 'failure');
    stripe.markPaid(failed.session_id);
    await deliver('checkout.session.completed', failed.session_id);
    await eventually(async () => (await events(failed.intent_id)).some((e) => e.outcome === 'flagged'), 30_000, 'the late completion');
    expect((await purchase(failed.user, failed.intent_id)).body.status).toBe('failed');
    expect(await purchaseGrants(failed.user.org_id)).toBe(0);

    const refunded = await started('laterefund');
    stripe.markPaid(refunded.session_id);
    await deliver('checkout.session.completed', refunded.session_id);
    await waitFor(refunded.user, refunded.intent_id, (p) => p.status === 'completed', 'completion');
    await runOperator(service.db, { command: 'purchase refunded', flags: { intent: refunded.intent_id, reason: 'customer asked' } });
    expect((await purchase(refunded.user, refunded.intent_id)).body.status).toBe('refunded');
    await deliver('checkout.session.async_payment_succeeded', refunded.session_id);
    await eventually(async () => (await events(refunded.intent_id)).some((e) => e.outcome === 'flagged'), 30_000, 'the late completion');
    expect((await purchase(refunded.user, refunded.intent_id)).body.status).toBe('refunded');
    expect(await purchaseGrants(refunded.user.org_id)).toBe(1);

    const flagged = (await runOperator(service.db, { command: 'purchase flagged', flags: {} })) as { intents: Array<{ intent_id: string; status: string }> };
    expect(flagged.intents).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ intent_id: failed.intent_id, status: 'failed' }),
        expect.objectContaining({ intent_id: refunded.intent_id, status: 'refunded' }),
      ]),
    );
  });

  it('a mismatched amount or currency grants nothing and is recorded as CONFLICT', async () => {
    for (const tamper of [{ amount_total: 1 }, { currency: 'eur' }]) {
      const { user, intent_id, session_id } = await started('mismatch');
      stripe.markPaid(session_id);
      Object.assign(stripe.sessions.get(session_id)!, tamper);
      await deliver('checkout.session.completed', session_id);
      await eventually(async () => (await events(intent_id)).some((e) => e.outcome === 'conflict'), 30_000, 'the mismatch');
      const seen = (await purchase(user, intent_id)).body;
      expect(seen.status).toBe('pending');
      expect(seen.conflict).toBe('amount_total' in tamper ? 'amount' : 'currency');
      expect(await purchaseGrants(user.org_id)).toBe(0);
    }
  });

  it('a forged signature, a stale timestamp, another environment and a body over 1 MiB grant nothing', async () => {
    const { user, intent_id, session_id } = await started('forged');
    stripe.markPaid(session_id);
    const forged = await deliver('checkout.session.completed', session_id, { secret: 'whsec_forged' });
    expect(forged.status).toBe(422);
    expect(forged.body.code).toBe('VALIDATION_FAILED');
    const stale = await deliver('checkout.session.completed', session_id, { timestamp: Math.floor(Date.now() / 1000) - 301 });
    expect(stale.status).toBe(422);
    const live = await deliver('checkout.session.completed', session_id, { livemode: true });
    expect(live.status).toBe(422);
    const padded = { ...stripe.sessionObject(session_id), padding: 'x'.repeat(1024 * 1024) };
    const { body, signature } = stripe.signedEvent('checkout.session.completed', padded);
    const large = await http(service, 'POST', '/v1/billing/stripe/webhook', {
      raw: body,
      headers: { 'content-type': 'application/json', 'stripe-signature': signature },
    });
    expect(large.status).toBe(413);
    const unsigned = await http(service, 'POST', '/v1/billing/stripe/webhook', {
      raw: stripe.signedEvent('checkout.session.completed', session_id).body,
      headers: { 'content-type': 'application/json' },
    });
    expect(unsigned.status).toBe(422);
    expect(await events(intent_id)).toEqual([]);
    expect((await purchase(user, intent_id)).body.status).toBe('pending');
    expect(await purchaseGrants(user.org_id)).toBe(0);
  });

  it('ignores unrelated events and sessions without an intent with 200', async () => {
    const { session_id } = await started('unrelated');
    const other = await deliver('customer.created', session_id);
    expect(other.status).toBe(200);
    expect(other.body.ignored).toBe('unrelated event');
    const bare = stripe.signedEvent('checkout.session.completed', {
      id: 'cs_test_foreign',
      object: 'checkout.session',
      metadata: {},
      client_reference_id: null,
      livemode: false,
    });
    const ignored = await http(service, 'POST', '/v1/billing/stripe/webhook', {
      raw: bare.body,
      headers: { 'content-type': 'application/json', 'stripe-signature': bare.signature },
    });
    expect(ignored.status).toBe(200);
    expect(ignored.body.ignored).toBe('session without an intent');
  });
});

describe('program funding', () => {
  it('a purchase for a draft program of a verified institution funds its pool, which allocation then draws from', async () => {
    const admin = await signedInOwner(service, 'sponsor');
    const institution = (await runOperator(service.db, { command: 'institution create', flags: { name: `Institution ${admin.email}` } })) as {
      institution_id: string;
    };
    await runOperator(service.db, { command: 'sponsor-admin assign', flags: { institution: institution.institution_id, email: admin.email } });
    const program = await service.db.transaction((tx) =>
      createProgram(tx, {
        institution_id: institution.institution_id,
        name: 'Pilot',
        starts_at: new Date().toISOString(),
        ends_at: new Date(Date.now() + 30 * 86_400_000).toISOString(),
        per_recipient_cap: 1000,
        max_recipients: 10,
        eligible_email_domains: [],
        requires_approval: false,
        report_min_cohort: 10,
        created_by: admin.user_id,
      }),
    );
    const body = { pack_key: 'starter', program_id: program.id };
    const unverified = await checkout(admin, body);
    expect(unverified.status).toBe(409);
    expect(unverified.body.code).toBe('APPROVAL_REQUIRED');
    await runOperator(service.db, { command: 'institution verify', flags: { id: institution.institution_id, date: new Date().toISOString() } });
    expect((await checkout(owner, body)).status).toBe(404);
    const token = await apiToken(service, admin, ['read', 'write']);
    expect((await checkout(admin, body, 'prog-token', token)).status).toBe(403);
    const started = await checkout(admin, body, 'prog-1');
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    stripe.markPaid(started.body.session_id);
    await deliver('checkout.session.completed', started.body.session_id);
    const done = await waitFor(admin, started.body.intent_id, (p) => p.status === 'completed', 'the program purchase');
    expect(done).toMatchObject({ program_id: program.id, org_id: null, transaction_id: expect.stringMatching(/^txn_/) });
    expect(await poolBalance(service.db, program.id)).toBe(PACK_CREDITS);
    // spec: Checkout rules — funding approves and allocates nothing; the program stays a draft.
    expect((await findProgram(service.db, program.id))!.status).toBe('draft');
    expect(await ownBalance(admin.org_id)).toBe(0);
    await service.db.transaction((tx) =>
      allocateCredits(tx, { program_id: program.id, org_id: admin.org_id, credits: 100, reason: 'pilot', caused_by: 'test' }),
    );
    expect(await poolBalance(service.db, program.id)).toBe(PACK_CREDITS - 100);
    expect((await purchase(owner, started.body.intent_id)).status).toBe(404);
    await service.db.transaction((tx) => setProgramStatus(tx, program.id, 'closed'));
    expect((await purchase(admin, started.body.intent_id)).body.status).toBe('completed');
    const closed = await checkout(admin, body, 'prog-2');
    expect(closed.status).toBe(409);
    expect(closed.body.code).toBe('CONFLICT');
  });
});

describe('a price that went inactive', () => {
  it('hides only its own pack from the catalog and refuses its checkout with 503 BILLING_NOT_CONFIGURED naming the pack', async () => {
    const price = stripe.addPrice({ unit_amount: 700 });
    await runOperator(service.db, {
      command: 'pack bind',
      flags: { key: 'fading', title: 'Fading pack', price: price.id, credits: '50' },
      config: service.config,
    });
    try {
      const before = await http(service, 'GET', '/v1/billing/packs', { token: owner.session });
      const keys = before.body.data.map((p: { pack_key: string }) => p.pack_key);
      expect(keys).toContain('fading');
      expect(keys.length).toBeGreaterThan(1);
      stripe.prices.get(price.id)!.active = false; // deactivated in the provider's dashboard after it was bound
      const after = await http(service, 'GET', '/v1/billing/packs', { token: owner.session });
      expect(after.status).toBe(200);
      // every other pack is still on sale, as it was
      expect(after.body.data).toEqual(before.body.data.filter((p: { pack_key: string }) => p.pack_key !== 'fading'));
      expect(after.body.data).toContainEqual({ pack_key: 'starter', title: 'Starter pack', credits: PACK_CREDITS, amount: 1500, currency: 'usd' });
      const buyer = await signedInOwner(service, 'fading');
      const refused = await checkout(buyer, { pack_key: 'fading', org_id: buyer.org_id });
      expect(refused.status).toBe(503);
      expect(refused.body).toMatchObject({ code: 'BILLING_NOT_CONFIGURED', details: { pack_key: 'fading', price_id: price.id } });
      expect(refused.body.message).toContain('Pack fading is not on sale');
      expect((await checkout(buyer, { pack_key: 'starter', org_id: buyer.org_id })).status).toBe(201);
    } finally {
      await runOperator(service.db, { command: 'pack retire', flags: { key: 'fading' } });
    }
  });
});
