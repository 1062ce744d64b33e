// Accounts, roles and scopes (spec: Authentication).
import { ServiceError } from '../errors.ts';
import { checkNameCharacters } from '../names.ts';

export const ROLES = ['owner', 'admin', 'member'] as const;
export type Role = (typeof ROLES)[number];
export const SCOPES = ['read', 'write', 'run'] as const;
export type Scope = (typeof SCOPES)[number];

/** spec: Limits — API token lifetime 90 days. */
export const API_TOKEN_LIFETIME_DAYS = 90;
/** A user may hold at most this many live API tokens. */
export const API_TOKENS_PER_USER_MAX = 100;
export const EMAIL_LENGTH_MAX = 254;
export const PASSWORD_LENGTH_MIN = 12;
export const PASSWORD_LENGTH_MAX = 1024;
export const NAME_LENGTH_MAX = 200;

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function normalizeEmail(raw: string): string {
  const email = raw.trim().toLowerCase();
  if (email.length === 0 || email.length > EMAIL_LENGTH_MAX || !EMAIL.test(email)) {
    throw new ServiceError('VALIDATION_FAILED', `email must be an address like name@example.org of at most ${EMAIL_LENGTH_MAX} characters.`, [
      { path: '/email', message: 'is not a valid email address' },
    ]);
  }
  return email;
}

export function checkPassword(password: string): void {
  if (password.length < PASSWORD_LENGTH_MIN || password.length > PASSWORD_LENGTH_MAX) {
    throw new ServiceError('VALIDATION_FAILED', `The password must have ${PASSWORD_LENGTH_MIN} to ${PASSWORD_LENGTH_MAX} characters.`, [
      { path: '/password', message: `must have ${PASSWORD_LENGTH_MIN} to ${PASSWORD_LENGTH_MAX} characters` },
    ]);
  }
}

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

/** Owners and admins administer an organization; members use it. */
export function roleAtLeast(role: Role, needed: Role): boolean {
  const rank: Record<Role, number> = { member: 0, admin: 1, owner: 2 };
  return rank[role] >= rank[needed];
}

export function trimmedName(raw: string, field: string, max = NAME_LENGTH_MAX): string {
  checkNameCharacters(raw, `/${field}`);
  const value = raw.trim();
  if (value.length < 1 || value.length > max) {
    throw new ServiceError('VALIDATION_FAILED', `${field} must have 1 to ${max} characters after trimming.`, [
      { path: `/${field}`, message: `must have 1 to ${max} characters after trimming` },
    ]);
  }
  return value;
}

// --- sign-in limits (docs/decisions.md "Sign-in attempts") ---------------------------------------------------------

export type SignInLimits = {
  /** attempts of one email from one address that go at once; later ones wait (a success starts again) */
  per_email_max: number;
  /** attempts allowed per client address per window, whichever emails they name */
  per_address_max: number;
  window_seconds: number;
  /** the first wait after the free attempts; each further attempt doubles it… */
  backoff_base_seconds: number;
  /** …up to this */
  backoff_max_seconds: number;
};

/** The doubling stops growing here (2^30 base waits is past any cap). */
const BACKOFF_DOUBLINGS_MAX = 30;

/**
 * How long one email from one address waits after its `attempts`-th attempt since its last success: nothing for the
 * first per_email_max, then backoff_base_seconds, doubling with each attempt, at most backoff_max_seconds. A wait is per
 * email and address, so attempts from elsewhere never make the owner wait (no lockout of an account).
 */
export function signInWaitSeconds(attempts: number, limits: SignInLimits): number {
  if (attempts < limits.per_email_max) return 0;
  const doublings = Math.min(attempts - limits.per_email_max, BACKOFF_DOUBLINGS_MAX);
  return Math.min(limits.backoff_base_seconds * 2 ** doublings, limits.backoff_max_seconds);
}
