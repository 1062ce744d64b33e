// The planner: decisions with explanations, approvals, estimates and Business questions; never a score.
import { describe, expect, it } from 'vitest';
import { Value } from 'typebox/value';
import { EvaluationPlan } from '../../domain/contracts/evaluationPlan.ts';
import { decisionFor, planEvaluations } from '../../domain/plans/planner.ts';
import { reviewCreditsEstimate } from '../../domain/reviews/limits.ts';
import { ideaStageIntake, prototypeWithPathwayIntake, emptyIntake } from '../support/reviewFixtures.ts';

function keysDeep(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) keysDeep(item, out);
  else if (value !== null && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      out.push(key);
      keysDeep(inner, out);
    }
  }
  return out;
}

describe('planner', () => {
  it('recommends the review and skips simulation for an idea-stage intake, explaining each from intake fields', () => {
    const plan = planEvaluations({ intake: ideaStageIntake(), intake_revision: 1, credits_per_1k_tokens: 1 });
    expect(Value.Check(EvaluationPlan, plan)).toBe(true);
    const review = decisionFor(plan, 'concept_and_evidence_review');
    const simulation = decisionFor(plan, 'world_simulation');
    expect(review.decision).toBe('recommended');
    expect(review.explanation).toMatch(/idea stage/);
    expect(review.based_on).toContain('/stage/value');
    expect(simulation.decision).toBe('skipped');
    expect(simulation.explanation).toMatch(/nothing is executable yet/);
    expect(simulation.based_on).toContain('/care_pathway/status');
    expect(plan.approvals_needed.map((a) => a.scope)).toEqual(['hosted_inference']);
    expect(review.estimated_credits).toBe(reviewCreditsEstimate(1));
    expect(plan.estimated_cost.total_credits).toBe(reviewCreditsEstimate(1));
    expect(review.cost_basis).toMatch(/per 1,000 tokens/);
  });

  it('recommends simulation for a prototype with a described, executable care pathway', () => {
    const plan = planEvaluations({ intake: prototypeWithPathwayIntake(), intake_revision: 3, credits_per_1k_tokens: 2 });
    expect(Value.Check(EvaluationPlan, plan)).toBe(true);
    const simulation = decisionFor(plan, 'world_simulation');
    expect(simulation.decision).toBe('recommended');
    expect(simulation.explanation).toMatch(/prototype stage/);
    expect(simulation.estimated_credits).toBeNull();
    expect(plan.approvals_needed.map((a) => a.scope)).toEqual(['hosted_inference', 'simulation_budget']);
    expect(plan.intake_revision).toBe(3);
  });

  it('recommends simulation for a prototype whose pathway is described as steps with actors', () => {
    const intake = prototypeWithPathwayIntake();
    intake.care_pathway.status = 'described';
    expect(decisionFor(planEvaluations({ intake, intake_revision: 1, credits_per_1k_tokens: 1 }), 'world_simulation').decision).toBe('recommended');
    intake.care_pathway.steps[0]!.actor = null;
    const skipped = decisionFor(planEvaluations({ intake, intake_revision: 1, credits_per_1k_tokens: 1 }), 'world_simulation');
    expect(skipped.decision).toBe('skipped');
    expect(skipped.explanation).toMatch(/actor/);
  });

  it('skips the review when the intake names nothing to search for', () => {
    const plan = planEvaluations({ intake: emptyIntake(), intake_revision: 1, credits_per_1k_tokens: 1 });
    expect(decisionFor(plan, 'concept_and_evidence_review').decision).toBe('skipped');
    expect(plan.approvals_needed).toEqual([]);
    expect(plan.estimated_cost.total_credits).toBe(0);
  });

  it('states business unknowns explicitly and cites a source only where the intake cites one', () => {
    const plan = planEvaluations({ intake: ideaStageIntake(), intake_revision: 1, credits_per_1k_tokens: 1 });
    const bq = plan.business_questions;
    expect(bq.buyer.status).toBe('unknown');
    expect(bq.buyer.cited_sources).toEqual([]);
    expect(bq.unknowns.map((u) => u.field)).toEqual(expect.arrayContaining(['business.buyer', 'business.budget_owner', 'business.dependencies']));
    expect(bq.value_hypothesis.status).toBe('stated');
    expect(bq.value_hypothesis.cited_sources).toEqual([{ source_id: 'src_idea', line_start: 4, line_end: 4 }]);
    // typed during review, no citation: stated but no source id
    expect(bq.current_alternative.status).toBe('stated');
    expect(bq.current_alternative.cited_sources).toEqual([]);
    expect(bq.suggested_buyer_interview.questions.length).toBeGreaterThan(3);
    expect(plan.business_assessment?.submitted_claims[0]?.provenance).toBe('user_declared');
    expect(plan.business_assessment?.unknowns.length).toBe(bq.unknowns.length);
  });

  it("takes the proposed user from the revision's own field, never from intended users", () => {
    const intake = ideaStageIntake();
    intake.intended_users = [{ text: 'Practice nurses', provenance: 'user_declared', citations: [] }];
    intake.business.proposed_user = null;
    const unknown = planEvaluations({ intake, intake_revision: 1, credits_per_1k_tokens: 1 }).business_questions;
    expect(unknown.proposed_user).toMatchObject({ field: 'business.proposed_user', status: 'unknown', stated: null });
    intake.business.proposed_user = { text: 'The duty nurse', provenance: 'user_declared', citations: [] };
    const stated = planEvaluations({ intake, intake_revision: 1, credits_per_1k_tokens: 1 }).business_questions;
    expect(stated.proposed_user).toMatchObject({ field: 'business.proposed_user', status: 'stated', stated: 'The duty nurse' });
  });

  it('does not list as unknown a field the revision states, whatever its unknowns say', () => {
    const intake = ideaStageIntake();
    intake.business.buyer = { text: 'The integrated care board', provenance: 'user_declared', citations: [] };
    intake.unknowns = [
      { field: 'business.buyer', question: 'Who would buy it?' },
      { field: '/business/budget_owner', question: 'Whose budget?' },
    ];
    const questions = planEvaluations({ intake, intake_revision: 1, credits_per_1k_tokens: 1 }).business_questions;
    expect(questions.buyer.status).toBe('stated');
    const fields = questions.unknowns.map((u) => u.field);
    expect(fields).not.toContain('business.buyer');
    expect(fields.filter((field) => field === 'business.budget_owner')).toHaveLength(1);
  });

  it('is deterministic', () => {
    const a = planEvaluations({ intake: prototypeWithPathwayIntake(), intake_revision: 1, credits_per_1k_tokens: 1 });
    const b = planEvaluations({ intake: prototypeWithPathwayIntake(), intake_revision: 1, credits_per_1k_tokens: 1 });
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
  });

  it('has no viability score: no field named like score, rating or viability in the plan or its schema', () => {
    const plan = planEvaluations({ intake: prototypeWithPathwayIntake(), intake_revision: 1, credits_per_1k_tokens: 1 });
    const names = [...keysDeep(plan), ...keysDeep(JSON.parse(JSON.stringify(EvaluationPlan)))];
    expect(names.length).toBeGreaterThan(50);
    expect(names.filter((name) => /score|viab|rating/i.test(name))).toEqual([]);
  });

  it('costs 0 credits when hosted inference is free', () => {
    const plan = planEvaluations({ intake: ideaStageIntake(), intake_revision: 1, credits_per_1k_tokens: 0 });
    expect(plan.estimated_cost.total_credits).toBe(0);
  });
});
