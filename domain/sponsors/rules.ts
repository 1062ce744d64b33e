// Sponsor program rules as pure functions (spec: Sponsor institution and program; States and transitions — Program,
// Enrollment, Allocation and the rules under the table; Errors). Handlers and the store gather inputs and commit; the
// decisions are made here. docs/sponsors.md and docs/decisions.md ("Sponsor programs") explain the choices.
import { ServiceError } from '../errors.ts';

export const PROGRAM_STATUSES = ['draft', 'active', 'closed'] as const;
export type ProgramStatus = (typeof PROGRAM_STATUSES)[number];
export const ENROLLMENT_STATUSES = ['pending', 'active', 'declined'] as const;
export type EnrollmentStatus = (typeof ENROLLMENT_STATUSES)[number];

/** spec: Limits — report minimum cohort: default 10, cannot be below 5. */
export const REPORT_MIN_COHORT_DEFAULT = 10;
export const REPORT_MIN_COHORT_MIN = 5;
/** spec: Limits — institution list: at most 200 items. */
export const INSTITUTIONS_LIST_MAX = 200;
export const ELIGIBLE_EMAIL_DOMAINS_MAX = 100;
export const DOMAIN_LENGTH_MAX = 253;
export const MAX_RECIPIENTS_MAX = 1_000_000;
export const CODE_USES_MAX = 1_000_000;
export const DECISION_NOTE_LENGTH_MAX = 1000;

export type ProgramRules = {
  status: ProgramStatus;
  starts_at: string;
  ends_at: string;
  per_recipient_cap: number;
  max_recipients: number;
  eligible_email_domains: string[];
  requires_approval: boolean;
};

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/**
 * spec: program creation — eligible_email_domains are normalized, each a full domain without "@": lower case, no
 * surrounding spaces or trailing dot, at least two labels; duplicates are dropped.
 */
export function normalizeDomains(raw: readonly string[]): string[] {
  if (raw.length > ELIGIBLE_EMAIL_DOMAINS_MAX) {
    throw new ServiceError('VALIDATION_FAILED', `At most ${ELIGIBLE_EMAIL_DOMAINS_MAX} eligible email domains are accepted (ELIGIBLE_EMAIL_DOMAINS_MAX).`, [
      { path: '/eligible_email_domains', message: `must have at most ${ELIGIBLE_EMAIL_DOMAINS_MAX} items` },
    ]);
  }
  const out: string[] = [];
  raw.forEach((value, index) => {
    const domain = value.trim().toLowerCase().replace(/\.$/, '');
    const labels = domain.split('.');
    const full =
      domain.length <= DOMAIN_LENGTH_MAX &&
      !domain.includes('@') &&
      labels.length >= 2 &&
      labels.every((label) => LABEL.test(label)) &&
      /[a-z]/.test(labels.at(-1)!);
    if (!full) {
      throw new ServiceError('VALIDATION_FAILED', `eligible_email_domains[${index}] is not a full domain; send a name like "example.org", without "@".`, [
        { path: `/eligible_email_domains/${index}`, message: 'must be a full domain without "@"' },
      ]);
    }
    if (!out.includes(domain)) out.push(domain);
  });
  return out;
}

/** spec: program creation — starts_at defaults to now; ends_at must be after the start and in the future. */
export function programWindow(input: { starts_at?: string; ends_at: string }, now_ms: number): { starts_at: string; ends_at: string } {
  const starts_ms = input.starts_at === undefined ? now_ms : Date.parse(input.starts_at);
  const ends_ms = Date.parse(input.ends_at);
  if (!Number.isFinite(starts_ms))
    throw new ServiceError('VALIDATION_FAILED', 'starts_at is not a timestamp.', [{ path: '/starts_at', message: 'must be an ISO 8601 timestamp' }]);
  if (!Number.isFinite(ends_ms))
    throw new ServiceError('VALIDATION_FAILED', 'ends_at is not a timestamp.', [{ path: '/ends_at', message: 'must be an ISO 8601 timestamp' }]);
  if (ends_ms <= starts_ms)
    throw new ServiceError('VALIDATION_FAILED', 'ends_at must be after starts_at.', [{ path: '/ends_at', message: 'must be after starts_at' }]);
  if (ends_ms <= now_ms)
    throw new ServiceError('VALIDATION_FAILED', 'ends_at must be in the future.', [{ path: '/ends_at', message: 'must be in the future' }]);
  return { starts_at: new Date(starts_ms).toISOString(), ends_at: new Date(ends_ms).toISOString() };
}

