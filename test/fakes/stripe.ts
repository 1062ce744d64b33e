// A local STATEFUL fake of the Stripe API, driven by the real `stripe` SDK through its host/port/protocol options
// (the public mock server is stateless and always reports sessions unpaid). It speaks the wire protocol: form-encoded
// requests, JSON objects with `object` fields, the Idempotency-Key header, `expand[]=line_items`, and Stripe's error
// envelope. Test helpers change a session the way a customer's payment would, and sign webhook bodies with the SDK.
import { randomBytes } from 'node:crypto';
import Stripe from 'stripe';
import { startFakeServer, type FakeReply, type FakeServer, type RecordedRequest } from './http.ts';

export type FakePrice = {
  id: string;
  object: 'price';
  active: boolean;
  type: 'one_time' | 'recurring';
  unit_amount: number | null;
  currency: string;
  livemode: boolean;
  billing_scheme: 'per_unit' | 'tiered';
  custom_unit_amount: null | { minimum: number };
  recurring: null | { interval: string };
  product: string;
};

export type FakeSession = {
  id: string;
  object: 'checkout.session';
  mode: string;
  status: 'open' | 'complete' | 'expired';
  payment_status: 'unpaid' | 'paid' | 'no_payment_required';
  amount_total: number;
  currency: string;
  livemode: boolean;
  client_reference_id: string | null;
  metadata: Record<string, string>;
  url: string;
  success_url: string;
  cancel_url: string;
  expires_at: number;
  created: number;
  line_items_data: Array<{ price: string; quantity: number }>;
};

/** Decodes Stripe's form encoding (a[b][0][c]=v) into nested objects and arrays. */
export function decodeForm(text: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [rawKey, value] of new URLSearchParams(text)) {
    const parts = rawKey.split(/\[|\]\[|\]/).filter((p, i) => p !== '' || i === 0);
    let node: Record<string, unknown> = out;
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i] === '' ? String(Object.keys(node).length) : parts[i]!;
      if (i === parts.length - 1) node[part] = value;
      else {
        node[part] ??= {};
        node = node[part] as Record<string, unknown>;
      }
    }
  }
  return out;
}

const list = (value: unknown): unknown[] => (value && typeof value === 'object' ? Object.values(value) : []);
const error = (status: number, message: string, type = 'invalid_request_error'): FakeReply => ({ status, body: { error: { type, message } } });

export type StripeFake = FakeServer & {
  prices: Map<string, FakePrice>;
  sessions: Map<string, FakeSession>;
  secret_key: string;
  webhook_secret: string;
  /** Adds a price (a valid active one-time USD test-mode price unless overridden). */
  addPrice(overrides?: Partial<FakePrice>): FakePrice;
  /** The customer paid: the session is complete and paid. */
  markPaid(session_id: string): void;
  /** An asynchronous payment method: the session is complete but the money has not arrived. */
  markCompletedUnpaid(session_id: string): void;
  /** The next n session creations fail like an overloaded provider (500 after doing nothing). */
  failCreates(n: number): void;
  /** Holds session retrievals until the returned release is called. */
  holdRetrievals(): () => void;
  /** The session as the API returns it (with line items expanded). */
  sessionObject(session_id: string): Record<string, unknown>;
  /** A signed webhook body and its Stripe-Signature header. */
  signedEvent(
    type: string,
    session_id: string | Record<string, unknown>,
    options?: { timestamp?: number; secret?: string; livemode?: boolean },
  ): { body: string; signature: string };
};

