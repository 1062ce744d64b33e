// The router applies what each RouteDef declares, in the order of ARCHITECTURE.md "How a request flows":
// credential (401, before any byte of the body is read) → deployment flag (503) → declared scope (403) → path parameters (404 for a value that
// cannot name anything, without touching the database) → query (422) → JSON body (413, 422) → Idempotency-Key (422)
// → the handler with a typed `input`. Tenant and role checks need the loaded object: authorizeOrg/authorizeOwned.
import Router, { type Layer } from '@koa/router';
import type { Context, Middleware, Next } from 'koa';
import type { TSchema } from 'typebox';
import { type ErrorDetail, PROBLEMS_LISTED_MAX, ServiceError } from '../domain/errors.ts';
import { authenticate, requireScopeOf } from './auth.ts';
import type { AppDeps, State } from './context.ts';
import { isStorableString, JSON_BODY_LIMIT_BYTES, listedSchemaErrors, readJsonBody, readJsonText, schemaErrors } from './http/request.ts';
import { refuseUnstorable } from '../domain/jsonBody.ts';

export { JSON_DEPTH_MAX, JSON_NODES_MAX, unstorableStrings } from '../domain/jsonBody.ts';
import { readIdempotencyKey } from './idempotency.ts';
import { requireTemporal } from './readiness.ts';
import { servePollable, WaitQuery } from './poll.ts';
import { koaPath, pathParameters, type QueryParam, type RouteDef, type RouteFeature } from './registry.ts';

/** A path parameter longer than this cannot name anything we store. */
export const PATH_PARAMETER_LENGTH_MAX = 512;

/** Ids carry a type prefix (domain/ids.ts); a `…_id` parameter of another shape names nothing. */
const ID_SHAPE = /^[a-z]{2,5}_[0-9a-z]{1,60}$/;

function notFound(ctx: Context): ServiceError {
  return new ServiceError('NOT_FOUND', `Nothing was found at ${ctx.path.slice(0, 200)}.`);
}

function readParams(ctx: Context, route: RouteDef): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of pathParameters(route.path)) {
    const value = String(ctx.params[name] ?? '');
    const shaped = value.length > 0 && value.length <= PATH_PARAMETER_LENGTH_MAX && isStorableString(value) && !/[\u0000-\u001f]/.test(value);
    const declared = route.params?.[name];
    const matches = declared ? schemaErrors(declared, value).length === 0 : !name.endsWith('_id') || ID_SHAPE.test(value);
    if (!shaped || !matches) throw notFound(ctx);
    out[name] = value;
  }
  return out;
}

/** Query strings are text: numbers and booleans are converted by the declared schema before it is checked. */
function convert(schema: TSchema, raw: string): unknown {
  const type = (schema as { type?: unknown }).type;
  if ((type === 'integer' || type === 'number') && /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(raw)) return Number(raw);
  if (type === 'boolean' && (raw === 'true' || raw === 'false')) return raw === 'true';
  return raw;
}

function readQuery(ctx: Context, declared: Record<string, QueryParam>, closed: boolean): Record<string, unknown> {
  const details: ErrorDetail[] = [];
  const out: Record<string, unknown> = {};
  // No query string (most reads): only the declared defaults and required names are looked at, without parsing one.
  const query: Record<string, string | string[] | undefined> = ctx.querystring === '' ? {} : ctx.query;
  for (const name of closed ? Object.keys(query) : []) {
    if (!Object.hasOwn(declared, name)) {
      const allowed = Object.keys(declared);
      details.push({
        path: `/query/${name.slice(0, 64)}`,
        message:
          allowed.length > 0 ? `is not a parameter of this operation (allowed: ${allowed.join(', ')})` : 'is not a parameter of this operation (it takes none)',
      });
    }
  }
  for (const [name, param] of Object.entries(declared)) {
    const raw = query[name];
    if (raw === undefined) {
      if (param.required) details.push({ path: `/query/${name}`, message: 'is required' });
      else if (param.default !== undefined) out[name] = param.default;
      continue;
    }
    if (Array.isArray(raw)) {
      details.push({ path: `/query/${name}`, message: 'must be given once' });
      continue;
    }
    if (!isStorableString(raw)) {
      details.push({ path: `/query/${name}`, message: 'contains a NUL character or a lone surrogate' });
      continue;
    }
    const value = convert(param.schema, raw);
    const errors = schemaErrors(param.schema, value);
    if (errors.length > 0) {
      details.push({ path: `/query/${name}`, message: errors[0]!.message });
      continue;
    }
    out[name] = value;
  }
  if (details.length > 0) {
    const first = details[0]!;
    throw new ServiceError(
      'VALIDATION_FAILED',
      `Invalid query: ${first.path} ${first.message}${details.length > 1 ? ` (and ${details.length - 1} more)` : ''}.`,
      details,
    );
  }
  return out;
}

function isMultipart(ctx: Context): boolean {
  return (ctx.get('content-type') || '').toLowerCase().startsWith('multipart/');
}

