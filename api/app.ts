// The Koa app: request id → error envelope → logging → routes (each enforcing what it declares: api/router.ts) (ARCHITECTURE.md: How a request flows).
import Koa, { type Context, type Next } from 'koa';
import { ServiceError, isServiceError } from '../domain/errors.ts';
import { newId } from '../domain/ids.ts';
import type { AppDeps, State } from './context.ts';
import type { RouteDef } from './registry.ts';
import { buildRouter, withPolling } from './router.ts';
import { webApp } from './web.ts';
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

export function createApp(deps: AppDeps): { app: Koa; routes: RouteDef[] } {
  const app = new Koa({ proxy: deps.config.trust_proxy });
  const routes: RouteDef[] = [];
  routes.push(...routeModules.flatMap((module) => module(deps, () => routes)).map(withPolling));
  const router = buildRouter(deps, routes);

  app.use(async (ctx: Context, next: Next) => {
    const incoming = ctx.get('x-request-id');
    const request_id = incoming && REQUEST_ID.test(incoming) ? incoming : newId('req');
    (ctx.state as State).request_id = request_id;
    ctx.set('X-Request-Id', request_id);
    const started = performance.now();
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
      if (isServiceError(error)) {
        envelope(ctx, error);
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
          path: (ctx.state as State).route_def?.auth === 'signed' ? (ctx.state as State).route_def!.path : safePath(ctx.originalUrl),
          status: ctx.status,
          duration_ms: Math.round(performance.now() - started),
          user_id: auth?.user_id,
          error_code: ctx.status >= 400 ? (ctx.body as { code?: string } | undefined)?.code : undefined,
        },
        'request',
      );
    }
  });
  app.use(router.routes());
  app.use(router.allowedMethods());
  app.use(webApp()); // the web app at / for every path outside /v1 (docs/web.md)
  return { app, routes };
}
