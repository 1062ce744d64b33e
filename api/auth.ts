// Authentication (API token or user session) and the per-operation checks, in the order
// 401 (who) → 403 (scope) → 404 (tenant) → 403 (role) (docs/api.md).
import type { Context } from 'koa';
import { SignJWT, jwtVerify } from 'jose';
import { roleAtLeast, SCOPES, type Role, type Scope } from '../domain/accounts/rules.ts';
import { ServiceError } from '../domain/errors.ts';
import { findApiTokenWithRole, findLiveSessionWithRoles, membershipRole, parseTokenSecret, touchApiToken } from '../store/accounts/accounts.ts';
import type { Db } from '../store/db.ts';
import { safeEqualBytes, safeEqualHex, sha256, sha256Bytes } from '../store/secrets.ts';
import type { AppDeps, Auth, State } from './context.ts';

export const SESSION_COOKIE = 'crucible_session';
/** Longer credentials are refused before any lookup. */
export const CREDENTIAL_LENGTH_MAX = 4096;
const JWT_ISSUER = 'crucible';
const JWT_AUDIENCE = 'crucible-user-session';

export async function signSession(deps: AppDeps, user_id: string, session_id: string, lifetime_seconds: number): Promise<string> {
  return new SignJWT({ sid: session_id })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(user_id)
    .setIssuer(JWT_ISSUER)
    .setAudience(JWT_AUDIENCE)
    .setIssuedAt()
    .setExpirationTime(`${lifetime_seconds}s`)
    .sign(deps.config.session_secret!);
}

const unauthenticated = (why: string) =>
  new ServiceError('UNAUTHENTICATED', `${why} Send "Authorization: Bearer <API token or session token>", or sign in with POST /v1/auth/sessions.`);

// --- verified credentials, cached briefly (docs/performance.md) -----------------------------------------------------
// A verified token or session is kept for at most AUTH_CACHE_TTL_MS (and never past its own expiry), so a polling client
// costs no query for its credential. Revoking a token or signing out evicts it in this process at once
// (forgetCredential); another API process stops accepting it within AUTH_CACHE_TTL_MS. Role changes apply within the
// same bound. Failures are never cached.

/** How long another process may still accept a revoked credential (documented in docs/performance.md). */
export const AUTH_CACHE_TTL_MS = 5_000;
/** Verified credentials kept per process; the oldest goes first. */
export const AUTH_CACHE_ENTRIES_MAX = 10_000;

type CacheEntry = {
  auth: Auth;
  /** what forgetCredential names: `tok:<id>` or `ses:<id>` */
  owner: string;
  /** the token secret's stored hash, as bytes (a cached token still proves its secret on every request) */
  secret_digest?: Buffer;
  expires_ms: number;
};

const caches = new WeakMap<Db, Map<string, CacheEntry>>();

function cacheOf(db: Db): Map<string, CacheEntry> {
  let cache = caches.get(db);
  if (!cache) {
    cache = new Map();
    caches.set(db, cache);
  }
  return cache;
}

function remember(db: Db, key: string, entry: CacheEntry, generation: number): void {
  // A credential forgotten (revoked, signed out) while its verification was running is not kept.
  if (generation !== flightsOf(db).generation) return;
  const cache = cacheOf(db);
  if (cache.size >= AUTH_CACHE_ENTRIES_MAX) {
    const now = Date.now();
    for (const [k, v] of cache) if (v.expires_ms <= now) cache.delete(k);
    while (cache.size >= AUTH_CACHE_ENTRIES_MAX) cache.delete(cache.keys().next().value!);
  }
  cache.set(key, entry);
}

// --- one verification per credential at a time ---------------------------------------------------------------------
// When a busy credential's entry expires, every request presenting it would otherwise verify it on its own: a poller
// with 200 connections sent up to 200 lookups at once every AUTH_CACHE_TTL_MS, queued behind the pool (10 connections).
// Requests that arrive while a lookup for the same key runs wait for that lookup instead. `generation` counts
// forgetCredential calls: a lookup that overlapped one is neither kept nor joined by later requests.
type Flights = { generation: number; running: Map<string, Promise<unknown>> };
const flights = new WeakMap<Db, Flights>();

function flightsOf(db: Db): Flights {
  let state = flights.get(db);
  if (!state) {
    state = { generation: 0, running: new Map() };
    flights.set(db, state);
  }
  return state;
}

/** A lookup's answer, the generation it began in, and when it began (a kept entry's lifetime counts from then). */
type Flight<T> = { value: T; generation: number; started_ms: number };

