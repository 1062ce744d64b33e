// The planner (spec: What the service does 2; EvaluationPlan): from the latest confirmed IntakeSpec, a decision for each
// evaluation kind with a plain explanation tied to intake fields, the approvals needed, estimated credits and the
// Business questions. Pure and deterministic: the same intake and price give the same plan. No viability score.
import { CONCEPT_AND_EVIDENCE_REVIEW, SYNTHETIC_SIMULATION } from '../authoring/tools.ts';
import {
  type ApprovalNeeded,
  type BusinessAssessment,
  type BusinessQuestion,
  type BusinessQuestions,
  type BusinessUnknown,
  type CitedSource,
  EVALUATION_PLAN_VERSION,
  type EvaluationDecision,
  type EvaluationPlan,
} from '../contracts/evaluationPlan.ts';
import type { Citation, IntakeSpec, Statement } from '../contracts/intakeSpec.ts';
import { invariant, ServiceError } from '../errors.ts';
import { filledUnknowns, unknownField } from '../intake/unknowns.ts';
import { reviewCostBasis, reviewCreditsEstimate } from '../reviews/limits.ts';
import { reviewQueryInput } from '../reviews/query.ts';
import { buildLiteratureQuery } from '../reviews/literature.ts';

export const PLANNER = { name: 'crucible-rules-planner', version: '1.0.0' } as const;
/** A described pathway needs at least this many ordered steps, each with an actor, before a world can be authored from it. */
export const PATHWAY_STEPS_FOR_SIMULATION_MIN = 2;

export type PlannerInput = {
  intake: IntakeSpec;
  intake_revision: number;
  /** Hosted-inference price (deployment configuration); the estimate assumes hosted inference. */
  credits_per_1k_tokens: number;
};

function cited(citations: readonly Citation[]): CitedSource[] {
  const seen = new Set<string>();
  const out: CitedSource[] = [];
  for (const c of citations) {
    const key = `${c.source_id}:${c.line_start}:${c.line_end}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ source_id: c.source_id, line_start: c.line_start, line_end: c.line_end });
  }
  return out.slice(0, 20);
}

function searchable(intake: IntakeSpec): boolean {
  try {
    buildLiteratureQuery(reviewQueryInput(intake));
    return true;
  } catch {
    return false;
  }
}

function reviewDecision(input: PlannerInput): EvaluationDecision {
  const { intake } = input;
  const based_on = ['/problem', '/proposed_solution', '/care_setting', '/intended_users', '/stage/value'];
  const credits = reviewCreditsEstimate(input.credits_per_1k_tokens);
  const cost_basis = reviewCostBasis(input.credits_per_1k_tokens);
  if (!searchable(intake)) {
    return {
      kind: 'concept_and_evidence_review',
      tool: CONCEPT_AND_EVIDENCE_REVIEW,
      decision: 'skipped',
      explanation:
        'The intake names no problem, solution, care setting or users to search the literature for, so a review would have nothing to look up. Add the problem or proposed solution to the intake, confirm it, and plan again.',
      based_on,
      approvals_needed: [],
      estimated_credits: 0,
      cost_basis: 'not run, so no credits',
    };
  }
  const stage = intake.stage.value;
  const why =
    stage === 'idea' || stage === null
      ? `The project is ${stage === 'idea' ? 'at the idea stage' : 'at a stage the intake does not state'}, so the useful next step is to test the concept: the review searches the published literature for the problem and the proposed solution, checks records for retractions and corrections, and drafts questions and next experiments over 13 dimensions.`
      : `The project is at the ${stage} stage; a review of the published evidence on the problem and the proposed solution still helps to test its assumptions, over 13 dimensions with questions and next experiments.`;
  return {
    kind: 'concept_and_evidence_review',
    tool: CONCEPT_AND_EVIDENCE_REVIEW,
    decision: 'recommended',
    explanation: `${why} It uses AI drafting and judging, so it needs your approval to use the service's AI, or your own AI provider key.`,
    based_on,
    approvals_needed: ['hosted_inference'],
    estimated_credits: credits,
    cost_basis,
  };
}

