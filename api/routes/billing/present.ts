// A purchase intent as the API shows it: the buyer's view of the row, without the provider price id or return URL.
import type { Static } from 'typebox';
import type { Purchase } from '../../../domain/contracts/billing.ts';
import type { IntentRow } from '../../../store/billing/billing.ts';

export function presentPurchase(row: IntentRow): Static<typeof Purchase> {
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