/** `lookup`'s answer for `key`, shared with every request for the same key while it runs. */
function shared<T>(db: Db, key: string, lookup: () => Promise<T>): Promise<Flight<T>> {
  const state = flightsOf(db);
  const running = state.running.get(key) as Promise<Flight<T>> | undefined;
  if (running) return running;
  const generation = state.generation;
  const started_ms = Date.now();
  const promise = lookup()
    .then((value) => ({ value, generation, started_ms }))
    .finally(() => {
      if (state.running.get(key) === promise) state.running.delete(key);
    });
  state.running.set(key, promise);
  return promise;
}

/** Evicts a revoked token or an ended session from this process's cache (the database change is the caller's). */
export function forgetCredential(deps: AppDeps, which: { token_id: string } | { session_id: string }): void {
  const owner = 'token_id' in which ? `tok:${which.token_id}` : `ses:${which.session_id}`;
  const cache = cacheOf(deps.db);
  for (const [key, entry] of cache) if (entry.owner === owner) cache.delete(key);
  // A lookup already running may have read the credential before the change: no later request joins it, none keeps it.
  const state = flightsOf(deps.db);
  state.generation++;
  state.running.clear();
}

/** The caller's credential and where it came from (a cookie needs a same-site request to change state). */
export async function authenticate(deps: AppDeps, ctx: Context): Promise<{ auth: Auth; source: 'header' | 'cookie' } | null> {
  const header = ctx.get('authorization');
  let credential: string | null = null;
  let source: 'header' | 'cookie' = 'header';
  if (header) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match) throw unauthenticated('The Authorization header is malformed.');
    credential = match[1]!;
  } else {
    credential = ctx.cookies.get(SESSION_COOKIE) ?? null;
    source = 'cookie';
  }
  if (!credential) return null;
  if (credential.length > CREDENTIAL_LENGTH_MAX) throw unauthenticated('The credential is invalid.');
  const token = parseTokenSecret(credential);
  return { auth: token ? await tokenAuth(deps, token) : await sessionAuth(deps, credential), source };
}

/** An API token: a cached entry still proves the secret; a lookup (shared while it runs) reads the token and its role. */
async function tokenAuth(deps: AppDeps, token: { id: string; secret: string }): Promise<Auth> {
  const key = `tok:${token.id}`;
  const cached = cacheOf(deps.db).get(key);
  if (cached && cached.expires_ms > Date.now() && safeEqualBytes(cached.secret_digest!, sha256Bytes(token.secret))) return cached.auth;
  const { value: row, generation, started_ms } = await shared(deps.db, key, () => findApiTokenWithRole(deps.db, token.id));
  // Each request proves its own secret against the row, whether it ran the lookup or joined it.
  if (!row || !safeEqualHex(row.secret_hash, sha256(token.secret))) throw unauthenticated('The API token is invalid.');
  if (row.revoked) throw unauthenticated('The API token was revoked.');
  if (row.expired) throw unauthenticated('The API token has expired; create a new one.');
  if (row.stale_use) noteTokenUse(deps, row.id);
  const auth: Auth = {
    kind: 'token',
    user_id: row.user_id,
    token_id: row.id,
    org_id: row.org_id,
    scopes: row.scopes,
    roles: row.role ? { [row.org_id]: row.role } : {},
  };
  const entry = {
    auth,
    owner: key,
    secret_digest: Buffer.from(row.secret_hash, 'hex'),
    expires_ms: Math.min(started_ms + AUTH_CACHE_TTL_MS, Number(row.expires_ms)),
  };
  remember(deps.db, key, entry, generation);
  return auth;
}

/** Tokens whose use is being written in this process (requests that joined one lookup write it once). */
const touching = new Set<string>();

/**
 * Writes a token's `last_used_at` when its row says the last write is older than TOKEN_LAST_USED_INTERVAL_SECONDS; the
 * update repeats that condition, so processes together write it at most once a minute. Off the request's path: a
 * failed write is logged, never the request's failure.
 */
function noteTokenUse(deps: AppDeps, token_id: string): void {
  if (touching.has(token_id)) return;
  touching.add(token_id);
  touchApiToken(deps.db, token_id)
    .catch((error: unknown) => deps.logger.warn({ token_id, err: error }, 'could not record the API token use'))
    .finally(() => touching.delete(token_id));
}

/** A session JWT is its own proof: the cache key is its hash, so a cached entry skips the signature check too. */
async function sessionAuth(deps: AppDeps, credential: string): Promise<Auth> {
  const key = `jwt:${sha256(credential)}`;
  const cached = cacheOf(deps.db).get(key);
  if (cached && cached.expires_ms > Date.now()) return cached.auth;
  return (await shared(deps.db, key, () => verifySession(deps, key, credential))).value;
}

