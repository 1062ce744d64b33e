// Billing (spec: Billing endpoints and Checkout rules; Authentication, Purchases and Payment webhook; Events).
// A thin API: checkout saves the intent, asks the provider for a session and starts the checkout-reconciliation
// workflow; the webhook only verifies, finds the intent and signals that workflow (workflows/checkout.ts).
import type Stripe from 'stripe';
import { Type } from 'typebox';
import {
  CHECKOUT_LIFETIME_SECONDS,
  checkPrice,
  checkReturnUrl,
  isCheckoutEventType,
  sessionIdempotencyKey,
  type ReconcileTrigger,
} from '../../domain/billing/rules.ts';
import { ServiceError } from '../../domain/errors.ts';
import { hasPrefix } from '../../domain/ids.ts';
import { providerError, stripeClient, verifiedEvent } from '../../integrations/stripe/client.ts';
import { signalWithStartJob } from '../../integrations/temporal/jobs.ts';
import { checkoutEventSignal } from '../../workflows/messages.ts';
import type { Config } from '../../runtime/config.ts';
import { createIntent, findIntent, findPack, listPacks, saveSession, type IntentRow, type PackRow } from '../../store/billing/billing.ts';
import { findInstitution, findProgram, isSponsorAdmin } from '../../store/sponsors/sponsors.ts';
import { authorizeOrg, authorizeOwned } from '../auth.ts';
import type { AppDeps } from '../context.ts';
import { readRawBody } from '../http.ts';
import { idempotent } from '../idempotency.ts';
import { route, type RouteDef } from '../registry.ts';
import { Credits, Id, Timestamp } from '../schemas.ts';

/** spec: Events rule 2 — the webhook body is limited to 1 MiB after reading. */
export const WEBHOOK_BODY_BYTES_MAX = 1024 * 1024;

const PackOut = Type.Object({
  pack_key: Type.String(),
  title: Type.String(),
  credits: Credits,
  amount: Type.Integer({ minimum: 0, description: 'the provider price in cents' }),
  currency: Type.Literal('usd'),
});
const PacksOut = Type.Object({ live_mode: Type.Boolean(), data: Type.Array(PackOut) });
const Checkout = Type.Object(
  {
    pack_key: Type.String({ minLength: 1, maxLength: 64 }),
    org_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    program_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  },
  { additionalProperties: false },
);
const CheckoutOut = Type.Object({
  intent_id: Id('pi'),
  session_id: Type.String(),
  url: Type.String(),
  expires_at: Timestamp,
  status: Type.String(),
});
const PurchaseOut = Type.Object({
  intent_id: Id('pi'),
  org_id: Type.Union([Id('org'), Type.Null()]),
  program_id: Type.Union([Id('prog'), Type.Null()]),
  pack_key: Type.String(),
  credits: Credits,
  amount: Type.Integer(),
  currency: Type.String(),
  live_mode: Type.Boolean(),
  status: Type.Union([Type.Literal('pending'), Type.Literal('completed'), Type.Literal('failed'), Type.Literal('refunded')]),
  transaction_id: Type.Union([Type.String(), Type.Null()]),
  conflict: Type.Union([Type.String(), Type.Null()]),
  session_id: Type.Union([Type.String(), Type.Null()]),
  expires_at: Timestamp,
  created_at: Timestamp,
});
const WebhookOut = Type.Object({ received: Type.Boolean(), ignored: Type.Optional(Type.String()) });

function purchaseView(row: IntentRow) {
  return {
    intent_id: row.id,
    org_id: row.org_id,
    program_id: row.program_id,
    pack_key: row.pack_key,
    credits: row.credits,
    amount: row.amount,
    currency: row.currency,
    live_mode: row.live_mode,
    status: row.status,
    transaction_id: row.transaction_id,
    conflict: row.conflict,
    session_id: row.session_id,
    expires_at: row.expires_at,
    created_at: row.created_at,
  };
}

