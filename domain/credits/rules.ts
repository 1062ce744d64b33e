// Pure rules of the credit ledger (ARCHITECTURE.md: The credit ledger; spec: Credit ledger, Limits).
// The store applies them inside one transaction after locking the accounts; nothing here does I/O.
import { invariant, ServiceError, type ErrorDetail } from '../errors.ts';

/** spec: Limits — credit integers in JSON are at most 9007199254740991. */
export const CREDITS_MAX = 9007199254740991;
/** A caller's transfer id (the idempotency key of a ledger write) is at most this long. */
export const TRANSFER_KEY_LENGTH_MAX = 200;
export const REASON_LENGTH_MAX = 500;
export const SUBJECT_ID_LENGTH_MAX = 64;
/** One reservation draws from at most this many accounts (sponsored balances plus the organization's own). */
export const RESERVATION_SOURCES_MAX = 16;

export const ACCOUNT_KINDS = ['org_own', 'program_pool', 'sponsored', 'system_issuance', 'system_usage'] as const;
export type AccountKind = (typeof ACCOUNT_KINDS)[number];
/** System accounts have no balance limit: issuance goes negative by design, usage only receives. */
export const SYSTEM_ACCOUNT_KINDS: readonly AccountKind[] = ['system_issuance', 'system_usage'];

export const TRANSFER_KINDS = ['grant', 'purchase', 'allocation', 'reservation', 'settlement', 'release', 'adjustment'] as const;
export type TransferKind = (typeof TRANSFER_KINDS)[number];
export const TRANSFER_STATUSES = ['pending', 'posted', 'voided'] as const;
export type TransferStatus = (typeof TRANSFER_STATUSES)[number];

/** The evaluation subject a reservation pays for (project and review, run or session id). */
export const SUBJECT_KINDS = ['intake_draft', 'review', 'run', 'session'] as const;
export type SubjectKind = (typeof SUBJECT_KINDS)[number];
export type Subject = { project_id: string; kind: SubjectKind; id: string };

/** TigerBeetle's four balance columns. */
export type Balances = { debits_pending: number; debits_posted: number; credits_pending: number; credits_posted: number };

/** What an account can still spend: posted credits minus posted and pending debits (the CHECK keeps it >= 0). */
export function spendable(account: Balances): number {
  return account.credits_posted - account.debits_posted - account.debits_pending;
}

export function checkCredits(value: unknown, field: string, minimum = 1): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < minimum || value > CREDITS_MAX) {
    throw new ServiceError('VALIDATION_FAILED', `${field} must be an integer from ${minimum} to ${CREDITS_MAX}.`, [
      { path: `/${field}`, message: `must be an integer from ${minimum} to ${CREDITS_MAX}` },
    ]);
  }
  return value;
}

export function checkText(value: unknown, field: string, max: number): string {
  if (typeof value !== 'string' || value.trim().length === 0 || value.length > max) {
    throw new ServiceError('VALIDATION_FAILED', `${field} must be a non-empty string of at most ${max} characters.`, [
      { path: `/${field}`, message: `must be 1 to ${max} characters` },
    ]);
  }
  return value;
}

export function checkSubject(subject: Subject | null | undefined): Subject | null {
  if (subject === null || subject === undefined) return null;
  const details: ErrorDetail[] = [];
  if (!SUBJECT_KINDS.includes(subject.kind)) details.push({ path: '/subject/kind', message: `must be one of ${SUBJECT_KINDS.join(', ')}` });
  for (const key of ['project_id', 'id'] as const) {
    const value = subject[key];
    if (typeof value !== 'string' || value.length === 0 || value.length > SUBJECT_ID_LENGTH_MAX) {
      details.push({ path: `/subject/${key}`, message: `must be 1 to ${SUBJECT_ID_LENGTH_MAX} characters` });
    }
  }
  if (details.length) throw new ServiceError('VALIDATION_FAILED', `The subject is invalid: ${details[0]!.path} ${details[0]!.message}.`, details);
  return subject;
}

