// The session cookie of sign-in and sign-out.
import type { Context } from 'koa';
import { SESSION_COOKIE } from '../../auth.ts';

/**
 * The session cookie, Secure when the public URL is https (runtime/config.ts then requires CRUCIBLE_TRUST_PROXY, so the
 * proxy's X-Forwarded-Proto says the request came over HTTPS). A request that reached the plain port without it (a
 * health check, a proxy that omits the header) still gets the Secure cookie, never a 500: the browser, which only sees
 * the https public URL, keeps it, and the same answer carries the token in its body anyway (docs/decisions.md).
 */
export function setSessionCookie(ctx: Context, public_url: string | null, value: string, lifetime_seconds: number): void {
  const secure = public_url?.startsWith('https:') ?? false;
  if (secure) ctx.cookies.secure = true;
  ctx.cookies.set(SESSION_COOKIE, value, { httpOnly: true, sameSite: 'lax', secure, maxAge: lifetime_seconds * 1000, path: '/' });
}
