// Evaluation plan bodies (spec: What the service does 2; EvaluationPlan; endpoints evaluation-plans and approve).
import { Type } from 'typebox';
import { Id, Timestamp } from './common.ts';
import { APPROVAL_SCOPES, EvaluationPlan, type EvaluationPlan as EvaluationPlanDocument } from './evaluationPlan.ts';

/** An approval scope as sent; the plan's own list decides which are accepted. */
export const APPROVAL_SCOPE_LENGTH_MAX = 64;

export const CreatePlanBody = Type.Object(
  {
    intake_revision: Type.Optional(Type.Integer({ minimum: 1, description: 'plan from this confirmed revision; default: the latest' })),
  },
  { additionalProperties: false },
);

export const ApprovePlanBody = Type.Object(
  {
    scope: Type.String({
      minLength: 1,
      maxLength: APPROVAL_SCOPE_LENGTH_MAX,
      description: `one of the scopes the plan lists in approvals_needed (${APPROVAL_SCOPES.join(', ')})`,
    }),
  },
  { additionalProperties: false },
);

// The contract carries $id 'EvaluationPlan'; inline copies in the OpenAPI document go without it (one $id per document).
const { $id: _plan_id, ...EvaluationPlanInline } = JSON.parse(JSON.stringify(EvaluationPlan)) as Record<string, unknown>;
const EvaluationPlanDoc = Type.Unsafe<EvaluationPlanDocument>(EvaluationPlanInline);

export const PlanApproval = Type.Object({ scope: Type.String(), approved_by: Type.String(), approved_at: Timestamp });

export const Plan = Type.Object({
  id: Id('plan'),
  project_id: Id('proj'),
  org_id: Id('org'),
  intake_revision: Type.Integer({ minimum: 1 }),
  created_by: Type.String(),
  created_at: Timestamp,
  approvals: Type.Array(PlanApproval),
  plan: EvaluationPlanDoc,
});
