// Checkout reconciliation (spec: Events rules 3 and 4): retrieve the session with its line items, check it against the
// saved intent, then commit event record, intent change and grant together. Idempotent: a retried activity finds the
// intent already completed (row lock + status) and the grant's transfer key already used, so it never grants twice.
import { ApplicationFailure } from '@temporalio/common';
import { sessionMismatch, type ReconcileTrigger } from '../domain/billing/rules.ts';
import { isServiceError } from '../domain/errors.ts';
import { retrieveCheckoutSession } from '../integrations/stripe/checkout.ts';
import { applyReconciliation, findIntent, type ReconcileResult, type Reconciliation } from '../store/billing/billing.ts';
import type { ActivityDeps } from './deps.ts';

export type ReconcileCheckoutInput = { intent_id: string; trigger: ReconcileTrigger; session_id?: string };
export type CheckoutTiming = { status: string; expires_at_ms: number; reconcile_after_ms: number | null } | null;

export function billingActivities(deps: ActivityDeps) {
  const { db, config } = deps;
  return {
    /** When the workflow's timer should fire: at the session's expiry (or the configured test delay). */
    async checkoutTiming(input: { intent_id: string }): Promise<CheckoutTiming> {
      const row = await findIntent(db, input.intent_id);
      if (!row) return null;
      return {
        status: row.status,
        expires_at_ms: Date.parse(row.expires_at),
        reconcile_after_ms: config.billing_reconcile_after_seconds === null ? null : config.billing_reconcile_after_seconds * 1000,
      };
    },

    async reconcileCheckout(input: ReconcileCheckoutInput): Promise<ReconcileResult | null> {
      const row = await findIntent(db, input.intent_id);
      if (!row) return null;
      const session_id = row.session_id ?? input.session_id;
      if (!session_id) return { intent_id: row.id, status: row.status, outcome: 'no_session', transaction_id: row.transaction_id };
      // Network failures and the provider's 5xx are thrown and retried by Temporal.
      const session = await retrieveCheckoutSession(config, session_id);
      let result: Reconciliation;
      const mismatch = sessionMismatch(session as never, row);
      const paid = session.status === 'complete' && session.payment_status === 'paid';
      if (input.trigger === 'timer' && session.status === 'open')
        return { intent_id: row.id, status: row.status, outcome: 'open', transaction_id: row.transaction_id };
      if (paid && mismatch) result = { kind: 'conflict', mismatch };
      else if (paid) result = { kind: 'paid' };
      else if (session.status === 'expired' || input.trigger === 'checkout.session.async_payment_failed') result = { kind: 'failed' };
      else result = { kind: 'unpaid' };
      try {
        return await db.transaction((tx) => applyReconciliation(tx, { intent_id: row.id, session_id, trigger: input.trigger, result }));
      } catch (error) {
        if (isServiceError(error)) throw ApplicationFailure.create({ type: error.code, message: error.message, nonRetryable: true });
        throw error;
      }
    },
  };
}
