// Billing rules as pure functions (spec: Billing pack and purchase intent; Checkout rules; Events rule 3).
import { jobWorkflowId } from '../jobs.ts';
import { ServiceError } from '../errors.ts';

/** spec: Limits — checkout link lifetime one hour. */
export const CHECKOUT_LIFETIME_SECONDS = 3600;
/** spec: Limits — new purchase intents per owner per rolling hour (unchanged retries do not count). */
export const NEW_INTENTS_PER_HOUR_MAX = 10;
export const PACK_KEY_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;
export const PACK_TITLE_LENGTH_MAX = 200;

export const INTENT_STATUSES = ['pending', 'completed', 'failed', 'refunded'] as const;
export type IntentStatus = (typeof INTENT_STATUSES)[number];

/** The event kinds the service acts on (spec: Events); every other kind is ignored. */
export const CHECKOUT_EVENT_TYPES = [
  'checkout.session.completed',
  'checkout.session.async_payment_succeeded',
  'checkout.session.async_payment_failed',
  'checkout.session.expired',
] as const;
export type CheckoutEventType = (typeof CHECKOUT_EVENT_TYPES)[number];
export type ReconcileTrigger = CheckoutEventType | 'checkout.created' | 'timer';

export function isCheckoutEventType(type: string): type is CheckoutEventType {
  return (CHECKOUT_EVENT_TYPES as readonly string[]).includes(type);
}

export function checkoutWorkflowId(intent_id: string): string {
  return jobWorkflowId('checkout', intent_id);
}

/** The provider idempotency key of an intent's one session (spec: Checkout rules — derives from the saved intent). */
export function sessionIdempotencyKey(intent_id: string): string {
  return `crucible-checkout-${intent_id}`;
}

/** The ledger transfer of an intent's one grant: a second attempt finds the first (spec: Rules — never a second grant). */
export function grantTransferKey(intent_id: string): string {
  return `purchase:${intent_id}`;
}

export type PriceFacts = {
  id: string;
  active: boolean;
  type: string;
  unit_amount: number | null;
  currency: string;
  livemode: boolean;
  billing_scheme?: string | null;
  custom_unit_amount?: unknown;
};

/** BILLING_NOT_CONFIGURED unless the price is active, fixed, one-time, USD and in the deployment's mode. */
export function checkPrice(price: PriceFacts, live_mode: boolean): { amount: number; currency: 'usd' } {
  const problem = !price.active
    ? 'is not active'
    : price.type !== 'one_time'
      ? 'is not a one-time price'
      : price.unit_amount === null || price.custom_unit_amount || (price.billing_scheme && price.billing_scheme !== 'per_unit')
        ? 'is not a fixed amount'
        : price.currency.toLowerCase() !== 'usd'
          ? `is in ${price.currency.toUpperCase()}, not USD`
          : price.livemode !== live_mode
            ? `is a ${price.livemode ? 'live' : 'test'}-mode price but the deployment runs in ${live_mode ? 'live' : 'test'} mode`
            : null;
  if (problem) {
    throw new ServiceError('BILLING_NOT_CONFIGURED', `Billing is not configured: price ${price.id} ${problem}.`, {
      reason: 'price_unusable',
      price_id: price.id,
    });
  }
  return { amount: price.unit_amount!, currency: 'usd' };
}

/** Live mode needs an HTTPS return URL (spec: Errors, BILLING_NOT_CONFIGURED). */
export function checkReturnUrl(return_url: string | null, live_mode: boolean): string {
  if (!return_url) {
    throw new ServiceError('BILLING_NOT_CONFIGURED', 'Billing is not configured: CRUCIBLE_BILLING_RETURN_URL is not set.', { reason: 'no_return_url' });
  }
  if (live_mode && !return_url.startsWith('https://')) {
    throw new ServiceError('BILLING_NOT_CONFIGURED', 'Billing is not configured: live mode needs an HTTPS return URL.', { reason: 'return_url_not_https' });
  }
  return return_url;
}

export type SavedIntent = { id: string; price_id: string; amount: number; currency: string; live_mode: boolean };

export type SessionFacts = {
  id: string;
  livemode: boolean;
  metadata: Record<string, string> | null;
  client_reference_id: string | null;
  amount_total: number | null;
  currency: string | null;
  line_items?: { data: Array<{ price: { id: string } | null; quantity: number | null }> } | null;
};

/**
 * spec: Events rule 3 — environment, intent identity, one unit of the saved price, amount and currency must match.
 * Returns the first mismatch (recorded as CONFLICT), or null.
 */
export function sessionMismatch(session: SessionFacts, intent: SavedIntent): string | null {
  if (session.livemode !== intent.live_mode) return 'environment';
  if (session.metadata?.intent_id !== intent.id || (session.client_reference_id !== null && session.client_reference_id !== intent.id)) return 'intent';
  const items = session.line_items?.data ?? [];
  if (items.length !== 1 || items[0]!.price?.id !== intent.price_id || items[0]!.quantity !== 1) return 'line_items';
  if (session.amount_total !== intent.amount) return 'amount';
  if ((session.currency ?? '').toLowerCase() !== intent.currency) return 'currency';
  return null;
}
