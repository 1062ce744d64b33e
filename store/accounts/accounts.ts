// Users, organizations, memberships, user sessions and API tokens.
import type { Static } from 'typebox';
import type { ApiToken, Member, Membership, User } from '../../domain/contracts/accounts.ts';
import { API_TOKEN_LIFETIME_DAYS, API_TOKENS_PER_USER_MAX, type Role, type Scope } from '../../domain/accounts/rules.ts';
import { ServiceError } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import { isoRequired, iso } from '../../domain/time.ts';
import { isUniqueViolation, type Tx } from '../db.ts';
import { hashPassword, randomSecret, sha256 } from '../secrets.ts';

/** The user and memberships as the API shows them (domain/contracts/accounts.ts); a membership's role is typed here. */
export type UserRow = Static<typeof User>;
export type MembershipView = Omit<Static<typeof Membership>, 'role'> & { role: Role };

export async function createUser(tx: Tx, email: string, password: string): Promise<UserRow> {
  const id = newId('usr');
  try {
    const [row] = await tx.query<{ id: string; email: string; created_at: unknown }>(
      'insert into users (id, email, password_hash) values (?, ?, ?) returning id, email, created_at',
      [id, email, await hashPassword(password)],
    );
    return { id: row!.id, email: row!.email, created_at: isoRequired(row!.created_at) };
  } catch (error) {
    if (isUniqueViolation(error)) throw new ServiceError('CONFLICT', 'A user with this email already exists.', { email });
    throw error;
  }
}

export async function findUserByEmail(tx: Tx, email: string) {
  return tx.one<{ id: string; email: string; password_hash: string; created_at: unknown }>('select * from users where email = ?', [email]);
}

/** Replaces a password hash with one at today's parameters, only if nobody changed it meanwhile. */
export async function rehashPassword(tx: Tx, user_id: string, stored: string, password: string): Promise<boolean> {
  const rows = await tx.query('update users set password_hash = ? where id = ? and password_hash = ? returning id', [
    await hashPassword(password),
    user_id,
    stored,
  ]);
  return rows.length === 1;
}

export async function findUser(tx: Tx, id: string): Promise<UserRow | undefined> {
  const row = await tx.one<{ id: string; email: string; created_at: unknown }>('select id, email, created_at from users where id = ?', [id]);
  return row && { id: row.id, email: row.email, created_at: isoRequired(row.created_at) };
}

export async function createOrganization(tx: Tx, name: string, owner_user_id: string) {
  const id = newId('org');
  const [row] = await tx.query<{ id: string; name: string; created_at: unknown }>(
    'insert into organizations (id, name) values (?, ?) returning id, name, created_at',
    [id, name],
  );
  await addMember(tx, id, owner_user_id, 'owner');
  return { id: row!.id, name: row!.name, created_at: isoRequired(row!.created_at) };
}

export async function findOrganization(tx: Tx, id: string) {
  return tx.one<{ id: string; name: string; created_at: unknown }>('select * from organizations where id = ?', [id]);
}

export async function findOrganizationByName(tx: Tx, name: string) {
  return tx.one<{ id: string; name: string }>('select id, name from organizations where name = ? order by created_at limit 1', [name]);
}

export async function addMember(tx: Tx, org_id: string, user_id: string, role: Role) {
  const [row] = await tx.query<{ id: string; role: Role }>(
    `insert into memberships (id, org_id, user_id, role) values (?, ?, ?, ?)
     on conflict (org_id, user_id) do update set role = excluded.role returning id, role`,
    [newId('mem'), org_id, user_id, role],
  );
  return row!;
}

export async function membershipRole(tx: Tx, org_id: string, user_id: string): Promise<Role | null> {
  const row = await tx.one<{ role: Role }>('select role from memberships where org_id = ? and user_id = ?', [org_id, user_id]);
  return row?.role ?? null;
}

