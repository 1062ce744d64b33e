// Ledger activities for the metered-work saga (ARCHITECTURE.md: How a request flows, step 4).
// Each is idempotent by its transfer id: the store finds the row a first attempt committed, so a retried activity
// (a worker crash after the commit, a lost completion) never posts twice. Failures that a retry cannot fix (a balance
// that cannot cover, a reused transfer id, a bad amount) are ServiceErrors: the worker's boundary (activities/index.ts)
// makes them non-retryable failures typed with the error code.
import type { Subject } from '../domain/credits/rules.ts';
import { release, reserve, settle, type ReservationLeg, type ResolutionView } from '../store/credits/ledger.ts';
import type { ActivityDeps } from './deps.ts';

export type ReserveCreditsInput = { transfer_id: string; org_id: string; subject: Subject; credits: number; reason: string; caused_by: string };
export type ReserveCreditsResult = { reservation_id: string; credits_reserved: number; legs: ReservationLeg[] };
export type SettleCreditsInput = { transfer_id: string; reservation_id: string; credits_used: number };
export type ReleaseCreditsInput = { transfer_id: string; reservation_id: string };

export function ledgerActivities(deps: ActivityDeps) {
  const { db } = deps;
  return {
    /** Holds credits_max for a subject; INSUFFICIENT_CREDITS (non-retryable) names available and needed. */
    async reserveCredits(input: ReserveCreditsInput): Promise<ReserveCreditsResult> {
      const view = await db.transaction((tx) => reserve(tx, input));
      return { reservation_id: view.reservation_id, credits_reserved: view.credits_reserved, legs: view.legs };
    },
    /** Posts credits_used (at most the reservation) and voids the rest. */
    async settleCredits(input: SettleCreditsInput): Promise<ResolutionView> {
      return db.transaction((tx) => settle(tx, input));
    },
    /** Voids the reservation: nothing is charged. */
    async releaseCredits(input: ReleaseCreditsInput): Promise<ResolutionView> {
      return db.transaction((tx) => release(tx, input));
    },
  };
}
