// Named builders for IntakeSpec documents in tests.
import { INTAKE_SPEC_VERSION, type IntakeSpec } from '../../domain/contracts/intakeSpec.ts';

/** A valid IntakeSpec that says nothing: every fact unknown, no claims, no pathway. Spread it and set what a test needs. */
export function emptyIntakeSpec(): IntakeSpec {
  return {
    version: INTAKE_SPEC_VERSION,
    problem: null,
    proposed_solution: null,
    intended_users: [],
    care_setting: null,
    stage: { value: null, provenance: 'user_declared', citations: [] },
    claims: [],
    evidence_offered: [],
    risks: [],
    unknowns: [],
    business: { proposed_user: null, buyer: null, budget_owner: null, current_alternative: null, dependencies: [], value_hypothesis: null },
    care_pathway: { status: 'none', description: null, steps: [] },
  };
}
