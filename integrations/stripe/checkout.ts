// Checkout sessions at the payment provider (spec: Checkout rules; Events rules 3 and 4): made once per intent under a
// provider idempotency key, and read back with their line items when reconciling. Every Stripe call lives in this
// folder; the rules deciding what a session means are domain/billing/rules.ts.
import { sessionIdempotencyKey } from '../../domain/billing/rules.ts';
import { providerError, type Stripe, type StripeConfig, stripeClient } from './client.ts';

/** What a checkout session is made from: the saved intent. */
export type CheckoutIntent = { id: string; price_id: string; return_url: string; expires_at: string };

/** The return URL with the intent (and, for the cancel link, `canceled=true`) appended to its query. */
function returnUrl(intent: CheckoutIntent, canceled: boolean): string {
  return `${intent.return_url}${intent.return_url.includes('?') ? '&' : '?'}intent_id=${intent.id}${canceled ? '&canceled=true' : ''}`;
}

/** Creates the intent's session (the same one on a retry: the provider key is the intent's); 502 on a provider failure. */
export async function createCheckoutSession(config: StripeConfig, intent: CheckoutIntent): Promise<{ id: string; url: string | null }> {
  try {
    const session = await stripeClient(config).checkout.sessions.create(
      {
        mode: 'payment',
        line_items: [{ price: intent.price_id, quantity: 1 }],
        client_reference_id: intent.id,
        metadata: { intent_id: intent.id },
        success_url: returnUrl(intent, false),
        cancel_url: returnUrl(intent, true),
        expires_at: Math.floor(Date.parse(intent.expires_at) / 1000),
      },
      { idempotencyKey: sessionIdempotencyKey(intent.id) },
    );
    return { id: session.id, url: session.url };
  } catch (error) {
    throw providerError(error);
  }
}

/** The session with its line items; network failures and the provider's 5xx are thrown for the caller to retry. */
export async function retrieveCheckoutSession(config: StripeConfig, session_id: string): Promise<Stripe.Checkout.Session> {
  return stripeClient(config).checkout.sessions.retrieve(session_id, { expand: ['line_items'] });
}
