// The packs on sale at their provider prices (spec: Billing pack — the operator binds an approved provider price; every
// checkout re-reads it). The price read is integrations/stripe/prices.ts; this names the pack an unusable price hides.
import type { Static } from 'typebox';
import type { BillingPack } from '../../../domain/contracts/billing.ts';
import { ServiceError } from '../../../domain/errors.ts';
import { currentPrice } from '../../../integrations/stripe/prices.ts';
import { listPacks, type PackRow } from '../../../store/billing/billing.ts';
import type { AppDeps } from '../../context.ts';

/** A bound pack's current price; an unusable price names the pack it belongs to (spec: Errors, BILLING_NOT_CONFIGURED). */
export async function packPrice(config: AppDeps['config'], pack: Pick<PackRow, 'price_id' | 'pack_key'>): Promise<{ amount: number; currency: 'usd' }> {
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
export async function packsOnSale(deps: AppDeps): Promise<Array<Static<typeof BillingPack>>> {
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
