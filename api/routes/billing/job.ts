// The checkout-reconciliation workflow of an intent, signalled with the payment event (or the checkout's creation) and
// started when it is not running yet (workflows/checkout.ts).
import type { ReconcileTrigger } from '../../../domain/billing/rules.ts';
import { signalWithStartJob } from '../../../integrations/temporal/jobs.ts';
import { checkoutEventSignal } from '../../../workflows/messages.ts';
import type { AppDeps } from '../../context.ts';

export async function startCheckoutWorkflow(deps: AppDeps, intent_id: string, org_id: string, trigger: ReconcileTrigger, session_id: string): Promise<void> {
  await signalWithStartJob(deps.temporal, { kind: 'checkout', resource_id: intent_id, org_id, project_id: null }, { intent_id }, checkoutEventSignal, {
    trigger,
    session_id,
  });
}
