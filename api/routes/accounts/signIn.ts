import { normalizeEmail } from '../../../domain/accounts/rules.ts';
import { Session, SIGN_IN_BODY_LIMIT_BYTES, SignInBody } from '../../../domain/contracts/accounts.ts';
import { ServiceError } from '../../../domain/errors.ts';
import { createSession, findUserByEmail, rehashPassword } from '../../../store/accounts/accounts.ts';
import { signInAttempts } from '../../../store/accounts/signInAttempts.ts';
import { needsRehash, verifyPassword } from '../../../store/secrets.ts';
import { signSession } from '../../auth.ts';
import type { AppDeps } from '../../context.ts';
import { route, type RouteDef } from '../../registry.ts';
import { setSessionCookie } from './cookie.ts';
import { presentSession } from './present.ts';

const invalidSignIn = () => new ServiceError('UNAUTHENTICATED', 'The email or password is wrong.');

export function signInRoute(deps: AppDeps): RouteDef {
  const { db, config } = deps;
  const attempts = signInAttempts(db, config.sign_in_limits);
  return route({
    method: 'post',
    path: '/v1/auth/sessions',
    operation_id: 'signIn',
    summary: 'Sign in with email and password; returns a user-session JWT and sets it as an HttpOnly cookie',
    tag: 'accounts',
    auth: 'public',
    body: SignInBody,
    body_limit: { bytes: SIGN_IN_BODY_LIMIT_BYTES, name: 'SIGN_IN_BODY_LIMIT_BYTES' },
    responses: {
      201: { description: 'signed in', schema: Session },
      429: {
        description:
          'RATE_LIMITED: too many attempts from this address, or this email waits before its next attempt from it; Retry-After says when to try again',
      },
    },
    no_store: true,
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
      await attempts.succeeded(email, ctx.ip);
      // A hash of older parameters is replaced now that the password is known (docs/decisions.md "Password hashing").
      if (needsRehash(user.password_hash)) await rehashPassword(db, user.id, user.password_hash, body.password);
      const session = await db.transaction((tx) => createSession(tx, user.id, config.session_lifetime_seconds));
      const token = await signSession(deps, user.id, session.id, config.session_lifetime_seconds);
      setSessionCookie(ctx, config.public_url, token, config.session_lifetime_seconds);
      ctx.status = 201;
      ctx.body = presentSession(token, session.expires_at, user.id);
    },
  });
}