async function readBody(ctx: Context, route: RouteDef): Promise<unknown> {
  if (!route.body) return undefined;
  // A route that parses and checks its own body (off the event loop when large) gets the text.
  if (route.body_text) return readBodyText(ctx, route);
  // A route that also takes multipart reads that stream itself (intake extraction).
  if (route.body_content && isMultipart(ctx) && Object.keys(route.body_content).some((type) => type.startsWith('multipart/'))) return undefined;
  let value = await readJsonBody(ctx, route.body_limit?.bytes ?? JSON_BODY_LIMIT_BYTES, route.body_limit?.name);
  if (value === undefined) {
    if (!route.body_optional) {
      throw new ServiceError('VALIDATION_FAILED', 'The request body is required; send a JSON object.', [{ path: '/', message: 'is required' }]);
    }
    value = {};
  }
  refuseUnstorable(value, 'request body');
  const { details, not_listed } = listedSchemaErrors(route.body, value, PROBLEMS_LISTED_MAX);
  if (details.length > 0) {
    const first = details[0]!;
    const more = details.length - 1 + not_listed;
    const unlisted = not_listed > 0 ? `; the first ${details.length} are listed, ${not_listed} more are not` : '';
    throw new ServiceError(
      'VALIDATION_FAILED',
      `The request body is invalid: ${first.path} ${first.message}${more > 0 ? ` (and ${more} more${unlisted})` : ''}.`,
      not_listed > 0 ? [...details, { message: `${not_listed} more problems not listed`, problems_not_listed: not_listed }] : details,
    );
  }
  return value;
}

async function readBodyText(ctx: Context, route: RouteDef): Promise<string> {
  const text = await readJsonText(ctx, route.body_limit?.bytes ?? JSON_BODY_LIMIT_BYTES, route.body_limit?.name);
  if (text === undefined)
    throw new ServiceError('VALIDATION_FAILED', 'The request body is required; send a JSON object.', [{ path: '/', message: 'is required' }]);
  return text;
}

