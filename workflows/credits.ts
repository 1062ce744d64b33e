// Metered work inside a workflow: the credit saga (ARCHITECTURE.md: How a request flows, step 4).
//
//   reserve(credits_max) → work(meter) → settle(meter.used())            → { status: 'succeeded', value, credits_used }
//   work fails            → release (compensation: nothing is charged)  → { status: 'failed', error, credits_used }
//   workflow cancelled    → settle(meter.used()) in a non-cancellable scope → { status: 'canceled', error, credits_used }
//
// Intake drafting, review, runs and sessions call `meteredWork` around the part that costs credits and call
// `meter.add(credits)` after each step that used some (e.g. an AI call's `credits_charged`). Transfer ids come from
// `transfer_id_base` (derive it from the resource id, e.g. `run_…`), so a replayed or retried workflow writes the same
// ledger rows: `<base>:reserve`, `<base>:settle`, `<base>:release`. Deterministic: imports only the workflow SDK and types.
import { ApplicationFailure, CancellationScope, isCancellation, proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { ledgerActivities, ReserveCreditsResult } from '../activities/ledger.ts';
import type { Subject } from '../domain/credits/rules.ts';
import { CREDITS_BUDGET_EXCEEDED, meteredTransferIds } from '../domain/jobs.ts';
import { ACTIVITY_PROFILES, LOCAL_ACTIVITY_PROFILES } from './activityOptions.ts';

type LedgerActivities = ReturnType<typeof ledgerActivities>;

// Ledger writes are idempotent and must eventually land: retried without an attempt limit, non-retryable types stop.
// As activities of their own, or as local activities where the caller asks (MeteredWorkInput.local_ledger).
const remoteLedger = proxyActivities<LedgerActivities>(ACTIVITY_PROFILES.store);
const localLedger = proxyLocalActivities<LedgerActivities>(LOCAL_ACTIVITY_PROFILES.store);

export type MeteredWorkInput = {
  /** Unique per metered piece of work and stable across replays (e.g. `run_…` or `rev_…:draft`). */
  transfer_id_base: string;
  org_id: string;
  subject: Subject;
  /** The most the work may use; reserved up front (402 INSUFFICIENT_CREDITS when not covered). */
  credits_max: number;
  reason: string;
  caused_by: string;
  /**
   * The reserve, settle and release steps as local activities (workflows/activityOptions.ts: LOCAL_ACTIVITY_PROFILES):
   * each is idempotent by its transfer id, so running twice after a lost workflow task posts once. Default false.
   */
  local_ledger?: boolean;
};

export type Meter = {
  /** null when credits_max is 0 (the organization's own provider key, a free deployment): nothing is reserved. */
  reservation: ReserveCreditsResult | null;
  /** Records credits the work used; more than credits_max in total is a bug (fails with CREDITS_BUDGET_EXCEEDED). */
  add(credits: number): void;
  used(): number;
  remaining(): number;
};

/** The failure type `meter.add` throws when the work would use more than it reserved (domain/jobs.ts). */
export { CREDITS_BUDGET_EXCEEDED };

export { meteredTransferIds };

function meterFor(credits_max: number, reservation: ReserveCreditsResult | null): Meter {
  let credits_used = 0;
  return {
    reservation,
    add(credits: number) {
      if (!Number.isSafeInteger(credits) || credits < 0)
        throw ApplicationFailure.nonRetryable(`meter.add needs a non-negative integer, got ${credits}`, 'INTERNAL');
      if (credits_used + credits > credits_max) {
        // Unreachable when every step passes meter.remaining() as its limit (AI calls do: credits_limit); a bug otherwise.
        throw ApplicationFailure.nonRetryable(
          `This step would cost ${credits_used + credits} credits, more than the ${credits_max} set aside for it; nothing was charged. Try again, and tell support if it happens again.`,
          CREDITS_BUDGET_EXCEEDED,
        );
      }
      credits_used += credits;
    },
    used: () => credits_used,
    remaining: () => credits_max - credits_used,
  };
}

/**
 * How metered work ended, with what the meter used, so the caller records it without keeping a count of its own.
 * succeeded and canceled settle `credits_used`; failed released the reservation, so `credits_settled` is 0.
 */
export type MeteredOutcome<T> =
  | { status: 'succeeded'; value: T; credits_used: number; credits_settled: number }
  | { status: 'canceled'; error: unknown; credits_used: number; credits_settled: number }
  | { status: 'failed'; error: unknown; credits_used: number; credits_settled: 0 };

/**
 * Runs `work` inside the credit saga and reports how it ended; it never throws for the work's failure or cancellation
 * (the caller records the row, then rethrows a cancellation). A settlement that cannot land after success propagates.
 */
export async function meteredWork<T>(input: MeteredWorkInput, work: (meter: Meter) => Promise<T>): Promise<MeteredOutcome<T>> {
  // Work that may cost nothing (BYOK) reserves nothing and writes no ledger rows; its meter still refuses any charge.
  if (input.credits_max === 0) {
    const meter = meterFor(0, null);
    try {
      const value = await work(meter);
      return { status: 'succeeded', value, credits_used: meter.used(), credits_settled: meter.used() };
    } catch (error) {
      if (isCancellation(error)) return { status: 'canceled', error, credits_used: meter.used(), credits_settled: meter.used() };
      return { status: 'failed', error, credits_used: meter.used(), credits_settled: 0 };
    }
  }
  const ids = meteredTransferIds(input.transfer_id_base);
  const { reserveCredits, settleCredits, releaseCredits } = input.local_ledger ? localLedger : remoteLedger;
  // An INSUFFICIENT_CREDITS failure here leaves nothing to compensate.
  // Non-cancellable: a reservation that committed is always known to this workflow, so it is always resolved.
  let reservation: ReserveCreditsResult;
  try {
    reservation = await CancellationScope.nonCancellable(() =>
      reserveCredits({
        transfer_id: ids.reserve,
        org_id: input.org_id,
        subject: input.subject,
        credits: input.credits_max,
        reason: input.reason,
        caused_by: input.caused_by,
      }),
    );
  } catch (error) {
    return { status: 'failed', error, credits_used: 0, credits_settled: 0 };
  }
  const meter = meterFor(input.credits_max, reservation);
  let value: T;
  try {
    value = await work(meter);
  } catch (error) {
    if (isCancellation(error)) {
      // spec: What the service does 6 — a cancelled job pays for what it used, even while the workflow is cancelled.
      await CancellationScope.nonCancellable(() =>
        settleCredits({ transfer_id: ids.settle, reservation_id: reservation.reservation_id, credits_used: meter.used() }),
      );
      return { status: 'canceled', error, credits_used: meter.used(), credits_settled: meter.used() };
    }
    // spec: What the service does 6 — work that fails because of the service is not charged.
    await CancellationScope.nonCancellable(() => releaseCredits({ transfer_id: ids.release, reservation_id: reservation.reservation_id }));
    return { status: 'failed', error, credits_used: meter.used(), credits_settled: 0 };
  }
  // Outside the try: a settlement that fails must never turn into a release of work that succeeded.
  await CancellationScope.nonCancellable(() =>
    settleCredits({ transfer_id: ids.settle, reservation_id: reservation.reservation_id, credits_used: meter.used() }),
  );
  return { status: 'succeeded', value, credits_used: meter.used(), credits_settled: meter.used() };
}

/** How a job records the end of its metered work: one call per way it ended, each one activity. */
export type OutcomeRecorder<T, R> = {
  succeeded: (value: T, credits_settled: number) => Promise<R>;
  canceled: (credits_settled: number) => Promise<unknown>;
  failed: (error: unknown) => Promise<R>;
};

/**
 * The closing step of every job's workflow: records how its metered work ended. Succeeded and canceled are recorded in a
 * non-cancellable scope (the credits are settled: a cancel arriving now must not leave them unrecorded); a cancellation
 * is then rethrown, so the workflow ends canceled; a failure (released, nothing charged) is recorded and returned.
 */
export async function recordOutcome<T, R>(outcome: MeteredOutcome<T>, record: OutcomeRecorder<T, R>): Promise<R> {
  if (outcome.status === 'succeeded') return CancellationScope.nonCancellable(() => record.succeeded(outcome.value, outcome.credits_settled));
  if (outcome.status === 'canceled') {
    await CancellationScope.nonCancellable(() => record.canceled(outcome.credits_settled));
    throw outcome.error;
  }
  return record.failed(outcome.error);
}
