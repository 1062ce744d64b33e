// The Koa app: request id → error envelope → logging → routes (each enforcing what it declares: api/router.ts) (ARCHITECTURE.md: How a request flows).
import Koa, { type Context, type Next } from 'koa';
import { ServiceError, isServiceError } from '../domain/errors.ts';
import { newId } from '../domain/ids.ts';
import { withAddCredits } from './addCredits.ts';
import type { AppDeps, State } from './context.ts';
import type { RouteDef } from './registry.ts';
import { buildRouter, indexedRoutes, withPolling } from './router.ts';
import { requestTimedOut } from './server.ts';
import { webApp } from './web.ts';
import { operatorCodec } from './operatorCodec.ts';
import { routeModules } from './routes/index.ts';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Keeps only the path of a URL: query values may carry signed tokens or codes. */
export function safePath(url: string): string {
  const index = url.indexOf('?');
  if (index < 0) return url;
  const names = [...new URLSearchParams(url.slice(index + 1)).keys()];
  return `${url.slice(0, index)}?${names.map((name) => `${name}=…`).join('&')}`;
}

function envelope(ctx: Context, error: ServiceError): void {
  ctx.status = error.status;
  if (error.retry_after_seconds !== undefined) ctx.set('Retry-After', String(error.retry_after_seconds));
  ctx.body = { code: error.code, message: error.message, details: error.details, request_id: (ctx.state as State).request_id };
}

/**
 * A request whose client went away before the answer (a closed tab, a killed curl, a body that stopped arriving) is not
 * a failure of the service: it is logged at info as 499 (the status nginx logs for it; nothing is sent), or 408 when
 * the request timeout ended it (api/server.ts answered that one).
 */
function clientGone(ctx: Context, error: unknown): { status: 408 | 499; error_code: string } | null {
  const socket = ctx.req.socket;
  const aborted = (error as { code?: string } | null)?.code === 'ECONNRESET' || (error as Error | null)?.message === 'aborted';
  // After the client left, a reader of the body may still report its own complaint (a truncated multipart form).
  // (Not any `req.errored`: a reader that stops early, as a 413 does, leaves an AbortError there on a live connection.)
  const cut_short = isServiceError(error) && (socket?.destroyed === true || (ctx.req.errored as NodeJS.ErrnoException | null)?.code === 'ECONNRESET');
  if (!aborted && !cut_short) return null;
  if (requestTimedOut(socket)) return { status: 408, error_code: 'REQUEST_TIMEOUT' };
  return { status: 499, error_code: 'CLIENT_CLOSED_REQUEST' };
}

export function createApp(deps: AppDeps): { app: Koa; routes: RouteDef[] } {
  // Behind proxies, the client address is the X-Forwarded-For entry the outermost trusted proxy appended: Koa reads only
  // the last `trusted_proxies` entries, so a leftmost entry the client wrote is never taken for its address.
  const app = new Koa({ proxy: deps.config.trust_proxy, maxIpsCount: deps.config.trusted_proxies });
  const routes: RouteDef[] = [];
  routes.push(...routeModules.flatMap((module) => module(deps, () => routes)).map(withPolling));
  const router = buildRouter(deps, routes);

  app.use(async (ctx: Context, next: Next) => {
    const incoming = ctx.get('x-request-id');
    const request_id = incoming && REQUEST_ID.test(incoming) ? incoming : newId('req');
    (ctx.state as State).request_id = request_id;
    // On Node's response directly: nothing is sent yet, and Koa's `set` adds arrays and a header check per call.
    ctx.res.setHeader('X-Request-Id', request_id);
    // Every answer is what its Content-Type says: API JSON, errors, the web app and downloads alike.
    ctx.res.setHeader('X-Content-Type-Options', 'nosniff');
    const started = performance.now();
    let gone: ReturnType<typeof clientGone> = null;
    try {
      await next();
      if (ctx.status === 405 && ctx.body === undefined) {
        const allowed = ctx.response.get('Allow');
        throw new ServiceError('METHOD_NOT_ALLOWED', `${ctx.method} is not allowed on ${ctx.path}; allowed: ${allowed}.`, { allowed: allowed.split(/,\s*/) });
      }
      if (ctx.status === 501 && ctx.body === undefined) {
        throw new ServiceError('METHOD_NOT_ALLOWED', `The method ${ctx.method} is not supported.`);
      }
      if (ctx.status === 404 && ctx.body === undefined) {
        throw new ServiceError('NOT_FOUND', `No route ${ctx.method} ${ctx.path}; the routes are listed at /v1/openapi.json.`);
      }
    } catch (error) {
      gone = clientGone(ctx, error);
      if (gone) {
        // Nothing can reach the client; Koa sends nothing for a destroyed socket.
        ctx.body = null;
      } else if (isServiceError(error)) {
        envelope(ctx, await withAddCredits(deps, ctx.state as State, error));
        if (error.code === 'INTERNAL') deps.logger.error({ request_id, err: error }, 'invariant failure');
      } else {
        deps.logger.error({ request_id, err: error }, 'unhandled error');
        envelope(ctx, new ServiceError('INTERNAL', `An internal error occurred; quote request id ${request_id} when reporting it.`));
      }
    } finally {
      const auth = (ctx.state as State).auth;
      deps.logger.info(
        {
          request_id,
          method: ctx.method,
          // A signed link is a bearer credential in the path: such routes are logged by their template only.
          path:
            (ctx.state as State).log_path ??
            ((ctx.state as State).route_def?.auth === 'signed' ? (ctx.state as State).route_def!.path : safePath(ctx.originalUrl)),
          status: gone?.status ?? ctx.status,
          duration_ms: Math.round(performance.now() - started),
          user_id: auth?.user_id,
          error_code: gone?.error_code ?? (ctx.status >= 400 ? (ctx.body as { code?: string } | undefined)?.code : undefined),
        },
        'request',
      );
    }
  });
  app.use(operatorCodec(deps)); // Temporal's codec protocol for operators, beside the product API (api/operatorCodec.ts)
  app.use(indexedRoutes(router));
  app.use(router.allowedMethods());
  app.use(webApp()); // the web app at / for every path outside /v1 (docs/web.md)
  return { app, routes };
}
