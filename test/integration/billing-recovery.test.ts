// Billing recovery (spec: Events rule 6 — a missing webhook does not mean failure; Rules — repeated events never
// issue a second grant): the API alone, with workers this test starts and stops on the service's task queue.
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { createLogger } from '../../runtime/logger.ts';
import { runOperator } from '../../runtime/operator.ts';
import { createWorker } from '../../runtime/worker.ts';
import { startStripeFake, stripeEnv, type StripeFake } from '../fakes/stripe.ts';
import { eventually, http, signedInOwner, startTestService, type TestService, type TestUser } from '../support/harness.ts';

let stripe: StripeFake;
let service: TestService;
const PACK_CREDITS = 700;

async function startWorker() {
  const { worker, connection } = await createWorker({
    config: service.config,
    db: service.db,
    logger: createLogger({ level: 'silent' }),
    address: service.service.temporal_address,
    bundle: { codePath: inject('workflow_bundle_path') },
  });
  const running = worker.run();
  return {
    async stop() {
      worker.shutdown();
      await running;
      await connection.close();
    },
  };
}

beforeAll(async () => {
  stripe = await startStripeFake();
  service = await startTestService({
    mode: 'api',
    env: {
      ...stripeEnv(stripe),
      // The workflow's timer fires a second after checkout (and every second until the expiry) instead of at the expiry.
      CRUCIBLE_BILLING_RECONCILE_AFTER_SECONDS: '1',
    },
  });
  const price = stripe.addPrice({ unit_amount: 2500 });
  await runOperator(service.db, {
    command: 'pack bind',
    flags: { key: 'recovery', title: 'Recovery', price: price.id, credits: String(PACK_CREDITS) },
    config: service.config,
  });
});

afterAll(async () => {
  await service?.stop();
  await stripe?.close();
});

async function started(label: string): Promise<{ user: TestUser; intent_id: string; session_id: string }> {
  const user = await signedInOwner(service, label);
  const response = await http(service, 'POST', '/v1/billing/checkout', {
    token: user.session,
    body: { pack_key: 'recovery', org_id: user.org_id },
    headers: { 'idempotency-key': `${label}-1` },
  });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return { user, intent_id: response.body.intent_id, session_id: response.body.session_id };
}

async function intentRow(intent_id: string) {
  return (await service.db.one<{ status: string; transaction_id: string | null }>('select status, transaction_id from purchase_intents where id = ?', [
    intent_id,
  ]))!;
}

async function grants(org_id: string): Promise<number> {
  return (await service.db.one<{ n: number }>(`select count(*)::int as n from credit_transfers where kind = 'purchase' and org_id = ?`, [org_id]))!.n;
}

function deliver(type: string, session_id: string) {
  const { body, signature } = stripe.signedEvent(type, session_id);
  return http(service, 'POST', '/v1/billing/stripe/webhook', { raw: body, headers: { 'content-type': 'application/json', 'stripe-signature': signature } });
}

describe('recovery', () => {
  it("completes a paid session whose webhook never arrives, on the workflow's timer", async () => {
    const worker = await startWorker();
    try {
      const { user, intent_id, session_id } = await started('timer');
      stripe.markPaid(session_id);
      await eventually(async () => (await intentRow(intent_id)).status === 'completed', 30_000, 'the timer to complete the intent');
      const recorded = await service.db.query<{ trigger: string; outcome: string }>('select trigger, outcome from billing_events where intent_id = ?', [
        intent_id,
      ]);
      expect(recorded).toContainEqual({ trigger: 'timer', outcome: 'completed' });
      expect(await grants(user.org_id)).toBe(1);
    } finally {
      await worker.stop();
    }
  });

  it('the worker is killed between the events arriving and the grant: exactly one grant after a new worker starts', async () => {
    const first = await startWorker();
    const { user, intent_id, session_id } = await started('restart');
    // The first worker ran the start of the workflow; now it is gone.
    await eventually(
      async () => {
        const history = await service.service.client.workflow.getHandle(`checkout-${intent_id}`).fetchHistory();
        return (history.events ?? []).some((e) => e.activityTaskCompletedEventAttributes);
      },
      30_000,
      'the first worker to run the workflow',
    );
    await first.stop();
    stripe.markPaid(session_id);
    for (const answer of await Promise.all([
      deliver('checkout.session.completed', session_id),
      deliver('checkout.session.async_payment_succeeded', session_id),
    ])) {
      expect(answer.status).toBe(200);
    }
    expect((await intentRow(intent_id)).status).toBe('pending');
    expect(await grants(user.org_id)).toBe(0);
    const second = await startWorker();
    try {
      await eventually(async () => (await intentRow(intent_id)).status === 'completed', 30_000, 'the new worker to complete the intent');
      expect((await deliver('checkout.session.completed', session_id)).status).toBe(200);
      await eventually(
        async () => (await service.db.query('select 1 from billing_events where intent_id = ? and outcome = ?', [intent_id, 'unchanged'])).length > 0,
        30_000,
        'the redelivery to be reconciled',
      );
      expect(await grants(user.org_id)).toBe(1);
      const balance = await service.db.one<{ n: string }>(
        `select (credits_posted - debits_posted)::text as n from credit_accounts where kind = 'org_own' and org_id = ?`,
        [user.org_id],
      );
      expect(Number(balance!.n)).toBe(PACK_CREDITS);
    } finally {
      await second.stop();
    }
  });
});