function pathwayIsRunnable(intake: IntakeSpec): { runnable: boolean; why: string } {
  const pathway = intake.care_pathway;
  if (pathway.status === 'executable')
    return { runnable: true, why: 'the care pathway is executable: its steps have actors and quantities a simulation can run' };
  if (pathway.status === 'described') {
    const steps = pathway.steps.filter((step) => step.actor !== null);
    if (steps.length >= PATHWAY_STEPS_FOR_SIMULATION_MIN && steps.length === pathway.steps.length) {
      return {
        runnable: true,
        why: `the care pathway is described as ${pathway.steps.length} ordered steps, each with an actor, which is enough to build a world from it: a simulation model of the pathway (add durations and patient numbers while building it)`,
      };
    }
    return {
      runnable: false,
      why: `the care pathway is described in prose but not as at least ${PATHWAY_STEPS_FOR_SIMULATION_MIN} ordered steps that each name an actor`,
    };
  }
  return { runnable: false, why: 'the intake describes no care pathway' };
}

function simulationDecision(intake: IntakeSpec): EvaluationDecision {
  const based_on = ['/stage/value', '/care_pathway/status', '/care_pathway/steps'];
  const skipped = (explanation: string): EvaluationDecision => ({
    kind: 'world_simulation',
    tool: SYNTHETIC_SIMULATION,
    decision: 'skipped',
    explanation,
    based_on,
    approvals_needed: [],
    estimated_credits: 0,
    cost_basis: 'not run, so no credits',
  });
  const stage = intake.stage.value;
  const pathway = pathwayIsRunnable(intake);
  if (stage === 'idea') {
    return skipped(
      'Simulation is skipped because the project is at the idea stage: nothing is executable yet, so there is no care pathway with the technology in it to run. Revisit when a prototype exists and the pathway is described step by step.',
    );
  }
  if (stage === null) {
    return skipped(
      `Simulation is skipped because the intake does not state the project's stage, and ${pathway.why}. State the stage and describe the pathway step by step, then plan again.`,
    );
  }
  if (!pathway.runnable) {
    return skipped(
      `Simulation is skipped because ${pathway.why}. Describe the steps with who does them, how long they take and how many patients pass through, then plan again.`,
    );
  }
  return {
    kind: 'world_simulation',
    tool: SYNTHETIC_SIMULATION,
    decision: 'recommended',
    explanation: `Simulation is recommended because the project is at the ${stage} stage and ${pathway.why}. A world run compares the pathway with and without the technology under a credit budget you authorize when you start the run.`,
    based_on,
    approvals_needed: ['simulation_budget'],
    estimated_credits: null,
    cost_basis:
      'estimated for each run from the world you build (the more simulated events, the more credits); nothing is spent until you start a run with a budget',
  };
}

// ---------------------------------------------------------------------------------------------
// Business questions

type Single = 'proposed_user' | 'buyer' | 'budget_owner' | 'current_alternative' | 'value_hypothesis';

const QUESTIONS: Record<Single | 'dependencies', { stated: string; unknown: string }> = {
  proposed_user: {
    stated: 'Would this person use it every week, and what would they stop doing to make time for it?',
    unknown: 'Who exactly would use the technology day to day?',
  },
  buyer: {
    stated: 'Has this buyer bought anything similar, and through which procurement route?',
    unknown: 'Which organization or role would buy it?',
  },
  budget_owner: {
    stated: 'Which budget line would pay, and who signs it off?',
    unknown: 'Whose budget would pay for it, and is that the same as the buyer?',
  },
  current_alternative: {
    stated: 'What does the current alternative cost and what do its users dislike about it?',
    unknown: 'What do people do today instead, and what does it cost?',
  },
  value_hypothesis: {
    stated: 'What observation would show this value is real, and who would measure it?',
    unknown: 'What value would it create, for whom, and how would it be measured?',
  },
  dependencies: {
    stated: 'Who controls this dependency, and what happens if it is not available?',
    unknown: 'What must be in place (systems, data, people, approvals) for it to work?',
  },
};

function question(field: Single, statement: Statement | null): BusinessQuestion {
  if (statement === null) return { field: `business.${field}`, status: 'unknown', stated: null, question: QUESTIONS[field].unknown, cited_sources: [] };
  return { field: `business.${field}`, status: 'stated', stated: statement.text, question: QUESTIONS[field].stated, cited_sources: cited(statement.citations) };
}

