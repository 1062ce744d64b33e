// Admission and pricing of a concept review, one pure rule that the plan's estimate and the review start both call
// (spec: ConceptReview; Credits — "No call implicitly approves processing").
import { ServiceError } from '../errors.ts';
import { hostedCredits } from '../ai/pricing.ts';
import type { EvaluationPlan } from '../contracts/evaluationPlan.ts';
import { decisionFor } from '../plans/planner.ts';
import { reviewCreditsEstimate } from './limits.ts';

export type ReviewAdmission = { credits_reserved: number };

/**
 * A review may start only from a plan that recommends it, with hosted inference approved on that plan or the
 * organization's own key; it reserves the review's upper estimate, which the organization's own key makes 0.
 */
export function admitReview(input: {
  plan_id: string;
  project_id: string;
  plan: EvaluationPlan;
  approvals: { scope: string }[];
  byok_provider: string | null;
  credits_per_1k_tokens: number;
}): ReviewAdmission {
  const decision = decisionFor(input.plan, 'concept_and_evidence_review');
  if (decision.decision !== 'recommended') {
    throw new ServiceError('CONFLICT', `Plan ${input.plan_id} does not recommend a concept review: ${decision.explanation}`, [
      { path: '/plan_id', message: 'the plan skips the review' },
    ]);
  }
  if (input.byok_provider === null && !input.approvals.some((approval) => approval.scope === 'hosted_inference')) {
    throw new ServiceError(
      'APPROVAL_REQUIRED',
      `Plan ${input.plan_id} has no hosted_inference approval. Approve it with POST /v1/projects/${input.project_id}/evaluation-plans/${input.plan_id}/approve {"scope": "hosted_inference"}, or start the review with your own key ("byok_provider"). Nothing was charged.`,
      [{ path: '/byok_provider', message: 'approve hosted_inference on the plan or give byok_provider' }],
    );
  }
  return { credits_reserved: hostedCredits(input.byok_provider !== null, reviewCreditsEstimate(input.credits_per_1k_tokens)) };
}