export async function listMemberships(tx: Tx, user_id: string): Promise<MembershipView[]> {
  const rows = await tx.query<{ org_id: string; org_name: string; role: Role; created_at: unknown }>(
    `select m.org_id, o.name as org_name, m.role, m.created_at from memberships m join organizations o on o.id = m.org_id
     where m.user_id = ? order by m.created_at, m.org_id`,
    [user_id],
  );
  return rows.map((r) => ({ ...r, created_at: isoRequired(r.created_at) }));
}

export type MemberView = Static<typeof Member>;

/** An organization's members with their roles, oldest membership first (one page; limit + 1 rows to see a next page). */
export async function listMembers(tx: Tx, org_id: string, offset: number, limit: number): Promise<MemberView[]> {
  const rows = await tx.query<{ user_id: string; email: string; role: Role; created_at: unknown }>(
    `select m.user_id, u.email, m.role, m.created_at from memberships m join users u on u.id = m.user_id
     where m.org_id = ? order by m.created_at, m.user_id offset ? limit ?`,
    [org_id, offset, limit + 1],
  );
  return rows.map((r) => ({ user_id: r.user_id, email: r.email, role: r.role, created_at: isoRequired(r.created_at) }));
}

// --- user sessions -------------------------------------------------------------

export async function createSession(tx: Tx, user_id: string, lifetime_seconds: number) {
  const id = newId('ses');
  const [row] = await tx.query<{ id: string; expires_at: unknown }>(
    `insert into user_sessions (id, user_id, expires_at) values (?, ?, now() + (? || ' seconds')::interval) returning id, expires_at`,
    [id, user_id, String(lifetime_seconds)],
  );
  return { id: row!.id, expires_at: isoRequired(row!.expires_at) };
}

export async function revokeSession(tx: Tx, id: string): Promise<void> {
  await tx.query('update user_sessions set revoked_at = now() where id = ? and revoked_at is null', [id]);
}

// --- API tokens ----------------------------------------------------------------

/** An API token as the API shows it (domain/contracts/accounts.ts), its scopes typed. */
export type ApiTokenView = Omit<Static<typeof ApiToken>, 'scopes'> & { scopes: Scope[] };

const TOKEN_PREFIX = 'cru';

/** The secret is shown once: `cru.<token id>.<random>`; only its SHA-256 is stored. */
export function formatTokenSecret(id: string, secret: string): string {
  return `${TOKEN_PREFIX}.${id}.${secret}`;
}

export function parseTokenSecret(value: string): { id: string; secret: string } | null {
  // A session JWT (three parts too) is told apart without splitting it.
  if (!value.startsWith(`${TOKEN_PREFIX}.`)) return null;
  const parts = value.split('.');
  if (parts.length !== 3 || parts[0] !== TOKEN_PREFIX || !parts[1]!.startsWith('tok_') || parts[2]!.length < 20) return null;
  return { id: parts[1]!, secret: parts[2]! };
}

function tokenView(row: Record<string, unknown>): ApiTokenView {
  return {
    id: row.id as string,
    name: row.name as string,
    org_id: row.org_id as string,
    scopes: row.scopes as Scope[],
    created_at: isoRequired(row.created_at),
    expires_at: isoRequired(row.expires_at),
    revoked_at: iso(row.revoked_at),
    last_used_at: iso(row.last_used_at),
  };
}

export async function createApiToken(tx: Tx, input: { user_id: string; org_id: string; name: string; scopes: Scope[] }) {
  const live = await tx.one<{ n: number }>('select count(*)::int as n from api_tokens where user_id = ? and revoked_at is null and expires_at > now()', [
    input.user_id,
  ]);
  if ((live?.n ?? 0) >= API_TOKENS_PER_USER_MAX) {
    throw new ServiceError('CONFLICT', `You already hold ${API_TOKENS_PER_USER_MAX} live API tokens, the limit; revoke one first.`, {
      limit: API_TOKENS_PER_USER_MAX,
    });
  }
  const id = newId('tok');
  const secret = randomSecret(32);
  const [row] = await tx.query(
    `insert into api_tokens (id, user_id, org_id, name, scopes, secret_hash, expires_at)
     values (?, ?, ?, ?, ?::text[], ?, now() + interval '${API_TOKEN_LIFETIME_DAYS} days') returning *`,
    [id, input.user_id, input.org_id, input.name, `{${input.scopes.join(',')}}`, sha256(secret)],
  );
  return { token: tokenView(row!), secret: formatTokenSecret(id, secret) };
}

