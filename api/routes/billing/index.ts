// Billing (spec: Billing endpoints and Checkout rules; Authentication, Purchases and Payment webhook; Events).
// A thin API: checkout saves the intent, asks the provider for a session and starts the checkout-reconciliation
// workflow; the webhook only verifies, finds the intent and signals that workflow (workflows/checkout.ts).
import type { AppDeps } from '../../context.ts';
import type { RouteDef } from '../../registry.ts';
import { getPurchaseRoute } from './getPurchase.ts';
import { listBillingPacksRoute } from './listBillingPacks.ts';
import { startCheckoutRoute } from './startCheckout.ts';
import { stripeWebhookRoute } from './stripeWebhook.ts';

export function billingRoutes(deps: AppDeps): RouteDef[] {
  return [listBillingPacksRoute(deps), startCheckoutRoute(deps), getPurchaseRoute(deps), stripeWebhookRoute(deps)];
}