function businessQuestions(intake: IntakeSpec): BusinessQuestions {
  const b = intake.business;
  const singles = {
    // The plan shows what the confirmed revision holds, field for field: the proposed user is the revision's own field.
    proposed_user: question('proposed_user', b.proposed_user),
    buyer: question('buyer', b.buyer),
    budget_owner: question('budget_owner', b.budget_owner),
    current_alternative: question('current_alternative', b.current_alternative),
    value_hypothesis: question('value_hypothesis', b.value_hypothesis),
  };
  const dependencies: BusinessQuestion[] =
    b.dependencies.length === 0
      ? [{ field: 'business.dependencies', status: 'unknown', stated: null, question: QUESTIONS.dependencies.unknown, cited_sources: [] }]
      : b.dependencies.map((d) => ({
          field: 'business.dependencies',
          status: 'stated',
          stated: d.text,
          question: QUESTIONS.dependencies.stated,
          cited_sources: cited(d.citations),
        }));
  const unknowns: BusinessUnknown[] = [];
  for (const q of [...Object.values(singles), ...dependencies]) if (q.status === 'unknown') unknowns.push({ field: q.field, question: q.question });
  // An unknown the intake lists is repeated only for a field that really has no value (a revision saved before the
  // confirm check may still hold both).
  const stated = new Set(filledUnknowns(intake).map(({ field }) => field));
  for (const u of intake.unknowns) {
    const field = unknownField(u.field);
    if (field.startsWith('business.') && !stated.has(field) && !unknowns.some((known) => known.field === field)) unknowns.push({ field, question: u.question });
  }
  const buyer = singles.buyer.stated ?? singles.budget_owner.stated;
  const interviewQuestions = [
    'Walk me through the last time this problem came up: what happened, who was involved, and what did it cost?',
    singles.current_alternative.stated
      ? `You currently rely on "${clip(singles.current_alternative.stated)}". What works and what does not?`
      : 'What do you do today when this problem comes up?',
    singles.value_hypothesis.stated
      ? `We believe: "${clip(singles.value_hypothesis.stated)}". What would you need to see to believe it?`
      : 'If this problem were solved, what would change for you, and how would you notice?',
    'Who else would have to agree before you could try something like this?',
    'Which budget would a purchase like this come from, and when is that budget set?',
    'What would make you stop using it after a month?',
  ];
  return {
    ...singles,
    dependencies,
    suggested_buyer_interview: {
      interviewee: buyer
        ? `the buyer or budget owner the intake names: ${clip(buyer)}`
        : 'a person who holds the budget for this problem in the intended setting (the intake names no buyer yet)',
      purpose: 'Test the buying assumptions with someone who could pay, without pitching: ask about past behaviour, not opinions of the idea.',
      questions: interviewQuestions,
    },
    unknowns,
  };
}

