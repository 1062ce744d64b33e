import type { Context } from 'koa';
import type { Static } from 'typebox';
import { CHECKOUT_LIFETIME_SECONDS, checkReturnUrl } from '../../../domain/billing/rules.ts';
import { CheckoutBody, CheckoutSession } from '../../../domain/contracts/billing.ts';
import { ServiceError } from '../../../domain/errors.ts';
import { hasPrefix } from '../../../domain/ids.ts';
import { createCheckoutSession } from '../../../integrations/stripe/checkout.ts';
import { createIntent, findIntent, findPack, type IntentRow, saveSession } from '../../../store/billing/billing.ts';
import { findInstitution, findProgram, isSponsorAdmin } from '../../../store/sponsors/sponsors.ts';
import { authorizeOrg } from '../../auth.ts';
import type { AppDeps } from '../../context.ts';
import { idempotent } from '../../idempotency.ts';
import { route, type RouteDef } from '../../registry.ts';
import { startCheckoutWorkflow } from './job.ts';
import { packPrice } from './packs.ts';

type Owner = { owner_id: string; org_id: string | null; program_id: string | null };

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
    throw new ServiceError('CONFLICT', `Program ${program_id} is ${program.status === 'closed' ? 'closed' : 'past its end date'}; it cannot be funded.`, {
      reason: 'program_closed',
    });
  }
}

/** Who pays: exactly one of the organization (its owner or admin) and the program (its institution's administrator). */
async function checkoutOwner(deps: AppDeps, ctx: Context, body: Static<typeof CheckoutBody>, user_id: string): Promise<Owner> {
  if ((body.org_id === undefined) === (body.program_id === undefined)) {
    throw new ServiceError('VALIDATION_FAILED', 'Name exactly one owner: org_id or program_id.', [
      { path: '/', message: 'needs exactly one of org_id, program_id' },
    ]);
  }
  if (body.program_id !== undefined) {
    await authorizeProgramFunding(deps, user_id, body.program_id);
    return { owner_id: body.program_id, org_id: null, program_id: body.program_id };
  }
  await authorizeOrg(deps, ctx, body.org_id!);
  return { owner_id: body.org_id!, org_id: body.org_id!, program_id: null };
}

/** The intent's checkout session, made once (spec: Rules — an expired checkout intent cannot create a replacement). */
async function withSession(deps: AppDeps, intent: IntentRow): Promise<IntentRow> {
  if (intent.session_id) return intent;
  if (Date.parse(intent.expires_at) <= Date.now()) {
    throw new ServiceError(
      'CONFLICT',
      `Purchase intent ${intent.id} expired before a checkout session was made; start a new checkout with a new Idempotency-Key.`,
      {
        reason: 'checkout_expired',
      },
    );
  }
  const session = await createCheckoutSession(deps.config, intent);
  return deps.db.transaction((tx) => saveSession(tx, intent.id, session));
}

export function startCheckoutRoute(deps: AppDeps): RouteDef {
  const { db, config } = deps;
  return route({
    method: 'post',
    path: '/v1/billing/checkout',
    operation_id: 'startCheckout',
    starts_job: 'the checkout',
    summary: 'Start buying a credit pack for an organization or a sponsor program: saves the intent, returns the checkout link',
    tag: 'billing',
    no_store: true,
    feature: 'billing',
    auth: 'session',
    scope: 'write',
    role: 'admin',
    audience: "signed-in owner or admin of the organization, or an assigned administrator of the program's verified institution (API tokens cannot pay)",
    idempotency: 'required',
    idempotency_namespace: 'billing',
    body: CheckoutBody,
    responses: { 201: { description: 'the intent and its checkout session', schema: CheckoutSession } },
    handler: async (ctx, { body, auth }) => {
      const owner = await checkoutOwner(deps, ctx, body, auth.user_id);
      const pack = await findPack(db, body.pack_key);
      if (!pack)
        throw new ServiceError('VALIDATION_FAILED', `No pack ${body.pack_key} is on sale; GET /v1/billing/packs lists them.`, [
          { path: '/pack_key', message: 'is not a pack on sale' },
        ]);
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
      const intent = await withSession(deps, (await findIntent(db, (saved.body as { intent_id: string }).intent_id))!);
      await startCheckoutWorkflow(deps, intent.id, intent.org_id ?? intent.owner_id, 'checkout.created', intent.session_id!);
      ctx.status = 201;
      ctx.body = { intent_id: intent.id, session_id: intent.session_id, url: intent.checkout_url, expires_at: intent.expires_at, status: intent.status };
      if (saved.replayed) ctx.set('Idempotent-Replayed', 'true');
    },
  });
}