export function reportMinCohort(value: number | undefined): number {
  const cohort = value ?? REPORT_MIN_COHORT_DEFAULT;
  if (!Number.isSafeInteger(cohort) || cohort < REPORT_MIN_COHORT_MIN) {
    throw new ServiceError('VALIDATION_FAILED', `report_min_cohort cannot be below ${REPORT_MIN_COHORT_MIN} (REPORT_MIN_COHORT_MIN).`, [
      { path: '/report_min_cohort', message: `must be at least ${REPORT_MIN_COHORT_MIN}` },
    ]);
  }
  return cohort;
}

/** Where a program stands in its date window at `now_ms`. */
export function windowPhase(program: Pick<ProgramRules, 'starts_at' | 'ends_at'>, now_ms: number): 'scheduled' | 'open' | 'ended' {
  if (now_ms < Date.parse(program.starts_at)) return 'scheduled';
  if (now_ms >= Date.parse(program.ends_at)) return 'ended';
  return 'open';
}

/**
 * spec: States and transitions — Program. draft → active needs the institution's verification record (409
 * APPROVAL_REQUIRED); any state but closed → closed; closed never reopens (409 CONFLICT: the request is well formed,
 * the program's state refuses it). Activating an already active program changes nothing. An ended program cannot be
 * activated (409 CONFLICT).
 */
export function nextStatus(
  program: Pick<ProgramRules, 'status' | 'ends_at'>,
  requested: 'active' | 'closed',
  institution_verified: boolean,
  now_ms: number,
): ProgramStatus {
  if (program.status === 'closed') {
    throw new ServiceError('CONFLICT', 'The program is closed; closed programs cannot reopen or change status.', { status: 'closed', requested });
  }
  if (requested === 'closed') return 'closed';
  if (program.status === 'active') return 'active';
  if (!institution_verified) {
    throw new ServiceError(
      'APPROVAL_REQUIRED',
      'The institution has no verification record yet; an operator must verify it before a program can be activated.',
      {
        status: program.status,
        requested,
      },
    );
  }
  if (now_ms >= Date.parse(program.ends_at)) {
    throw new ServiceError('CONFLICT', 'The program has ended (ends_at is past); an ended program cannot be activated.', { status: program.status, requested });
  }
  return 'active';
}

/** The domain of an email address, lower case. */
export function emailDomain(email: string): string {
  return email.slice(email.lastIndexOf('@') + 1).toLowerCase();
}

/** An address is eligible when its domain equals an eligible domain or is a subdomain of one; no domains: any address. */
export function emailEligible(email: string, domains: readonly string[]): boolean {
  if (domains.length === 0) return true;
  const domain = emailDomain(email);
  return domains.some((eligible) => domain === eligible || domain.endsWith(`.${eligible}`));
}

/** State and date refusals shared by redemption and allocation (spec: rules under the state table). */
function requireOpen(program: ProgramRules, now_ms: number, action: string): void {
  if (program.status === 'closed') throw new ServiceError('CONFLICT', `The program is closed; ${action} is no longer possible.`, { status: 'closed' });
  const phase = windowPhase(program, now_ms);
  if (phase === 'ended')
    throw new ServiceError('CONFLICT', `The program ended at ${program.ends_at}; ${action} is no longer possible.`, { ends_at: program.ends_at });
}

/**
 * spec: States and transitions — Enrollment (redeem code). Refusals: closed or ended program 409 CONFLICT; draft or
 * scheduled (not yet started) program, ineligible email domain, full program 422 VALIDATION_FAILED (spec: Errors —
 * "ineligible, full or inactive program on redeem"). Outcome: `pending` when the program requires approval, else
 * `active` (a matching domain alone does not prove affiliation, so the sponsor chooses by requires_approval).
 */
export function redemptionOutcome(program: ProgramRules, input: { redeemer_email: string; recipients: number }, now_ms: number): 'pending' | 'active' {
  requireOpen(program, now_ms, 'redemption');
  if (program.status !== 'active') {
    throw new ServiceError('VALIDATION_FAILED', 'The program is not active yet; codes can be redeemed once its sponsor activates it.', [
      { path: '/code', message: 'belongs to a program that is not active' },
    ]);
  }
  if (windowPhase(program, now_ms) === 'scheduled') {
    throw new ServiceError('VALIDATION_FAILED', `The program starts at ${program.starts_at}; redeem the code after that.`, [
      { path: '/code', message: 'belongs to a program that has not started' },
    ]);
  }
  if (!emailEligible(input.redeemer_email, program.eligible_email_domains)) {
    throw new ServiceError('VALIDATION_FAILED', "The program is not open to your email address's domain.", [
      { path: '/code', message: 'the redeemer is not eligible' },
    ]);
  }
  if (input.recipients >= program.max_recipients) {
    throw new ServiceError('VALIDATION_FAILED', 'The program has reached its maximum number of recipients.', [
      { path: '/code', message: 'the program is full' },
    ]);
  }
  return program.requires_approval ? 'pending' : 'active';
}

