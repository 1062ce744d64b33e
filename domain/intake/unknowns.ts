// One intake: a field that has a value is not "not known yet" (spec: IntakeSpec - unknowns are stated explicitly, never
// alongside a value). The confirm route refuses a document holding both; the screens drop an unknown once its field is filled.
import type { IntakeSpec, Unknown } from '../contracts/intakeSpec.ts';
import type { ErrorDetail } from '../errors.ts';

const BUSINESS_FIELDS = ['proposed_user', 'buyer', 'budget_owner', 'current_alternative', 'dependencies', 'value_hypothesis'] as const;

/** Whether each field an unknown may name holds a value, and the field's name in words. */
const FIELDS: Record<string, { name: string; filled: (spec: IntakeSpec) => boolean }> = {
  problem: { name: 'Problem', filled: (s) => s.problem !== null },
  proposed_solution: { name: 'Proposed solution', filled: (s) => s.proposed_solution !== null },
  intended_users: { name: 'Intended users', filled: (s) => s.intended_users.length > 0 },
  care_setting: { name: 'Care setting', filled: (s) => s.care_setting !== null },
  stage: { name: 'Stage', filled: (s) => s.stage.value !== null },
  claims: { name: 'Claims', filled: (s) => s.claims.length > 0 },
  evidence_offered: { name: 'Evidence offered', filled: (s) => s.evidence_offered.length > 0 },
  risks: { name: 'Risks', filled: (s) => s.risks.length > 0 },
  'business.proposed_user': { name: 'Proposed user', filled: (s) => s.business.proposed_user !== null },
  'business.buyer': { name: 'Buyer', filled: (s) => s.business.buyer !== null },
  'business.budget_owner': { name: 'Budget owner', filled: (s) => s.business.budget_owner !== null },
  'business.current_alternative': { name: 'Current alternative', filled: (s) => s.business.current_alternative !== null },
  'business.dependencies': { name: 'Dependencies', filled: (s) => s.business.dependencies.length > 0 },
  'business.value_hypothesis': { name: 'Value hypothesis', filled: (s) => s.business.value_hypothesis !== null },
  care_pathway: { name: 'Care pathway', filled: (s) => s.care_pathway.status !== 'none' },
  'care_pathway.status': { name: 'Care pathway detail', filled: (s) => s.care_pathway.status === 'executable' },
};

/** The field an unknown names, in the dotted form: "/business/buyer", "business.buyer" and "buyer" are one field. */
export function unknownField(field: string): string {
  const dotted = field.trim().replace(/^\//, '').replaceAll('/', '.');
  return (BUSINESS_FIELDS as readonly string[]).includes(dotted) ? `business.${dotted}` : dotted;
}

/** The unknowns that name a field holding a value, with their index in `spec.unknowns`. */
export function filledUnknowns(spec: IntakeSpec): Array<{ index: number; unknown: Unknown; field: string; name: string }> {
  return spec.unknowns.flatMap((unknown, index) => {
    const field = unknownField(unknown.field);
    const known = FIELDS[field];
    return known?.filled(spec) ? [{ index, unknown, field, name: known.name }] : [];
  });
}

/** The document with every unknown whose field now has a value removed (what filling a field does). */
export function withoutFilledUnknowns(spec: IntakeSpec): IntakeSpec {
  const filled = new Set(filledUnknowns(spec).map(({ index }) => index));
  return filled.size === 0 ? spec : { ...spec, unknowns: spec.unknowns.filter((_, index) => !filled.has(index)) };
}

/** One error detail per unknown whose field has a value (paths under `prefix`, e.g. "/spec"); empty when none. */
export function filledUnknownErrors(spec: IntakeSpec, prefix = ''): ErrorDetail[] {
  return filledUnknowns(spec).map(({ index, field, name }) => ({
    path: `${prefix}/unknowns/${index}`,
    message: `${name} has a value, so it is not unknown: remove this entry from unknowns or clear the field`,
    field,
  }));
}
