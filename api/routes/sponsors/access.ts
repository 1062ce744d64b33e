// What every sponsor operation declares and how it finds the program (spec: Authentication — sponsor rows). Every route
// declares feature 'sponsor': while SERVICE_SPONSOR_API_ENABLED is off the router answers 503 SPONSOR_NOT_CONFIGURED.
import { ServiceError } from '../../../domain/errors.ts';
import type { Tx } from '../../../store/db.ts';
import { findProgram, isSponsorAdmin, lockProgram, type ProgramRow } from '../../../store/sponsors/sponsors.ts';
import type { AppDeps } from '../../context.ts';

export const SPONSOR_ADMIN = 'assigned sponsor administrator of the institution (user session only)';
export const sponsorCommon = { feature: 'sponsor' as const, tag: 'sponsors' };
/** An institution's writes: a user session of an assigned administrator, with a required key in the institution's space. */
export const institutionPost = {
  ...sponsorCommon,
  auth: 'session' as const,
  scope: 'write' as const,
  audience: SPONSOR_ADMIN,
  idempotency: 'required' as const,
  idempotency_namespace: 'sponsor_institution' as const,
};

const programNotFound = (program_id: string) => new ServiceError('NOT_FOUND', `Program ${program_id} was not found.`);

/** spec: Authentication — a program of an institution the caller does not administer is a plain 404. */
export async function loadProgram(deps: AppDeps, user_id: string, program_id: string): Promise<ProgramRow> {
  const program = await findProgram(deps.db, program_id);
  if (!program || !(await isSponsorAdmin(deps.db, program.institution_id, user_id))) throw programNotFound(program_id);
  return program;
}

/** Re-reads the program under its lock inside the transaction (the assignment was checked before). */
export async function lockedProgram(tx: Tx, program_id: string): Promise<ProgramRow> {
  const program = await lockProgram(tx, program_id);
  if (!program) throw programNotFound(program_id);
  return program;
}