/** The user's tokens, newest first; with `org_id`, only those of that organization (an organization's token asks). */
export async function listApiTokens(tx: Tx, user_id: string, org_id: string | null, offset: number, limit: number) {
  const rows = await tx.query(
    'select * from api_tokens where user_id = ? and (?::text is null or org_id = ?) order by created_at desc, id desc offset ? limit ?',
    [user_id, org_id, org_id, offset, limit + 1],
  );
  return rows.map(tokenView);
}

/** A token's `last_used_at` is written at most once per this many seconds (never on every request). */
export const TOKEN_LAST_USED_INTERVAL_SECONDS = 60;

/** Marks a token used now unless it was marked within TOKEN_LAST_USED_INTERVAL_SECONDS (by any process); true when written. */
export async function touchApiToken(tx: Tx, id: string): Promise<boolean> {
  const rows = await tx.query(
    `update api_tokens set last_used_at = now()
     where id = ? and (last_used_at is null or last_used_at <= now() - interval '${TOKEN_LAST_USED_INTERVAL_SECONDS} seconds') returning id`,
    [id],
  );
  return rows.length === 1;
}

export async function revokeApiToken(tx: Tx, user_id: string, id: string): Promise<ApiTokenView | null> {
  const [row] = await tx.query('update api_tokens set revoked_at = coalesce(revoked_at, now()) where id = ? and user_id = ? returning *', [id, user_id]);
  return row ? tokenView(row) : null;
}

// --- the authentication read path (one round trip per credential; docs/performance.md) ---------------------------

/** An API token with its holder's role in the token's organization, in one query. */
export async function findApiTokenWithRole(tx: Tx, id: string) {
  return tx.one<{
    id: string;
    user_id: string;
    org_id: string;
    scopes: Scope[];
    secret_hash: string;
    expires_ms: number;
    expired: boolean;
    revoked: boolean;
    role: Role | null;
    /** last_used_at is older than TOKEN_LAST_USED_INTERVAL_SECONDS (or unset): this use should be written */
    stale_use: boolean;
  }>(
    `select t.id, t.user_id, t.org_id, t.scopes, t.secret_hash, floor(extract(epoch from t.expires_at) * 1000)::float8 as expires_ms,
       (t.expires_at <= now()) as expired, (t.revoked_at is not null) as revoked, m.role,
       (t.last_used_at is null or t.last_used_at <= now() - interval '${TOKEN_LAST_USED_INTERVAL_SECONDS} seconds') as stale_use
     from api_tokens t left join memberships m on m.org_id = t.org_id and m.user_id = t.user_id
     where t.id = ?`,
    [id],
  );
}

/** A live session with its user's roles in every organization, in one query; undefined when ended or unknown. */
export async function findLiveSessionWithRoles(tx: Tx, id: string, user_id: string) {
  const row = await tx.one<{ expires_ms: number; roles: Record<string, Role> | string }>(
    `select floor(extract(epoch from s.expires_at) * 1000)::float8 as expires_ms,
       coalesce((select json_object_agg(m.org_id, m.role) from memberships m where m.user_id = s.user_id), '{}'::json) as roles
     from user_sessions s where s.id = ? and s.user_id = ? and s.revoked_at is null and s.expires_at > now()`,
    [id, user_id],
  );
  if (!row) return undefined;
  return { expires_ms: Number(row.expires_ms), roles: typeof row.roles === 'string' ? (JSON.parse(row.roles) as Record<string, Role>) : row.roles };
}