/**
 * 402 INSUFFICIENT_CREDITS naming available and needed. With `org_id` (an organization's own spending) the API puts the
 * way to get credits on this deployment in place of the generic advice (domain/credits/addCredits.ts).
 */
export function insufficientCredits(available_credits: number, needed_credits: number, what = 'the organization', org_id?: string): ServiceError {
  return new ServiceError(
    'INSUFFICIENT_CREDITS',
    `Not enough credits: ${what} has ${available_credits} available and this needs ${needed_credits}. Add credits or lower the amount.`,
    org_id ? { available_credits, needed_credits, org_id } : { available_credits, needed_credits },
  );
}

/** One account a reservation may draw from, as read under lock. */
export type FundingSource = {
  account_id: string;
  kind: 'sponsored' | 'org_own';
  program_id: string | null;
  /** Sponsored balances end with their program; null for the organization's own credits. */
  ends_at_ms: number | null;
  spendable_credits: number;
};

export type Draw = { account_id: string; program_id: string | null; credits: number };

/**
 * Funding order: sponsored balances first, the program ending soonest first (ties by account id),
 * then the organization's own credits. Sponsored balances whose program has ended are not drawn.
 * Returns the legs, or the available total when it cannot cover `credits`.
 */
export function planDraw(sources: FundingSource[], credits: number, now_ms: number): { ok: true; draws: Draw[] } | { ok: false; available_credits: number } {
  const usable = sources
    .filter((s) => s.spendable_credits > 0 && (s.kind === 'org_own' || (s.ends_at_ms !== null && s.ends_at_ms > now_ms)))
    .sort(
      (a, b) =>
        fundingRank(a) - fundingRank(b) ||
        (a.ends_at_ms ?? 0) - (b.ends_at_ms ?? 0) ||
        (a.account_id < b.account_id ? -1 : a.account_id > b.account_id ? 1 : 0),
    );
  // The own account is always last; sponsored beyond the source limit are left for a later reservation.
  const own = usable.filter((s) => s.kind === 'org_own');
  const chosen = [...usable.filter((s) => s.kind === 'sponsored').slice(0, RESERVATION_SOURCES_MAX - own.length), ...own];
  const available_credits = chosen.reduce((sum, s) => sum + s.spendable_credits, 0);
  if (available_credits < credits) return { ok: false, available_credits };
  const draws: Draw[] = [];
  let remaining = credits;
  for (const source of chosen) {
    if (remaining === 0) break;
    const take = Math.min(remaining, source.spendable_credits);
    draws.push({ account_id: source.account_id, program_id: source.program_id, credits: take });
    remaining -= take;
  }
  invariant(remaining === 0, 'a reservation draws exactly the credits asked for');
  return { ok: true, draws };
}

function fundingRank(source: FundingSource): number {
  return source.kind === 'sponsored' ? 0 : 1;
}

/**
 * Settlement consumes the reservation's legs in their order (sponsored first, as drawn) and voids the rest.
 * A settlement never exceeds its reservation (STYLE.md: assert what must never be).
 */
export function planSettlement(
  legs: { leg_no: number; credits: number }[],
  credits_used: number,
): { leg_no: number; credits_posted: number; credits_voided: number }[] {
  const reserved = legs.reduce((sum, leg) => sum + leg.credits, 0);
  invariant(Number.isSafeInteger(credits_used) && credits_used >= 0, 'credits used is a non-negative integer');
  invariant(credits_used <= reserved, `a settlement (${credits_used}) never exceeds its reservation (${reserved})`);
  let remaining = credits_used;
  return [...legs]
    .sort((a, b) => a.leg_no - b.leg_no)
    .map((leg) => {
      const credits_posted = Math.min(remaining, leg.credits);
      remaining -= credits_posted;
      return { leg_no: leg.leg_no, credits_posted, credits_voided: leg.credits - credits_posted };
    });
}