async function verifySession(deps: AppDeps, key: string, credential: string): Promise<Auth> {
  const now = Date.now();
  const generation = flightsOf(deps.db).generation;
  try {
    const { payload } = await jwtVerify(credential, deps.config.session_secret!, { issuer: JWT_ISSUER, audience: JWT_AUDIENCE, algorithms: ['HS256'] });
    const sid = typeof payload.sid === 'string' ? payload.sid : '';
    const live = payload.sub && sid ? await findLiveSessionWithRoles(deps.db, sid, payload.sub) : undefined;
    if (!payload.sub || !live) throw unauthenticated('The session has ended; sign in again.');
    const auth: Auth = { kind: 'session', user_id: payload.sub, session_id: sid, scopes: [...SCOPES], roles: live.roles };
    const jwt_expires_ms = typeof payload.exp === 'number' ? payload.exp * 1000 : now;
    remember(deps.db, key, { auth, owner: `ses:${sid}`, expires_ms: Math.min(now + AUTH_CACHE_TTL_MS, live.expires_ms, jwt_expires_ms) }, generation);
    return auth;
  } catch (error) {
    if (error instanceof ServiceError) throw error;
    const expired = (error as { code?: string }).code === 'ERR_JWT_EXPIRED';
    throw unauthenticated(expired ? 'The session has expired; sign in again.' : 'The credential is invalid.');
  }
}

/** The caller of a `user` or `session` route (the router authenticated it before the handler ran). */
export function callerOf(ctx: Context): Auth {
  const auth = (ctx.state as State).auth;
  if (!auth) throw unauthenticated('This operation needs a credential.');
  return auth;
}

export function requireScopeOf(auth: Auth, scope: Scope): Auth {
  if (!auth.scopes.includes(scope)) {
    throw new ServiceError('FORBIDDEN', `This operation needs the "${scope}" scope; the token has ${auth.scopes.join(', ')}. Create a token with that scope.`, {
      needed_scope: scope,
    });
  }
  return auth;
}

/** The scope and role a check applies: given, else what the route declares. */
function declared(ctx: Context, options: { scope?: Scope; role?: Role }): { scope: Scope; role?: Role } {
  const route = (ctx.state as State).route_def;
  const scope = options.scope ?? route?.scope;
  if (!scope) throw new ServiceError('INTERNAL', `invariant violated: route ${route?.path ?? ctx.path} declares no scope for an organization check`);
  return { scope, role: options.role ?? route?.role };
}

/**
 * Checks scope, tenant and role for an operation inside one organization and returns the caller's role.
 * `not_found` names what the caller asked for, so another organization's object is a plain 404.
 */
export async function authorizeOrg(
  deps: AppDeps,
  ctx: Context,
  org_id: string,
  options: { scope?: Scope; role?: Role; not_found?: string } = {},
): Promise<{ auth: Auth; role: Role }> {
  const { scope, role: needed } = declared(ctx, options);
  const auth = requireScopeOf(callerOf(ctx), scope);
  const missing = () => new ServiceError('NOT_FOUND', `${options.not_found ?? `Organization ${org_id}`} was not found.`);
  if (auth.kind === 'token' && auth.org_id !== org_id) throw missing();
  // The roles read with the credential (at most AUTH_CACHE_TTL_MS old) answer without a query; an organization not
  // among them is asked for, so a membership added since is seen at once.
  const role = auth.roles?.[org_id] ?? (await membershipRole(deps.db, org_id, auth.user_id));
  if (!role) throw missing();
  if (needed && !roleAtLeast(role, needed)) {
    throw new ServiceError('FORBIDDEN', `This operation needs the ${needed} role or higher in the organization; you are ${role}.`, {
      needed_role: needed,
    });
  }
  return { auth, role };
}

/**
 * The check for an object owned by an organization: `row` as loaded (undefined when missing). A missing object and
 * another organization's object give the same 404, after the scope check, so neither reveals which it is.
 */
export async function authorizeOwned<T extends { org_id: string }>(
  deps: AppDeps,
  ctx: Context,
  what: string,
  row: T | undefined | null,
  options: { scope?: Scope; role?: Role } = {},
): Promise<T> {
  if (!row) {
    requireScopeOf(callerOf(ctx), declared(ctx, options).scope);
    throw new ServiceError('NOT_FOUND', `${what} was not found.`);
  }
  await authorizeOrg(deps, ctx, row.org_id, { ...options, not_found: what });
  return row;
}
