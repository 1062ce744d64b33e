// Admission and pricing of a world run: one pure rule that both POST /v1/runs/estimate and POST /v1/runs call
// (spec: WorldSpec and run — "the estimate response has runnable, issues, reserved_credits and available_credits").
import type { Static } from 'typebox';
import type { RunIssue as RunIssueBody } from '../contracts/runs.ts';
import type { RunEstimate } from './estimate.ts';

/** A run reserves its estimate plus this headroom (capped by its budget), so ordinary variance does not stop it early. */
export const RUN_RESERVE_HEADROOM_PERCENT = 25;

/** One reason a run may not start, as the estimate shows it. */
export type RunIssue = Static<typeof RunIssueBody>;

/** Credits reserved for a run: the estimate plus headroom, capped by the budget limit. */
export function runReservation(budget_limit_credits: number, credits_estimate: number): number {
  return Math.min(budget_limit_credits, Math.ceil((credits_estimate * (100 + RUN_RESERVE_HEADROOM_PERCENT)) / 100));
}

/**
 * Whether a run of this estimate may start under this budget, what it reserves, and every reason it may not.
 * `available_credits` is null when the balance is checked later, inside the creating transaction.
 */
export function admitRun(
  estimate: RunEstimate,
  budget_limit_credits: number,
  available_credits: number | null,
): { runnable: boolean; issues: RunIssue[]; credits_reserved: number } {
  const credits_reserved = runReservation(budget_limit_credits, estimate.credits_estimate);
  const issues: RunIssue[] = estimate.issues.map((issue) => ({ kind: 'world_limit', pointer: issue.pointer, message: issue.message }));
  if (budget_limit_credits < estimate.credits_estimate) {
    issues.push({
      kind: 'budget',
      pointer: '/budget_limit_credits',
      message: `budget_limit_credits ${budget_limit_credits} is below the estimate of ${estimate.credits_estimate} credits; raise it to at least ${estimate.credits_estimate} or reduce replications or horizon`,
    });
  }
  if (available_credits !== null && available_credits < credits_reserved) {
    issues.push({
      kind: 'balance',
      pointer: '/budget_limit_credits',
      message: `the organization has ${available_credits} credits available and this run reserves ${credits_reserved}; add credits or lower the budget`,
    });
  }
  return { runnable: issues.length === 0, issues, credits_reserved };
}