export async function startStripeFake(): Promise<StripeFake> {
  const prices = new Map<string, FakePrice>();
  const sessions = new Map<string, FakeSession>();
  const idempotent = new Map<string, FakeReply>();
  let failing = 0;
  let hold: Promise<void> | null = null;
  const secret_key = `sk_test_${randomBytes(12).toString('hex')}`;
  const webhook_secret = `whsec_${randomBytes(16).toString('hex')}`;

  const sessionObject = (id: string, expand: boolean): Record<string, unknown> => {
    const s = sessions.get(id)!;
    const { line_items_data, ...rest } = s;
    const out: Record<string, unknown> = { ...rest };
    if (expand) {
      out.line_items = {
        object: 'list',
        has_more: false,
        url: `/v1/checkout/sessions/${id}/line_items`,
        data: line_items_data.map((item, index) => {
          const price = prices.get(item.price)!;
          return {
            id: `li_${index}_${id}`,
            object: 'item',
            quantity: item.quantity,
            price,
            amount_total: (price.unit_amount ?? 0) * item.quantity,
            currency: price.currency,
          };
        }),
      };
    }
    return out;
  };

  const handle = async (request: RecordedRequest): Promise<FakeReply> => {
    if (request.headers.authorization !== `Bearer ${secret_key}`) return error(401, 'Invalid API Key provided.');
    const form = decodeForm(request.method === 'GET' ? request.query.toString() : request.body_text);
    const expand = list(form.expand).includes('line_items');
    let match = /^\/v1\/prices\/([^/]+)$/.exec(request.path);
    if (match && request.method === 'GET') {
      const price = prices.get(match[1]!);
      return price ? { status: 200, body: price } : error(404, `No such price: '${match[1]}'`);
    }
    if (request.path === '/v1/checkout/sessions' && request.method === 'POST') {
      const key = request.headers['idempotency-key'];
      if (key && idempotent.has(key)) return idempotent.get(key)!;
      if (failing > 0) {
        failing -= 1;
        return error(500, 'An unknown error occurred.', 'api_error');
      }
      const items = list(form.line_items) as Array<{ price: string; quantity: string }>;
      if (items.length === 0) return error(400, 'line_items is required');
      let amount = 0;
      let currency = 'usd';
      for (const item of items) {
        const price = prices.get(item.price);
        if (!price) return error(400, `No such price: '${item.price}'`);
        amount += (price.unit_amount ?? 0) * Number(item.quantity);
        currency = price.currency;
      }
      const id = `cs_test_${randomBytes(12).toString('hex')}`;
      const now = Math.floor(Date.now() / 1000);
      sessions.set(id, {
        id,
        object: 'checkout.session',
        mode: String(form.mode),
        status: 'open',
        payment_status: 'unpaid',
        amount_total: amount,
        currency,
        livemode: false,
        client_reference_id: (form.client_reference_id as string) ?? null,
        metadata: (form.metadata as Record<string, string>) ?? {},
        url: `https://checkout.stripe.test/c/pay/${id}`,
        success_url: String(form.success_url),
        cancel_url: String(form.cancel_url),
        expires_at: form.expires_at ? Number(form.expires_at) : now + 86_400,
        created: now,
        line_items_data: items.map((item) => ({ price: item.price, quantity: Number(item.quantity) })),
      });
      const reply = { status: 200, body: sessionObject(id, false) };
      if (key) idempotent.set(key, reply);
      return reply;
    }
    match = /^\/v1\/checkout\/sessions\/([^/]+)$/.exec(request.path);
    if (match && request.method === 'GET') {
      if (hold) await hold;
      return sessions.has(match[1]!) ? { status: 200, body: sessionObject(match[1]!, expand) } : error(404, `No such checkout.session: '${match[1]}'`);
    }
    match = /^\/v1\/checkout\/sessions\/([^/]+)\/expire$/.exec(request.path);
    if (match && request.method === 'POST') {
      const session = sessions.get(match[1]!);
      if (!session) return error(404, `No such checkout.session: '${match[1]}'`);
      if (session.status !== 'open') return error(400, 'Only open sessions can be expired.');
      session.status = 'expired';
      return { status: 200, body: sessionObject(session.id, false) };
    }
    return error(404, `Unrecognized request URL (${request.method}: ${request.path}).`);
  };

  const server = await startFakeServer(handle);
  const signer = new Stripe(secret_key);
  return {
    ...server,
    prices,
    sessions,
    secret_key,
    webhook_secret,
    addPrice(overrides = {}) {
      const price: FakePrice = {
        id: `price_${randomBytes(8).toString('hex')}`,
        object: 'price',
        active: true,
        type: 'one_time',
        unit_amount: 1500,
        currency: 'usd',
        livemode: false,
        billing_scheme: 'per_unit',
        custom_unit_amount: null,
        recurring: null,
        product: 'prod_credits',
        ...overrides,
      };
      prices.set(price.id, price);
      return price;
    },
    markPaid(id) {
      const session = sessions.get(id)!;
      session.status = 'complete';
      session.payment_status = 'paid';
    },
    markCompletedUnpaid(id) {
      const session = sessions.get(id)!;
      session.status = 'complete';
      session.payment_status = 'unpaid';
    },
    failCreates(n) {
      failing = n;
    },
    holdRetrievals() {
      let release!: () => void;
      hold = new Promise<void>((resolve) => {
        release = resolve;
      });
      return () => {
        hold = null;
        release();
      };
    },
    sessionObject: (id) => sessionObject(id, false),
    signedEvent(type, session, options = {}) {
      const object = typeof session === 'string' ? sessionObject(session, false) : session;
      const payload = JSON.stringify({
        id: `evt_${randomBytes(10).toString('hex')}`,
        object: 'event',
        api_version: '2026-09-30.endive',
        created: Math.floor(Date.now() / 1000),
        livemode: options.livemode ?? false,
        type,
        data: { object },
      });
      const signature = signer.webhooks.generateTestHeaderString({
        payload,
        secret: options.secret ?? webhook_secret,
        ...(options.timestamp !== undefined ? { timestamp: options.timestamp } : {}),
      });
      return { body: payload, signature };
    },
  };
}

/** The service environment that enables billing against this fake. */
export function stripeEnv(fake: StripeFake): Record<string, string> {
  return {
    SERVICE_BILLING_ENABLED: 'true',
    STRIPE_SECRET_KEY: fake.secret_key,
    STRIPE_WEBHOOK_SECRET: fake.webhook_secret,
    CRUCIBLE_STRIPE_API_BASE: fake.url,
    CRUCIBLE_BILLING_RETURN_URL: 'http://localhost:5173/billing/done',
  };
}
