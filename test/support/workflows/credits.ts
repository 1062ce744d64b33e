// Test workflows for the credit saga, used only by test/integration/credits-service.test.ts. They are in the tests'
// workflow bundle (test/support/workflows/index.ts), not the production one, and run on the real Temporal dev server
// against the real ledger. Each drives `meteredWork` (workflows/credits.ts) or the ledger activities as a real job would.
import { condition, defineQuery, proxyActivities, setHandler } from '@temporalio/workflow';
import type { ledgerActivities } from '../../../activities/ledger.ts';
import type { testActivities } from '../activities.ts';
import type { Subject } from '../../../domain/credits/rules.ts';
import { meteredWork } from '../../../workflows/credits.ts';

type LedgerActivities = ReturnType<typeof ledgerActivities> & ReturnType<typeof testActivities>;

// The probe work is not retried: one failure is the service failing for good.
const { creditProbeWork } = proxyActivities<LedgerActivities>({ startToCloseTimeout: '30 seconds', retry: { maximumAttempts: 1 } });
const { reserveCredits, creditProbeSettleCrashingOnce } = proxyActivities<LedgerActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '100 milliseconds', maximumAttempts: 5 },
});

export const creditProbeStateQuery = defineQuery<{ credits_used: number; waiting: boolean }>('creditProbeState');

export type CreditSagaProbeInput = {
  transfer_id_base: string;
  org_id: string;
  subject: Subject;
  credits_max: number;
  /** Credits each successful step of work uses, in order. */
  steps_credits: number[];
  /** After the steps, a step fails with a service error. */
  fail_after_steps?: boolean;
  /** After the steps, wait until the workflow is cancelled. */
  wait_for_cancel?: boolean;
};

/** Test workflow: metered work made of probe steps, then success, a service failure, or a wait for cancellation. */
export async function creditSagaProbeWorkflow(input: CreditSagaProbeInput): Promise<{ credits_used: number }> {
  let waiting = false;
  let credits_used = 0;
  setHandler(creditProbeStateQuery, () => ({ credits_used, waiting }));
  const outcome = await meteredWork(
    {
      transfer_id_base: input.transfer_id_base,
      org_id: input.org_id,
      subject: input.subject,
      credits_max: input.credits_max,
      reason: 'credit saga probe',
      caused_by: 'test',
    },
    async (meter) => {
      for (const credits of input.steps_credits) {
        const step = await creditProbeWork({ credits });
        meter.add(step.credits_used);
        credits_used = meter.used();
      }
      if (input.fail_after_steps) await creditProbeWork({ credits: 0, fail: true });
      if (input.wait_for_cancel) {
        waiting = true;
        await condition(() => false);
      }
      return { credits_used: meter.used() };
    },
  );
  if (outcome.status !== 'succeeded') throw outcome.error;
  return outcome.value;
}

/** Test workflow: reserve, then a settle activity that commits and crashes on its first attempt (Temporal retries it). */
export async function creditSettleRetryProbeWorkflow(input: {
  transfer_id_base: string;
  org_id: string;
  subject: Subject;
  credits: number;
  credits_used: number;
}) {
  const reservation = await reserveCredits({
    transfer_id: `${input.transfer_id_base}:reserve`,
    org_id: input.org_id,
    subject: input.subject,
    credits: input.credits,
    reason: 'settle retry probe',
    caused_by: 'test',
  });
  return creditProbeSettleCrashingOnce({
    transfer_id: `${input.transfer_id_base}:settle`,
    reservation_id: reservation.reservation_id,
    credits_used: input.credits_used,
  });
}