/** spec: Enrollment pending → active needs the program to be currently active (409 CONFLICT otherwise). */
export function decisionOutcome(program: ProgramRules, enrollment_status: EnrollmentStatus, approve: boolean, now_ms: number): 'active' | 'declined' {
  if (enrollment_status !== 'pending') {
    throw new ServiceError('CONFLICT', `The enrollment is ${enrollment_status}, not pending; only a pending enrollment can be decided.`, {
      status: enrollment_status,
    });
  }
  if (!approve) return 'declined';
  requireOpen(program, now_ms, 'approval');
  if (program.status !== 'active' || windowPhase(program, now_ms) !== 'open') {
    throw new ServiceError('CONFLICT', 'The program is not currently active; approve the enrollment once it is.', { status: program.status });
  }
  return 'active';
}

/**
 * spec: States and transitions — Allocation: program active and inside its window, member active, pool sufficient
 * (409 QUOTA_EXCEEDED), room under the per-recipient cap (422, the amount is what is wrong).
 */
export function checkAllocation(
  program: ProgramRules,
  input: { enrollment_status: EnrollmentStatus; credits: number; allocated_to_recipient: number; pool_balance: number },
  now_ms: number,
): void {
  requireOpen(program, now_ms, 'allocation');
  if (program.status !== 'active')
    throw new ServiceError('CONFLICT', 'The program is not active; activate it before allocating credits.', { status: program.status });
  if (windowPhase(program, now_ms) === 'scheduled') {
    throw new ServiceError('CONFLICT', `The program starts at ${program.starts_at}; allocate after that.`, { starts_at: program.starts_at });
  }
  if (input.enrollment_status !== 'active') {
    throw new ServiceError('CONFLICT', `The organization's enrollment is ${input.enrollment_status}; only active members receive credits.`, {
      status: input.enrollment_status,
    });
  }
  const room = program.per_recipient_cap - input.allocated_to_recipient;
  if (input.credits > room) {
    throw new ServiceError(
      'VALIDATION_FAILED',
      `The allocation exceeds the per-recipient cap of ${program.per_recipient_cap} credits; ${room} credits of room are left for this organization.`,
      [{ path: '/credits', message: `must be at most ${room}` }],
    );
  }
  if (input.credits > input.pool_balance) {
    throw new ServiceError(
      'QUOTA_EXCEEDED',
      `The program pool holds ${input.pool_balance} credits, fewer than the ${input.credits} asked; fund the program first.`,
      {
        pool_balance: input.pool_balance,
        credits_needed: input.credits,
      },
    );
  }
}

export type ProgramUsage = { pool_balance: number; credits_allocated: number; credits_used: number; credits_reserved: number; evaluations_funded: number };

export type ProgramReport =
  | { program_id: string; suppressed: true; reason: string; report_min_cohort: number; pool_balance: number; credits_allocated: number }
  | {
      program_id: string;
      suppressed: false;
      report_min_cohort: number;
      pool_balance: number;
      credits_allocated: number;
      active_recipients: number;
      credits_used: number;
      credits_reserved: number;
      evaluations_funded: number;
    };

/**
 * spec: program report — a fixed whole-program aggregation. Below report_min_cohort active recipients only the figures
 * the sponsor's own actions determine (pool balance and credits allocated) are returned; usage and counts are omitted.
 */
export function programReport(program_id: string, min_cohort: number, active_recipients: number, usage: ProgramUsage): ProgramReport {
  if (active_recipients < min_cohort) {
    return {
      program_id,
      suppressed: true,
      reason: `Fewer active recipients than the program's minimum cohort of ${min_cohort}; usage and recipient counts are withheld.`,
      report_min_cohort: min_cohort,
      pool_balance: usage.pool_balance,
      credits_allocated: usage.credits_allocated,
    };
  }
  return {
    program_id,
    suppressed: false,
    report_min_cohort: min_cohort,
    pool_balance: usage.pool_balance,
    credits_allocated: usage.credits_allocated,
    active_recipients,
    credits_used: usage.credits_used,
    credits_reserved: usage.credits_reserved,
    evaluations_funded: usage.evaluations_funded,
  };
}

// Redemption codes: 25 characters of Crockford base32 (125 bits), shown in groups of five; compared after normalization.
const CODE_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
export const CODE_LENGTH_MAX = 64;

export function generateCode(): string {
  const bytes = new Uint8Array(25);
  globalThis.crypto.getRandomValues(bytes);
  const chars = [...bytes].map((byte) => CODE_ALPHABET[byte & 31]).join('');
  return chars.match(/.{5}/g)!.join('-');
}

/** Case, spaces and dashes do not matter when a person types a code. */
export function normalizeCode(raw: string): string {
  return raw.replace(/[\s-]/g, '').toUpperCase();
}
