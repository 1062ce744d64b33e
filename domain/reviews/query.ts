// The literature query terms taken from a confirmed intake (spec: What the service does 3: the
// condition, intervention, setting, users). The query itself is built by domain/reviews/literature.ts.
import type { IntakeSpec } from '../contracts/intakeSpec.ts';
import type { LiteratureQueryInput } from './literature.ts';

/** Fewer records than this from a query makes the review try the next, broader query of the ladder. */
export const RECORDS_BEFORE_BROADENING_MIN = 5;

export function reviewQueryInput(intake: IntakeSpec): LiteratureQueryInput {
  return {
    condition: intake.problem?.text ?? null,
    intervention: intake.proposed_solution?.text ?? null,
    setting: intake.care_setting?.text ?? null,
    users: intake.intended_users.map((user) => user.text),
  };
}
