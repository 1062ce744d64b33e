// Sign-in, sign-out, the current user, and API tokens (spec: Authentication).
import type { Context } from 'koa';
import { Type } from 'typebox';
import { normalizeEmail, ROLES, SCOPES, type Scope } from '../../domain/accounts/rules.ts';
import { ServiceError } from '../../domain/errors.ts';
import {
  createApiToken,
  createSession,
  findUser,
  findUserByEmail,
  listApiTokens,
  listMembers,
  listMemberships,
  membershipRole,
  revokeApiToken,
  revokeSession,
} from '../../store/accounts/accounts.ts';
import { signInAttempts } from '../../store/accounts/signInAttempts.ts';
import type { Config } from '../../runtime/config.ts';
import { verifyPassword } from '../../store/secrets.ts';
import { authorizeOrg, forgetCredential, SESSION_COOKIE, signSession } from '../auth.ts';
import type { AppDeps } from '../context.ts';
import { page } from '../http.ts';
import { route, type RouteDef } from '../registry.ts';
import { Id, Page, PageQuery, Timestamp } from '../schemas.ts';

const SignIn = Type.Object(
  { email: Type.String({ minLength: 3, maxLength: 254 }), password: Type.String({ minLength: 1, maxLength: 1024 }) },
  { additionalProperties: false },
);
const SessionOut = Type.Object({ token: Type.String(), token_type: Type.Literal('Bearer'), expires_at: Timestamp, user_id: Id('usr') });
const MeOut = Type.Object({
  user: Type.Object({ id: Id('usr'), email: Type.String(), created_at: Timestamp }),
  memberships: Type.Array(Type.Object({ org_id: Id('org'), org_name: Type.String(), role: Type.String(), created_at: Timestamp })),
  auth: Type.Object({ kind: Type.String(), scopes: Type.Array(Type.String()), org_id: Type.Optional(Type.String()) }),
});
const ScopeSchema = Type.Union(SCOPES.map((s) => Type.Literal(s)));
const CreateToken = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    org_id: Type.String({ minLength: 1, maxLength: 64 }),
    scopes: Type.Array(ScopeSchema, { minItems: 1, maxItems: 3, uniqueItems: true }),
  },
  { additionalProperties: false },
);
const TokenOut = Type.Object({
  id: Id('tok'),
  name: Type.String(),
  org_id: Id('org'),
  scopes: Type.Array(Type.String()),
  created_at: Timestamp,
  expires_at: Timestamp,
  revoked_at: Type.Union([Timestamp, Type.Null()]),
  last_used_at: Type.Union([Timestamp, Type.Null()]),
});
const MemberOut = Type.Object({
  user_id: Id('usr'),
  email: Type.String(),
  role: Type.Union(ROLES.map((r) => Type.Literal(r))),
  created_at: Timestamp,
});
const TokenCreated = Type.Object({ token: TokenOut, secret: Type.String({ description: 'shown once; store it safely' }) });

/**
 * The session cookie, Secure when the public URL is https (runtime/config.ts then requires CRUCIBLE_TRUST_PROXY, so the
 * proxy's X-Forwarded-Proto says the request came over HTTPS). A request that reached the plain port without it (a
 * health check, a proxy that omits the header) still gets the Secure cookie, never a 500: the browser, which only sees
 * the https public URL, keeps it, and the same answer carries the token in its body anyway (docs/decisions.md).
 */
function setSessionCookie(ctx: Context, config: Config, value: string, lifetime_seconds: number): void {
  const secure = config.public_url?.startsWith('https:') ?? false;
  if (secure) ctx.cookies.secure = true;
  ctx.cookies.set(SESSION_COOKIE, value, { httpOnly: true, sameSite: 'lax', secure, maxAge: lifetime_seconds * 1000, path: '/' });
}

const invalidSignIn = () => new ServiceError('UNAUTHENTICATED', 'The email or password is wrong.');