/** The pack's price as the provider has it now, checked (spec: at bind time and at every checkout). */
export async function currentPrice(config: Config, pack: Pick<PackRow, 'price_id'>): Promise<{ amount: number; currency: 'usd' }> {
  let price: Stripe.Price;
  try {
    price = await stripeClient(config).prices.retrieve(pack.price_id);
  } catch (error) {
    if ((error as { type?: string }).type === 'StripeInvalidRequestError') {
      throw new ServiceError('BILLING_NOT_CONFIGURED', `Billing is not configured: price ${pack.price_id} cannot be retrieved.`, { reason: 'price_unusable', price_id: pack.price_id });
    }
    throw providerError(error);
  }
  return checkPrice(price as never, config.stripe_live_mode);
}

/** A bound pack's current price; an unusable price names the pack it belongs to (spec: Errors, BILLING_NOT_CONFIGURED). */
async function packPrice(config: Config, pack: Pick<PackRow, 'price_id' | 'pack_key'>): Promise<{ amount: number; currency: 'usd' }> {
  try {
    return await currentPrice(config, pack);
  } catch (error) {
    if (!(error instanceof ServiceError) || error.code !== 'BILLING_NOT_CONFIGURED') throw error;
    throw new ServiceError(
      'BILLING_NOT_CONFIGURED',
      `Pack ${pack.pack_key} is not on sale: ${error.message.replace(/^Billing is not configured: /, '').replace(/\.$/, '')}; choose another pack (GET /v1/billing/packs) or ask an operator to rebind it.`,
      { ...(error.details as Record<string, unknown>), pack_key: pack.pack_key },
    );
  }
}

/** The catalog: every bound pack whose price is usable now; one inactive price hides only its own pack (said in the log). */
async function packsOnSale(deps: AppDeps): Promise<Array<{ pack_key: string; title: string; credits: number; amount: number; currency: 'usd' }>> {
  const data = [];
  for (const pack of await listPacks(deps.db)) {
    try {
      const price = await packPrice(deps.config, pack);
      data.push({ pack_key: pack.pack_key, title: pack.title, credits: pack.credits, amount: price.amount, currency: price.currency });
    } catch (error) {
      if (!(error instanceof ServiceError) || error.code !== 'BILLING_NOT_CONFIGURED') throw error;
      deps.logger.warn({ pack_key: pack.pack_key, price_id: pack.price_id, reason: error.message }, 'pack hidden from the catalog: its price is unusable');
    }
  }
  return data;
}

/**
 * spec: Authentication, Purchases — program funding needs an assigned institution administrator (else 404, like an
 * inaccessible program), a verified institution (APPROVAL_REQUIRED) and an unclosed, unexpired program (CONFLICT);
 * a draft program may be funded.
 */
async function authorizeProgramFunding(deps: AppDeps, user_id: string, program_id: string): Promise<void> {
  const program = hasPrefix(program_id, 'prog') ? await findProgram(deps.db, program_id) : undefined;
  if (!program || !(await isSponsorAdmin(deps.db, program.institution_id, user_id))) {
    throw new ServiceError('NOT_FOUND', `Program ${program_id} was not found.`);
  }
  const institution = await findInstitution(deps.db, program.institution_id);
  if (!institution?.verified_at) {
    throw new ServiceError('APPROVAL_REQUIRED', 'The institution has no verification record yet; an operator verifies it before its programs can be funded.');
  }
  if (program.status === 'closed' || Date.parse(program.ends_at) <= Date.now()) {
    throw new ServiceError('CONFLICT', `Program ${program_id} is ${program.status === 'closed' ? 'closed' : 'past its end date'}; it cannot be funded.`, { reason: 'program_closed' });
  }
}

async function startCheckoutWorkflow(deps: AppDeps, intent_id: string, org_id: string, trigger: ReconcileTrigger, session_id: string): Promise<void> {
  await signalWithStartJob(deps.temporal, { kind: 'checkout', resource_id: intent_id, org_id, project_id: null }, { intent_id }, checkoutEventSignal, { trigger, session_id });
}