/** A browser sends Origin (and Sec-Fetch-Site) on state-changing requests; a cookie alone never authorizes one cross-site. */
function sameOrigin(deps: AppDeps, ctx: Context): boolean {
  const site = ctx.get('sec-fetch-site');
  if (site) return site === 'same-origin' || site === 'none';
  const origin = ctx.get('origin');
  if (!origin) return false;
  const own = [`${ctx.protocol}://${ctx.host}`];
  if (deps.config.public_url) own.push(new URL(deps.config.public_url).origin);
  return own.includes(origin);
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * spec: "While it is off, every sponsor endpoint returns SPONSOR_NOT_CONFIGURED"; billing likewise. Checked after the
 * credential (spec: Authentication, "Unauthenticated requests return 401"), so a flag never answers an anonymous caller.
 */
function requireFeature(deps: AppDeps, feature: RouteFeature | undefined): void {
  if (feature === 'sponsor' && !deps.config.sponsor_api_enabled) {
    throw new ServiceError('SPONSOR_NOT_CONFIGURED', 'The sponsor API is not enabled on this deployment (SERVICE_SPONSOR_API_ENABLED).');
  }
  if (feature === 'billing' && !deps.config.billing_enabled) {
    throw new ServiceError('BILLING_NOT_CONFIGURED', 'Billing is not enabled on this deployment (SERVICE_BILLING_ENABLED).');
  }
}

/** Wraps a route's handler in the checks it declares. */
export function enforce(deps: AppDeps, route: RouteDef) {
  return async (ctx: Context): Promise<void> => {
    const state = ctx.state as State;
    state.route = route.path;
    state.route_def = route;
    if (route.no_store) ctx.set('Cache-Control', 'no-store');
    let auth: State['auth'] = null;
    if (route.auth === 'user' || route.auth === 'session') {
      const found = await authenticate(deps, ctx);
      if (!found) {
        throw new ServiceError(
          'UNAUTHENTICATED',
          'This operation needs a credential. Send "Authorization: Bearer <API token or session token>", or sign in with POST /v1/auth/sessions.',
        );
      }
      state.auth = found.auth;
      auth = found.auth;
      requireFeature(deps, route.feature);
      if (found.source === 'cookie' && !SAFE_METHODS.has(ctx.method) && !sameOrigin(deps, ctx)) {
        throw new ServiceError(
          'FORBIDDEN',
          'A request authenticated by the session cookie must come from this site (Origin or Sec-Fetch-Site); scripts should send "Authorization: Bearer <token>" instead.',
          { reason: 'cross_site_cookie' },
        );
      }
      if (route.auth === 'session' && auth.kind !== 'session') {
        throw new ServiceError('FORBIDDEN', 'This operation needs a signed-in user session; API tokens cannot perform it.', { reason: 'session_required' });
      }
      if (route.scope) requireScopeOf(auth, route.scope);
    } else {
      // Public, signed and webhook routes take no credential: the flag is the first answer (the payment webhook).
      requireFeature(deps, route.feature);
    }
    const params = readParams(ctx, route);
    const query = readQuery(ctx, route.query ?? {}, route.query_closed === true);
    const body = await readBody(ctx, route);
    if (route.idempotency) readIdempotencyKey(ctx, route.idempotency === 'required');
    if (route.starts_job) await requireTemporal(deps, route.starts_job);
    if (route.pollable) {
      const { wait, ...own } = query as { wait?: number };
      await servePollable(deps, ctx, route, wait ?? 0, () => route.handler(ctx, { body, query: own, params, auth }));
      return;
    }
    await route.handler(ctx, { body, query, params, auth });
  };
}

/** A pollable GET takes `wait` beside its own query parameters (documented like any other). */
export function withPolling(route: RouteDef): RouteDef {
  if (!route.pollable || route.method !== 'get' || route.query?.wait) return route;
  return { ...route, query: { ...route.query, ...WaitQuery } };
}

export function buildRouter(deps: AppDeps, routes: RouteDef[]): Router {
  const router = new Router();
  for (const route of routes) router[route.method](koaPath(route.path), enforce(deps, route));
  return router;
}

/** A route's path cut into segments: a literal (lower case: the router's patterns ignore case) or null for a parameter. */
function segmentsOf(path: string): Array<string | null> {
  return path
    .split('/')
    .slice(1)
    .map((segment) => (segment.startsWith(':') ? null : segment.toLowerCase()));
}

/** A request path's segments as a route's pattern sees them: one trailing slash is allowed and ignored. */
function requestSegments(path: string): string[] {
  const segments = path.split('/');
  segments.shift();
  if (segments.length > 1 && segments[segments.length - 1] === '') segments.pop();
  return segments;
}

type Indexed = { layer: Layer; literals: Array<string | null> };

/**
 * Dispatches a request to its route without testing every route's pattern (@koa/router tests all of them, about 80, on
 * every request). Routes are indexed by their segment count and first two literal segments; a request tries only the
 * routes of its own index entry whose literal segments it has, in the router's order, and the first whose own pattern
 * matches path and method runs exactly as @koa/router runs it (the layer's captures and decoded params; the handlers never
 * call next, so the first route that matches is the one that answers). A request none of them takes (404, 405, 501,
 * OPTIONS) goes to @koa/router itself, which answers as before.
 */
export function indexedRoutes(router: Router): Middleware {
  const routed = router.routes() as unknown as Middleware;
  // A layer without methods is middleware the router runs on every match: the index would skip it, so it is not used.
  if (router.stack.some((layer) => layer.methods.length === 0 || typeof layer.path !== 'string')) return routed;
  const index = new Map<string, Indexed[]>();
  const loose: Indexed[] = [];
  for (const layer of router.stack) {
    const literals = segmentsOf(layer.path as string);
    const [first, second] = literals;
    if (first == null || second == null) loose.push({ layer, literals });
    else {
      const key = `${literals.length}/${first}/${second}`;
      index.set(key, [...(index.get(key) ?? []), { layer, literals }]);
    }
  }
  // Routes with a parameter among their first two segments may match any request: the index is bypassed while any exist.
  if (loose.length > 0) return routed;
  const dispatch = (ctx: Context, next: Next) => {
    const path = ctx.path;
    const segments = requestSegments(path);
    const candidates = index.get(`${segments.length}/${segments[0]?.toLowerCase()}/${segments[1]?.toLowerCase()}`);
    const layer = candidates && firstMatch(candidates, segments, path, ctx.method);
    if (!layer) return routed(ctx, next);
    return runLayer(router, layer, ctx, path, next);
  };
  // As @koa/router's own middleware: the router it dispatches for (the served routes are read from it).
  return Object.assign(dispatch, { router });
}

function firstMatch(candidates: Indexed[], segments: string[], path: string, method: string): Layer | undefined {
  for (const { layer, literals } of candidates) {
    if (!literals.every((literal, at) => literal === null || literal === segments[at]!.toLowerCase())) continue;
    if (layer.methods.includes(method) && layer.match(path)) return layer;
  }
  return undefined;
}

/** What @koa/router sets before it runs a matched route (its `routes()` middleware and the layer's own step). */
function runLayer(router: Router, layer: Layer, ctx: Context, path: string, next: Next): Promise<unknown> {
  const routed = ctx as any; // the fields @koa/router adds to Koa's context
  routed.router = router;
  routed.routeMatched = true;
  routed.captures = layer.captures(path);
  routed.request.params = layer.params(path, routed.captures ?? [], routed.params);
  routed.params = routed.request.params;
  routed.routerPath = layer.path;
  routed.routerName = layer.name || undefined;
  routed._matchedRoute = layer.path;
  let at = 0;
  const step = async (): Promise<unknown> => {
    const middleware = layer.stack[at++];
    return middleware ? middleware(routed, step) : next();
  };
  return step();
}