export function accountRoutes(deps: AppDeps): RouteDef[] {
  const { db, config } = deps;
  const attempts = signInAttempts(db, config.sign_in_limits);
  return [
    route({
      method: 'post',
      path: '/v1/auth/sessions',
      operation_id: 'signIn',
      summary: 'Sign in with email and password; returns a user-session JWT and sets it as an HttpOnly cookie',
      tag: 'accounts',
      auth: 'public',
      body: SignIn,
      responses: {
        201: { description: 'signed in', schema: SessionOut },
        429: { description: 'RATE_LIMITED: too many attempts for this email or from this address; Retry-After says when to try again' },
      },
      handler: async (ctx, { body }) => {
        let email: string | null = null;
        try {
          email = normalizeEmail(body.email);
        } catch {
          // counted under the address and the email as sent; refused below like any wrong password
        }
        // Counted before the password is checked, whether or not the email exists, so the answer reveals nothing.
        const verdict = await attempts.attempt(email ?? body.email.trim().toLowerCase(), ctx.ip);
        if (!verdict.allowed) {
          throw new ServiceError(
            'RATE_LIMITED',
            `Too many sign-in attempts; try again in ${verdict.retry_after_seconds} seconds.`,
            { retry_after_seconds: verdict.retry_after_seconds },
            { retry_after_seconds: verdict.retry_after_seconds },
          );
        }
        const user = email === null ? undefined : await findUserByEmail(db, email);
        // Unknown email and wrong password take the same path and give the same 401.
        const ok = await verifyPassword(body.password, user?.password_hash ?? null);
        if (!user || !ok || email === null) throw invalidSignIn();
        await attempts.succeeded(email);
        const session = await db.transaction((tx) => createSession(tx, user.id, config.session_lifetime_seconds));
        const token = await signSession(deps, user.id, session.id, config.session_lifetime_seconds);
        setSessionCookie(ctx, config, token, config.session_lifetime_seconds);
        ctx.status = 201;
        ctx.body = { token, token_type: 'Bearer', expires_at: session.expires_at, user_id: user.id };
      },
    }),
    route({
      method: 'delete',
      path: '/v1/auth/sessions/current',
      operation_id: 'signOut',
      summary: 'Sign out: ends the current user session',
      tag: 'accounts',
      auth: 'session',
      responses: { 204: { description: 'signed out' } },
      handler: async (ctx, { auth }) => {
        await revokeSession(db, auth.session_id);
        forgetCredential(deps, { session_id: auth.session_id });
        setSessionCookie(ctx, config, '', 0);
        ctx.status = 204;
      },
    }),
    route({
      method: 'get',
      path: '/v1/me',
      operation_id: 'getMe',
      summary: 'The signed-in user and their memberships',
      tag: 'accounts',
      auth: 'user',
      scope: 'read',
      responses: { 200: { description: 'the user', schema: MeOut } },
      handler: async (ctx, { auth }) => {
        const user = await findUser(db, auth.user_id);
        if (!user) throw new ServiceError('UNAUTHENTICATED', 'The user no longer exists; sign in again.');
        let memberships = await listMemberships(db, auth.user_id);
        if (auth.kind === 'token') memberships = memberships.filter((m) => m.org_id === auth.org_id);
        ctx.body = { user, memberships, auth: { kind: auth.kind, scopes: auth.scopes, ...(auth.kind === 'token' ? { org_id: auth.org_id } : {}) } };
      },
    }),
    route({
      method: 'get',
      path: '/v1/orgs/{org_id}/members',
      operation_id: 'listMembers',
      summary: "List an organization's members and their roles, oldest membership first (any member may read; roles are changed by operators)",
      tag: 'accounts',
      auth: 'user',
      scope: 'read',
      role: 'member',
      query: { ...PageQuery },
      responses: { 200: { description: 'members', schema: Page(MemberOut) } },
      handler: async (ctx, input) => {
        const org_id = input.params.org_id;
        const { offset, limit } = input.query;
        await authorizeOrg(deps, ctx, org_id);
        ctx.body = page(await listMembers(db, org_id, offset, limit), offset, limit);
      },
    }),
    route({
      method: 'post',
      path: '/v1/me/api-tokens',
      operation_id: 'createApiToken',
      summary: 'Create an API token for one organization (user session only); the secret is returned once',
      tag: 'accounts',
      auth: 'session',
      role: 'member',
      audience: 'a member of org_id',
      body: CreateToken,
      responses: { 201: { description: 'created', schema: TokenCreated } },
      handler: async (ctx, { body, auth: session }) => {
        const name = body.name.trim();
        if (!name) throw new ServiceError('VALIDATION_FAILED', 'name must not be blank.', [{ path: '/name', message: 'must not be blank' }]);
        const role = await membershipRole(db, body.org_id, session.user_id);
        if (!role) throw new ServiceError('NOT_FOUND', `Organization ${body.org_id} was not found.`);
        const created = await db.transaction((tx) => createApiToken(tx, { user_id: session.user_id, org_id: body.org_id, name, scopes: body.scopes as Scope[] }));
        ctx.status = 201;
        ctx.body = created;
      },
    }),
    route({
      method: 'get',
      path: '/v1/me/api-tokens',
      operation_id: 'listApiTokens',
      summary: 'List your API tokens (never their secrets)',
      tag: 'accounts',
      auth: 'user',
      scope: 'read',
      query: PageQuery,
      responses: { 200: { description: 'tokens', schema: Page(TokenOut) } },
      handler: async (ctx, { auth, query: { offset, limit } }) => {
        ctx.body = page(await listApiTokens(db, auth.user_id, offset, limit), offset, limit);
      },
    }),
    route({
      method: 'delete',
      path: '/v1/me/api-tokens/{token_id}',
      operation_id: 'revokeApiToken',
      summary: 'Revoke one of your API tokens',
      tag: 'accounts',
      auth: 'session',
      responses: { 200: { description: 'revoked', schema: TokenOut } },
      handler: async (ctx, { auth, params }) => {
        const revoked = await revokeApiToken(db, auth.user_id, params.token_id);
        if (!revoked) throw new ServiceError('NOT_FOUND', `API token ${params.token_id} was not found.`);
        forgetCredential(deps, { token_id: revoked.id });
        ctx.body = revoked;
      },
    }),
  ];
}
