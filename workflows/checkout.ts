// The checkout-reconciliation workflow, id checkout-<intent id> (spec: Events; States and transitions, Purchase intent).
// Started by POST /v1/billing/checkout and signalled-with-start by the payment webhook. Each signal, and a timer at the
// session's expiry (so a missing webhook is recovered: spec Events rule 6), runs the reconcile activity, which retrieves
// the session and commits event record, intent change and grant in one transaction. It ends once the intent left
// pending; a later event starts a new run that finds the intent settled (unchanged, or flagged for an operator).
import { condition, proxyActivities, setHandler } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import type { JobInputs } from '../domain/jobs.ts';
import { ACTIVITY_PROFILES } from './activityOptions.ts';
import { type CheckoutSignal, checkoutEventSignal } from './messages.ts';

const { checkoutTiming, reconcileCheckout } = proxyActivities<Activities>(ACTIVITY_PROFILES.payment);

/** After the session's expiry the provider may take a while to report it; the workflow looks again this much later. */
export const AFTER_EXPIRY_RECHECK_MS = 10 * 60_000;
/** Checks after the expiry before a run leaves a still-pending intent to the next webhook. */
export const TIMER_CHECKS_MAX = 3;

export async function checkoutWorkflow(input: JobInputs['checkout']): Promise<{ status: string }> {
  const queue: CheckoutSignal[] = [];
  setHandler(checkoutEventSignal, (signal) => {
    queue.push(signal);
  });
  const timing = await checkoutTiming({ intent_id: input.intent_id });
  if (!timing) return { status: 'missing' };
  let status = timing.status;
  let timer_at = timing.reconcile_after_ms !== null ? Date.now() + timing.reconcile_after_ms : timing.expires_at_ms;
  let timer_checks = 0;
  for (;;) {
    const signalled = await condition(() => queue.length > 0, Math.max(1, timer_at - Date.now()));
    if (signalled) {
      while (queue.length > 0) {
        const signal = queue.shift()!;
        if (signal.trigger === 'checkout.created') continue;
        const result = await reconcileCheckout({ intent_id: input.intent_id, trigger: signal.trigger, session_id: signal.session_id });
        if (result) status = result.status;
      }
    } else {
      const result = await reconcileCheckout({ intent_id: input.intent_id, trigger: 'timer' });
      if (result) status = result.status;
      const now = Date.now();
      if (now < timing.expires_at_ms) {
        timer_at = timing.reconcile_after_ms !== null ? Math.min(now + timing.reconcile_after_ms, timing.expires_at_ms) : timing.expires_at_ms;
      } else {
        timer_checks += 1;
        if (status === 'pending' && timer_checks >= TIMER_CHECKS_MAX) break;
        timer_at = now + AFTER_EXPIRY_RECHECK_MS;
      }
    }
    if (status !== 'pending' && queue.length === 0) break;
  }
  return { status };
}