function clip(text: string, max = 200): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1).trimEnd()}…`;
}

function businessAssessment(intake: IntakeSpec, questions: BusinessQuestions): BusinessAssessment | undefined {
  const submitted_claims = intake.claims.map((claim) => ({
    text: claim.text,
    topic: claim.topic,
    provenance: 'user_declared' as const,
    cited_sources: cited(claim.citations),
    question:
      claim.topic === 'economic'
        ? 'What independent data (costs, prices, budgets) would confirm this claim?'
        : claim.topic === 'clinical'
          ? 'Which study in a comparable population would confirm this claim, and has one been done?'
          : 'How could this claim be checked by someone outside the team?',
  }));
  const hypotheses: BusinessAssessment['hypotheses'] = [];
  const stated = (q: BusinessQuestion) => q.status === 'stated' && q.stated !== null;
  if (stated(questions.value_hypothesis)) {
    hypotheses.push({
      field: 'business.value_hypothesis',
      hypothesis: questions.value_hypothesis.stated!,
      how_to_test: 'Ask three budget holders what they would pay for this outcome today, and what they pay now.',
    });
  }
  if (stated(questions.buyer)) {
    hypotheses.push({
      field: 'business.buyer',
      hypothesis: `The buyer is ${clip(questions.buyer.stated!)}.`,
      how_to_test: 'Find one purchase this buyer made for a comparable tool and who approved it.',
    });
  }
  if (stated(questions.current_alternative)) {
    hypotheses.push({
      field: 'business.current_alternative',
      hypothesis: `People would switch from: ${clip(questions.current_alternative.stated!)}.`,
      how_to_test: 'Observe the current alternative in use and time it.',
    });
  }
  if (submitted_claims.length === 0 && hypotheses.length === 0) return undefined;
  return { submitted_claims, hypotheses, unknowns: questions.unknowns };
}

/** The plan for a confirmed intake. Deterministic; throws INTERNAL on a broken invariant. */
export function planEvaluations(input: PlannerInput): EvaluationPlan {
  invariant(Number.isInteger(input.intake_revision) && input.intake_revision >= 1, 'intake revisions start at 1');
  const review = reviewDecision(input);
  const simulation = simulationDecision(input.intake);
  const approvals_needed: ApprovalNeeded[] = [];
  if (review.decision === 'recommended') {
    approvals_needed.push({
      scope: 'hosted_inference',
      evaluation_kinds: ['concept_and_evidence_review'],
      reason:
        "The review's drafting and judging run on the service's AI (a hosted model, or the built-in method without AI when no model is set up), reading your confirmed intake and the retrieved literature, and are metered in credits. Nothing runs until you approve this.",
      not_needed_when: 'you start the review with your own AI provider key; then it costs no credits',
    });
  }
  if (simulation.decision === 'recommended') {
    approvals_needed.push({
      scope: 'simulation_budget',
      evaluation_kinds: ['world_simulation'],
      reason: 'World runs spend credits. Approving records that you intend to run simulations; each run still needs its own credit budget when you start it.',
      not_needed_when: null,
    });
  }
  const business_questions = businessQuestions(input.intake);
  const business_assessment = businessAssessment(input.intake, business_questions);
  const total = [review, simulation].reduce((sum, e) => sum + (e.decision === 'recommended' ? (e.estimated_credits ?? 0) : 0), 0);
  const notes = [
    'Every statement taken from the intake is declared by the project: it is what the project says about itself, not a verified fact.',
    'This plan does not score viability and does not approve anything: approve each listed scope explicitly.',
  ];
  return {
    version: EVALUATION_PLAN_VERSION,
    intake_revision: input.intake_revision,
    planner: { ...PLANNER },
    evaluations: [review, simulation],
    approvals_needed,
    estimated_cost: {
      total_credits: total,
      basis:
        simulation.decision === 'recommended'
          ? 'the recommended review at its upper estimate; each simulation run is estimated from its world when you set it up and is not included'
          : 'the recommended evaluations at their upper estimates; settled at actual usage',
      credits_per_1k_tokens: input.credits_per_1k_tokens,
    },
    business_questions,
    ...(business_assessment ? { business_assessment } : {}),
    notes,
  };
}

/** The decision for one kind (throws INTERNAL when the plan lacks it: a bug). */
export function decisionFor(plan: EvaluationPlan, kind: EvaluationDecision['kind']): EvaluationDecision {
  const decision = plan.evaluations.find((e) => e.kind === kind);
  invariant(decision !== undefined, `plan has a decision for ${kind}`);
  return decision;
}

/** Scopes a plan can be approved for: those it lists. */
export function approvableScopes(plan: EvaluationPlan): string[] {
  return plan.approvals_needed.map((a) => a.scope);
}

/** A scope may be approved only when the plan lists it (spec: "No call implicitly approves processing"); else 422. */
export function requireApprovableScope(plan_id: string, plan: EvaluationPlan, scope: string): void {
  const listed = approvableScopes(plan);
  if (listed.includes(scope)) return;
  throw new ServiceError(
    'VALIDATION_FAILED',
    listed.length === 0
      ? `Plan ${plan_id} lists no approvals, so "${scope}" cannot be approved.`
      : `"${scope}" is not an approval this plan lists; approve one of: ${listed.join(', ')}.`,
    [{ path: '/scope', message: listed.length === 0 ? 'the plan lists no approvals' : `must be one of ${listed.join(', ')}` }],
  );
}
