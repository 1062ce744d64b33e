// The payment provider's client (spec: Versioning — the provider API version is pinned). The official SDK, with the
// pinned version set explicitly; tests point it at a local fake through host/port/protocol (CRUCIBLE_STRIPE_API_BASE).
import Stripe from 'stripe';
import { ServiceError } from '../../domain/errors.ts';
/** What the Stripe client reads from the deployment's configuration (passed in: integrations never import runtime/). */
export type StripeConfig = { stripe_secret_key: string | null; stripe_api_base: string | null; stripe_webhook_secret: string | null };

export const STRIPE_API_VERSION = '2026-09-30.endive';
/** A provider call that takes longer than this is an ambiguous failure (502, safe to retry with the same key). */
export const STRIPE_TIMEOUT_MS = 20_000;

export type { Stripe };

const clients = new Map<string, Stripe>();

/** One client per secret key and base; BILLING_NOT_CONFIGURED without a secret key. */
export function stripeClient(config: StripeConfig): Stripe {
  if (!config.stripe_secret_key) {
    throw new ServiceError('BILLING_NOT_CONFIGURED', 'Billing is not configured: STRIPE_SECRET_KEY is not set.', { reason: 'no_secret_key' });
  }
  const cache_key = `${config.stripe_api_base ?? ''}\n${config.stripe_secret_key}`;
  let client = clients.get(cache_key);
  if (!client) {
    const base = config.stripe_api_base ? new URL(config.stripe_api_base) : null;
    client = new Stripe(config.stripe_secret_key, {
      apiVersion: STRIPE_API_VERSION as Stripe.LatestApiVersion,
      maxNetworkRetries: 2,
      timeout: STRIPE_TIMEOUT_MS,
      ...(base
        ? {
            host: base.hostname,
            port: Number(base.port) || (base.protocol === 'https:' ? 443 : 80),
            protocol: base.protocol.replace(':', '') as 'http' | 'https',
          }
        : {}),
    });
    clients.set(cache_key, client);
  }
  return client;
}

/** Verifies a webhook body's signature with the SDK's default timestamp tolerance (300 s); null when invalid. */
export function verifiedEvent(config: StripeConfig, raw: Buffer, signature: string): Stripe.Event | null {
  if (!config.stripe_webhook_secret || !signature) return null;
  try {
    return stripeClient(config).webhooks.constructEvent(raw, signature, config.stripe_webhook_secret);
  } catch {
    return null;
  }
}

/** Errors where the provider may or may not have acted (network, timeouts, its 5xx): retry with the same key. */
export function providerError(error: unknown): ServiceError {
  const type = (error as { type?: string }).type ?? 'unknown';
  return new ServiceError(
    'PAYMENT_PROVIDER_ERROR',
    'The payment provider did not give a clear answer; a charge may or may not exist. Retry with the same Idempotency-Key and body.',
    { provider_error: type },
  );
}
