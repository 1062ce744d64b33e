// A run's estimate as the API shows it: the admission rule's answer beside the estimate it judged. A run itself is
// shown as the store reads it (store/runs/runs.ts `RunView` is `Static<>` of the contract's `Run`).
import type { Static } from 'typebox';
import type { RunEstimateBody } from '../../../domain/contracts/runs.ts';
import type { RevisionEstimate } from './estimates.ts';
import { admitRun } from '../../../domain/simulation/pricing.ts';

export function presentEstimate(estimate: RevisionEstimate, budget_limit_credits: number, available_credits: number): Static<typeof RunEstimateBody> {
  const admission = admitRun(estimate, budget_limit_credits, available_credits);
  return {
    runnable: admission.runnable,
    issues: admission.issues,
    reserved_credits: admission.credits_reserved,
    available_credits,
    budget_limit_credits,
    credits_estimate: estimate.credits_estimate,
    events_estimate: estimate.events_estimate,
    events_per_replication_estimate: estimate.events_per_replication_estimate,
    cost_model: estimate.cost_model,
    warnings: estimate.warnings,
  };
}
