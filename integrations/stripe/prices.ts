// The pack's price as the payment provider holds it now (spec: Billing pack — the operator binds an approved provider
// price; every checkout re-reads it). The Stripe call lives here; whether the price is usable is domain/billing/rules.ts.
import type Stripe from 'stripe';
import { checkPrice } from '../../domain/billing/rules.ts';
import { ServiceError } from '../../domain/errors.ts';
import { providerError, type StripeConfig, stripeClient } from './client.ts';

/** BILLING_NOT_CONFIGURED when the price cannot be retrieved or is not usable; PAYMENT_PROVIDER_ERROR on a provider failure. */
export async function currentPrice(
  config: StripeConfig & { stripe_live_mode: boolean },
  pack: { price_id: string },
): Promise<{ amount: number; currency: 'usd' }> {
  let price: Stripe.Price;
  try {
    price = await stripeClient(config).prices.retrieve(pack.price_id);
  } catch (error) {
    if ((error as { type?: string }).type === 'StripeInvalidRequestError') {
      throw new ServiceError('BILLING_NOT_CONFIGURED', `Billing is not configured: price ${pack.price_id} cannot be retrieved.`, {
        reason: 'price_unusable',
        price_id: pack.price_id,
      });
    }
    throw providerError(error);
  }
  return checkPrice(price as never, config.stripe_live_mode);
}
