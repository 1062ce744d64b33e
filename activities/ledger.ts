// Ledger activities for the metered-work saga (issue 3 item 4; ARCHITECTURE.md: How a request flows, step 4).
// Each is idempotent by its transfer id: the store finds the row a first attempt committed, so a retried activity
// (a worker crash after the commit, a lost completion) never posts twice. Failures that a retry cannot fix (a balance
// that cannot cover, a reused transfer id, a bad amount) are non-retryable ApplicationFailures typed with the error code.
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { Subject } from '../domain/credits/rules.ts';
import { isServiceError, ServiceError } from '../domain/errors.ts';
import { release, reserve, settle, type ReservationLeg, type ResolutionView } from '../store/credits/ledger.ts';
import type { ActivityDeps } from './deps.ts';

export type ReserveCreditsInput = { transfer_id: string; org_id: string; subject: Subject; credits: number; reason: string; caused_by: string };
export type ReserveCreditsResult = { reservation_id: string; credits_reserved: number; legs: ReservationLeg[] };
export type SettleCreditsInput = { transfer_id: string; reservation_id: string; credits_used: number };
export type ReleaseCreditsInput = { transfer_id: string; reservation_id: string };

/** A ServiceError becomes a non-retryable failure whose type is its code; anything else (the database away) is retried. */
async function mapped<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (isServiceError(error)) {
      const { code, message, details } = error as ServiceError;
      throw ApplicationFailure.create({ type: code, message, nonRetryable: true, details: [details] });
    }
    throw error;
  }
}

export function ledgerActivities(deps: ActivityDeps) {
  const { db } = deps;
  const settleOnce = (input: SettleCreditsInput) => db.transaction((tx) => settle(tx, input));
  return {
    /** Holds credits_max for a subject; INSUFFICIENT_CREDITS (non-retryable) names available and needed. */
    async reserveCredits(input: ReserveCreditsInput): Promise<ReserveCreditsResult> {
      const view = await mapped(() => db.transaction((tx) => reserve(tx, input)));
      return { reservation_id: view.reservation_id, credits_reserved: view.credits_reserved, legs: view.legs };
    },
    /** Posts credits_used (at most the reservation) and voids the rest. */
    async settleCredits(input: SettleCreditsInput): Promise<ResolutionView> {
      return mapped(() => settleOnce(input));
    },
    /** Voids the reservation: nothing is charged. */
    async releaseCredits(input: ReleaseCreditsInput): Promise<ResolutionView> {
      return mapped(() => db.transaction((tx) => release(tx, input)));
    },

    // --- Used only by the test workflows in workflows/testing.ts (they run on the real worker, so they live here). ---

    /** Test work: "uses" `credits`, or fails the way a provider outage that will not recover does. */
    async creditProbeWork(input: { credits: number; fail?: boolean }): Promise<{ credits_used: number }> {
      if (input.fail) {
        return mapped(() => Promise.reject(new ServiceError('PROVIDER_ERROR', 'The probe work failed on the service side (simulated).')));
      }
      return { credits_used: input.credits };
    },
    /** Test settle that commits, then crashes on its first attempt as a worker dying before reporting completion would. */
    async creditProbeSettleCrashingOnce(input: SettleCreditsInput): Promise<ResolutionView> {
      const result = await mapped(() => settleOnce(input));
      if (Context.current().info.attempt === 1) throw new Error('simulated crash after the settlement committed');
      return result;
    },
  };
}