export function billingRoutes(deps: AppDeps): RouteDef[] {
  const { db, config } = deps;
  return [
    route({
      method: 'get',
      path: '/v1/billing/packs',
      operation_id: 'listBillingPacks',
      summary: 'The credit packs on sale, with the provider price amounts',
      tag: 'billing',
      feature: 'billing',
      auth: 'user',
      scope: 'read',
      responses: { 200: { description: 'the catalog', schema: PacksOut } },
      handler: async (ctx) => {
        ctx.body = { live_mode: config.stripe_live_mode, data: await packsOnSale(deps) };
      },
    }),
    route({
      method: 'post',
      path: '/v1/billing/checkout',
      operation_id: 'startCheckout',
      starts_job: 'the checkout',
      summary: 'Start buying a credit pack for an organization or a sponsor program: saves the intent, returns the checkout link',
      tag: 'billing',
      feature: 'billing',
      auth: 'session',
      scope: 'write',
      role: 'admin',
      audience: 'signed-in owner or admin of the organization, or an assigned administrator of the program\'s verified institution (API tokens cannot pay)',
      idempotency: 'required',
      idempotency_namespace: 'billing',
      body: Checkout,
      responses: { 201: { description: 'the intent and its checkout session', schema: CheckoutOut } },
      handler: async (ctx, { body, auth }) => {
        if ((body.org_id === undefined) === (body.program_id === undefined)) {
          throw new ServiceError('VALIDATION_FAILED', 'Name exactly one owner: org_id or program_id.', [{ path: '/', message: 'needs exactly one of org_id, program_id' }]);
        }
        let owner: { owner_id: string; org_id: string | null; program_id: string | null };
        if (body.program_id !== undefined) {
          await authorizeProgramFunding(deps, auth.user_id, body.program_id);
          owner = { owner_id: body.program_id, org_id: null, program_id: body.program_id };
        } else {
          await authorizeOrg(deps, ctx, body.org_id!);
          owner = { owner_id: body.org_id!, org_id: body.org_id!, program_id: null };
        }
        const pack = await findPack(db, body.pack_key);
        if (!pack) throw new ServiceError('VALIDATION_FAILED', `No pack ${body.pack_key} is on sale; GET /v1/billing/packs lists them.`, [{ path: '/pack_key', message: 'is not a pack on sale' }]);
        const return_url = checkReturnUrl(config.billing_return_url, config.stripe_live_mode);
        const price = await packPrice(config, pack);
        // spec: Checkout rules — the intent is saved (committed with the replay record) before the provider call.
        const saved = await idempotent(db, ctx, { owner_id: owner.owner_id, hashed_body: body }, async (tx) => {
          const intent = await createIntent(tx, {
            ...owner,
            pack_key: pack.pack_key,
            price_id: pack.price_id,
            amount: price.amount,
            currency: price.currency,
            credits: pack.credits,
            live_mode: config.stripe_live_mode,
            return_url,
            created_by: auth.user_id,
            lifetime_seconds: CHECKOUT_LIFETIME_SECONDS,
          });
          return { status: 201, body: { intent_id: intent.id } };
        });
        let intent = (await findIntent(db, (saved.body as { intent_id: string }).intent_id))!;
        if (!intent.session_id) {
          // spec: Rules — an expired checkout intent cannot create a replacement session.
          if (Date.parse(intent.expires_at) <= Date.now()) {
            throw new ServiceError('CONFLICT', `Purchase intent ${intent.id} expired before a checkout session was made; start a new checkout with a new Idempotency-Key.`, {
              reason: 'checkout_expired',
            });
          }
          let session: Stripe.Checkout.Session;
          try {
            session = await stripeClient(config).checkout.sessions.create(
              {
                mode: 'payment',
                line_items: [{ price: intent.price_id, quantity: 1 }],
                client_reference_id: intent.id,
                metadata: { intent_id: intent.id },
                success_url: `${intent.return_url}${intent.return_url.includes('?') ? '&' : '?'}intent_id=${intent.id}`,
                cancel_url: `${intent.return_url}${intent.return_url.includes('?') ? '&' : '?'}intent_id=${intent.id}&canceled=true`,
                expires_at: Math.floor(Date.parse(intent.expires_at) / 1000),
              },
              { idempotencyKey: sessionIdempotencyKey(intent.id) },
            );
          } catch (error) {
            throw providerError(error);
          }
          intent = await db.transaction((tx) => saveSession(tx, intent.id, { id: session.id, url: session.url }));
        }
        await startCheckoutWorkflow(deps, intent.id, intent.org_id ?? intent.owner_id, 'checkout.created', intent.session_id!);
        ctx.status = 201;
        ctx.body = { intent_id: intent.id, session_id: intent.session_id, url: intent.checkout_url, expires_at: intent.expires_at, status: intent.status };
        if (saved.replayed) ctx.set('Idempotent-Replayed', 'true');
      },
    }),
    route({
      method: 'get',
      path: '/v1/billing/purchases/{intent_id}',
      operation_id: 'getPurchase',
      summary: 'A purchase: its status and the confirmed ledger transaction',
      tag: 'billing',
      feature: 'billing',
      auth: 'user',
      scope: 'read',
      role: 'admin',
      pollable: true,
      responses: { 200: { description: 'the purchase', schema: PurchaseOut } },
      handler: async (ctx, { params, auth }) => {
        const row = await findIntent(db, params.intent_id);
        const what = `Purchase ${params.intent_id}`;
        if (row?.program_id) {
          // A program's purchase: its institution's administrators, signed in; still readable once the program closed or expired.
          const program = await findProgram(db, row.program_id);
          if (auth.kind !== 'session' || !program || !(await isSponsorAdmin(db, program.institution_id, auth.user_id))) {
            throw new ServiceError('NOT_FOUND', `${what} was not found.`);
          }
          ctx.body = purchaseView(row);
          return;
        }
        const owned = await authorizeOwned(deps, ctx, what, row?.org_id ? (row as IntentRow & { org_id: string }) : undefined);
        ctx.body = purchaseView(owned);
      },
    }),
    route({
      method: 'post',
      path: '/v1/billing/stripe/webhook',
      operation_id: 'stripeWebhook',
      summary: "The payment provider's signed checkout events (not for clients)",
      tag: 'billing',
      feature: 'billing',
      auth: 'webhook',
      body_content: { 'application/json': { schema: Type.Object({}, { description: 'a provider-signed event snapshot' }) } },
      responses: { 200: { description: 'received (acted on, or ignored)', schema: WebhookOut } },
      handler: async (ctx) => {
        // spec: Authentication, Payment webhook — the signature covers the unmodified body, so it is read raw.
        const raw = await readRawBody(ctx, WEBHOOK_BODY_BYTES_MAX, 'WEBHOOK_BODY_BYTES_MAX');
        const event = verifiedEvent(config, raw, ctx.get('stripe-signature'));
        if (!event) {
          throw new ServiceError('VALIDATION_FAILED', 'The event signature is missing, invalid or too old.', [{ path: '/headers/stripe-signature', message: 'is not a valid signature' }]);
        }
        if (event.livemode !== config.stripe_live_mode) {
          throw new ServiceError('VALIDATION_FAILED', `The event is from ${event.livemode ? 'live' : 'test'} mode; this deployment runs in ${config.stripe_live_mode ? 'live' : 'test'} mode.`, [
            { path: '/livemode', message: 'does not match the deployment' },
          ]);
        }
        const ignore = (why: string) => {
          ctx.status = 200;
          ctx.body = { received: true, ignored: why };
        };
        if (!isCheckoutEventType(event.type)) return ignore('unrelated event');
        const session = event.data.object as Stripe.Checkout.Session;
        const intent_id = session.metadata?.intent_id ?? session.client_reference_id ?? '';
        if (!hasPrefix(intent_id, 'pi')) return ignore('session without an intent');
        const intent = await findIntent(db, intent_id);
        if (!intent || (intent.session_id !== null && intent.session_id !== session.id)) return ignore('session without a matching intent');
        await startCheckoutWorkflow(deps, intent.id, intent.org_id ?? intent.owner_id, event.type, session.id);
        ctx.status = 200;
        ctx.body = { received: true };
      },
    }),
  ];
}
