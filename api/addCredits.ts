// The way to get credits on this deployment for one caller (domain/credits/addCredits.ts gathers the words): read by
// the credits answer the web app's header shows and put into every INSUFFICIENT_CREDITS message (api/app.ts).
import { type AddCredits, addCredits, insufficientCreditsMessage } from '../domain/credits/addCredits.ts';
import { ServiceError } from '../domain/errors.ts';
import { anyProgramOpen } from '../store/sponsors/sponsors.ts';
import type { AppDeps, State } from './context.ts';

export async function addCreditsFor(deps: AppDeps, state: Pick<State, 'auth'>, org_id: string): Promise<AddCredits> {
  const { config } = deps;
  const sponsor_program_open = config.sponsor_api_enabled && (await anyProgramOpen(deps.db));
  const role = state.auth?.roles?.[org_id] ?? null;
  return addCredits({ billing_enabled: config.billing_enabled, sponsor_program_open, local_service: config.database_url === null, org_id, role });
}

/** An organization's INSUFFICIENT_CREDITS with the way to get credits here (its message and `details.add_credits`). */
export async function withAddCredits(deps: AppDeps, state: Pick<State, 'auth'>, error: ServiceError): Promise<ServiceError> {
  const details = error.details as { available_credits?: number; needed_credits?: number; org_id?: string } | undefined;
  if (error.code !== 'INSUFFICIENT_CREDITS' || !details || typeof details.org_id !== 'string') return error;
  let way: AddCredits;
  try {
    way = await addCreditsFor(deps, state, details.org_id);
  } catch {
    return error; // the database away: the generic advice is still true
  }
  return new ServiceError('INSUFFICIENT_CREDITS', insufficientCreditsMessage(details.available_credits ?? 0, details.needed_credits ?? 0, way), {
    ...details,
    add_credits: way,
  });
}
