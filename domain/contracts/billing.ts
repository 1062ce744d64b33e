// Billing bodies (spec: Billing endpoints and Checkout rules; Authentication, Purchases and Payment webhook): the pack
// catalog, the checkout request and its session, a purchase as polled and the webhook's acknowledgement.
import { Type } from 'typebox';
import { INTENT_STATUSES } from '../billing/rules.ts';
import { Credits, Id, LiteralUnion, Timestamp } from './common.ts';

/** A pack key, organization id or program id as a checkout names it. */
export const PACK_KEY_LENGTH_MAX = 64;
export const CHECKOUT_OWNER_ID_LENGTH_MAX = 64;
/** spec: Events rule 2 — the webhook body is limited to 1 MiB after reading. */
export const WEBHOOK_BODY_BYTES_MAX = 1024 * 1024;

export const BillingPack = Type.Object({
  pack_key: Type.String(),
  title: Type.String(),
  credits: Credits,
  amount: Type.Integer({ minimum: 0, description: 'the provider price in cents' }),
  currency: Type.Literal('usd'),
});
export const BillingPacks = Type.Object({ live_mode: Type.Boolean(), data: Type.Array(BillingPack) });

export const CheckoutBody = Type.Object(
  {
    pack_key: Type.String({ minLength: 1, maxLength: PACK_KEY_LENGTH_MAX }),
    org_id: Type.Optional(Type.String({ minLength: 1, maxLength: CHECKOUT_OWNER_ID_LENGTH_MAX })),
    program_id: Type.Optional(Type.String({ minLength: 1, maxLength: CHECKOUT_OWNER_ID_LENGTH_MAX })),
  },
  { additionalProperties: false },
);
export const CheckoutSession = Type.Object({
  intent_id: Id('pi'),
  session_id: Type.String(),
  url: Type.String(),
  expires_at: Timestamp,
  status: Type.String(),
});

export const Purchase = Type.Object({
  intent_id: Id('pi'),
  org_id: Type.Union([Id('org'), Type.Null()]),
  program_id: Type.Union([Id('prog'), Type.Null()]),
  pack_key: Type.String(),
  credits: Credits,
  amount: Type.Integer(),
  currency: Type.String(),
  live_mode: Type.Boolean(),
  status: LiteralUnion(INTENT_STATUSES),
  transaction_id: Type.Union([Type.String(), Type.Null()]),
  conflict: Type.Union([Type.String(), Type.Null()]),
  session_id: Type.Union([Type.String(), Type.Null()]),
  expires_at: Timestamp,
  created_at: Timestamp,
});

export const WebhookAck = Type.Object({ received: Type.Boolean(), ignored: Type.Optional(Type.String()) });
/** The webhook's body as documented: the provider's signed event, read raw (the signature covers the exact bytes). */
export const WebhookEvent = Type.Object({}, { description: 'a provider-signed event snapshot' });
