// The indexed dispatch (api/router.ts indexedRoutes) answers every request as @koa/router does: the same route, the
// same decoded parameters, and the same 404, 405 (with Allow), 501 and OPTIONS answers, for the service's own routes.
import { randomBytes } from 'node:crypto';
import { request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Router from '@koa/router';
import Koa, { type Middleware } from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../api/app.ts';
import { koaPath } from '../../api/registry.ts';
import { indexedRoutes } from '../../api/router.ts';
import { loadConfig } from '../../runtime/config.ts';
import { createLogger } from '../../runtime/logger.ts';
import type { Db } from '../../store/db.ts';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'PROPFIND'];

function routeTable(): Array<{ method: string; path: string }> {
  const config = loadConfig({ SERVICE_MASTER_KEY: randomBytes(32).toString('base64'), CRUCIBLE_SESSION_SECRET: randomBytes(32).toString('base64') });
  const { routes } = createApp({ config, db: {} as Db, logger: createLogger({ level: 'silent' }), temporal: null });
  return routes.map((route) => ({ method: route.method, path: koaPath(route.path) }));
}

/** A Koa app over a router of the service's routes whose handlers answer with their route and parameters. */
function serve(dispatch: (router: Router) => Middleware, fallbacks = { count: 0 }): Promise<Server> {
  const router = new Router();
  for (const { method, path } of routeTable()) {
    (router as unknown as Record<string, (path: string, handler: Middleware) => void>)[method]!(path, (ctx) => {
      ctx.set('X-Route', `${method} ${path}`);
      ctx.body = { route: `${method} ${path}`, params: ctx.params };
    });
  }
  // Counts the requests the router's own dispatch sees.
  const routes = router.routes.bind(router);
  router.routes = () => {
    const routed = routes();
    return Object.assign((ctx: never, next: never) => {
      fallbacks.count++;
      return routed(ctx, next);
    }, routed);
  };
  const app = new Koa();
  app.use(dispatch(router));
  app.use(router.allowedMethods());
  app.use((ctx) => {
    ctx.body = 'not routed';
  });
  const server = app.listen(0, '127.0.0.1');
  return new Promise((resolve) => server.once('listening', () => resolve(server)));
}

function ask(server: Server, method: string, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const call = httpRequest({ host: '127.0.0.1', port: (server.address() as AddressInfo).port, method, path }, (response) => {
      let body = '';
      response.on('data', (chunk) => (body += chunk));
      response.on('end', () => resolve(JSON.stringify([response.statusCode, response.headers.allow ?? null, response.headers['x-route'] ?? null, body])));
    });
    call.on('error', reject);
    call.end();
  });
}

/** Request paths around each route: filled, encoded, with and without a trailing slash, in other case, cut and extended. */
function pathsToTry(): string[] {
  const values = ['prj_abc123', 'a%2Fb', '%E2%82%AC', '%E0%A4%A'];
  const paths = new Set<string>(['/', '/v1', '/v1/', '/v2/projects', '//v1/projects', '/v1//projects', '/favicon.ico']);
  for (const { path } of routeTable()) {
    for (const value of values) {
      const filled = path.replace(/:[a-z_]+/g, value);
      for (const variant of [filled, `${filled}/`, `${filled}//`, filled.toUpperCase(), `${filled}/extra`, filled.replace(/\/[^/]+$/, '')]) paths.add(variant);
    }
  }
  return [...paths];
}

describe('indexed route dispatch', () => {
  let plain: Server;
  let indexed: Server;
  const fallbacks = { count: 0 };
  beforeAll(async () => {
    plain = await serve((router) => router.routes() as unknown as Middleware);
    indexed = await serve(indexedRoutes, fallbacks);
  });
  afterAll(() => {
    plain.close();
    indexed.close();
  });

  it('answers every method on paths around every route as @koa/router does', async () => {
    const paths = pathsToTry();
    expect(paths.length).toBeGreaterThan(500);
    let routed = 0;
    for (const path of paths) {
      for (const method of METHODS) {
        const [expected, actual] = await Promise.all([ask(plain, method, path), ask(indexed, method, path)]);
        expect(actual, `${method} ${path}`).toBe(expected);
        if ((JSON.parse(expected) as unknown[])[2] !== null) routed++;
      }
    }
    // The comparison covered routed requests, not only refusals, and the index (not @koa/router) routed every one.
    expect(routed).toBeGreaterThan(300);
    expect(fallbacks.count).toBe(paths.length * METHODS.length - routed);
  });
});
