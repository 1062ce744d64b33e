// One registry of routes serves the router, the OpenAPI document and docs/api.md. What a route declares is what the
// router enforces (api/router.ts): credential, scope, path parameters, query, body, idempotency and Temporal, in that order,
// before the handler runs with the validated, typed `input`.
import type { Context } from 'koa';
import type { Static, TSchema } from 'typebox';
import type { Role, Scope } from '../domain/accounts/rules.ts';

/** The caller, read with the credential (api/auth.ts); `roles`: the caller's role per organization, absent when authorizeOrg asks. */
export type Auth =
  | { kind: 'session'; user_id: string; session_id: string; scopes: Scope[]; roles?: Readonly<Record<string, Role>> }
  | { kind: 'token'; user_id: string; token_id: string; org_id: string; scopes: Scope[]; roles?: Readonly<Record<string, Role>> };

/** Whose key space an Idempotency-Key lives in (api/idempotency.ts): what a creating route declares. */
export const IDEMPOTENCY_NAMESPACES = ['organization', 'sponsor_institution', 'billing'] as const;
export type IdempotencyNamespace = (typeof IDEMPOTENCY_NAMESPACES)[number];

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

export type QueryParam = {
  schema: TSchema;
  description?: string;
  required?: boolean;
  /** Filled in when the parameter is absent (documented in the OpenAPI document). */
  default?: unknown;
};

export type RouteAuth = 'public' | 'user' | 'session' | 'signed' | 'webhook';

type StaticQuery<Q> = {
  [K in keyof Q]: Q[K] extends { schema: infer S extends TSchema }
    ? Q[K] extends { required: true } | { default: unknown }
      ? Static<S>
      : Static<S> | undefined
    : never;
};

type StaticParams<P> = { [K in keyof P]: P[K] extends TSchema ? Static<P[K]> : string };

/** What the router hands a handler: everything validated against the route's declarations. */
export type RouteInput<B = unknown, Q = Record<string, unknown>, P = Record<string, string>, A extends RouteAuth = RouteAuth> = {
  body: B;
  query: Q;
  params: P;
  /** The caller: present for `user` and `session` routes (a session for `session` routes), null otherwise. */
  auth: A extends 'user' ? Auth : A extends 'session' ? Extract<Auth, { kind: 'session' }> : null;
};

/** A deployment flag a route needs: while it is off the route answers 503 before anything else (spec: Sponsor API, Billing). */
export type RouteFeature = 'sponsor' | 'billing';

type Common = {
  method: Method;
  /** The deployment flag the route needs (SERVICE_SPONSOR_API_ENABLED, SERVICE_BILLING_ENABLED). */
  feature?: RouteFeature;
  /** OpenAPI style, path parameters named for what they are: /v1/projects/{project_id} */
  path: string;
  operation_id: string;
  summary: string;
  tag: string;
  /** Minimum role in the owning organization; enforced by authorizeOrg/authorizeOwned once the owner is known. */
  role?: Role;
  /** Who may call beyond the role (docs only), e.g. "assigned sponsor administrator". */
  audience?: string;
  /** Refuse query parameters the route does not declare (422); by default they are ignored. */
  query_closed?: boolean;
  /** Creating endpoints: the Idempotency-Key header (checked by the router) and the replay namespace it applies in. */
  idempotency?: 'required' | 'optional';
  idempotency_namespace?: IdempotencyNamespace;
  /** Non-JSON request bodies (multipart, raw): the handler reads these itself. */
  body_content?: Record<string, { schema: TSchema }>;
  /**
   * The JSON body limit for this route and the constant's name, quoted in the 413 (default JSON_BODY_LIMIT_BYTES). A
   * route anyone may call (`public`) that takes a body must declare one: its body is refused before any parsing work.
   */
  body_limit?: { bytes: number; name: string };
  /** A JSON body may be omitted (treated as {}); a body that is sent must still match. */
  body_optional?: boolean;
  /**
   * The handler gets the body's text (size, Content-Type and UTF-8 checked) and parses and checks it itself against
   * `body`, which is still what the OpenAPI document shows: the world validator does it on the compute pool when the
   * body is large (compute/worldValidation.ts).
   */
  body_text?: boolean;
  /**
   * A resource clients poll (spec: a review is polled until done; runs: "poll explicitly"): the router answers with an
   * ETag, honours If-None-Match with 304 and takes `?wait=N` (seconds, at most POLL_WAIT_SECONDS_MAX) to hold the
   * request until the resource changes (api/poll.ts). The path's last `…_id` parameter names the row whose changes
   * are announced (migrations: crucible_notify_change).
   */
  pollable?: boolean;
  /**
   * The route starts a long job (a workflow), named as the 503 names it ("the run"): while Temporal is unreachable it
   * answers 503 TEMPORARILY_UNAVAILABLE after its checks and before anything is written or charged (api/readiness.ts).
   */
  starts_job?: string;
  /**
   * The answer carries a secret, a token or source text: it is sent with `Cache-Control: no-store`, so no browser,
   * proxy or disk cache keeps it (a pollable route keeps its ETag, without the cache).
   */
  no_store?: boolean;
  responses: Record<number, { description: string; schema?: TSchema; content_type?: string }>;
};

/** The stored form of a route: what the router and the documents read. */
export type RouteDef = Common & {
  auth: RouteAuth;
  scope?: Scope;
  body?: TSchema;
  query?: Record<string, QueryParam>;
  params?: Record<string, TSchema>;
  handler: (ctx: Context, input: RouteInput<any, any, any, any>) => Promise<void>;
};

/**
 * Declares a route. The handler's `input` is typed from the declared schemas, so what a handler reads is what the
 * router validated. A `user` route must declare its scope.
 */
export function route<
  A extends RouteAuth,
  B extends TSchema | undefined = undefined,
  Q extends Record<string, QueryParam> = Record<never, QueryParam>,
  P extends Record<string, TSchema> = Record<never, TSchema>,
>(
  def: Common &
    (A extends 'user' ? { auth: A; scope: Scope } : { auth: A; scope?: Scope }) & {
      body?: B;
      query?: Q;
      params?: P;
      handler: (
        ctx: Context,
        input: RouteInput<B extends TSchema ? Static<B> : undefined, StaticQuery<Q>, StaticParams<P> & Record<string, string>, A>,
      ) => Promise<void>;
    },
): RouteDef {
  if (def.auth === 'public' && def.body !== undefined && def.body_limit === undefined) {
    throw new Error(`route ${def.operation_id} is public and takes a body: declare its body_limit`);
  }
  return def as unknown as RouteDef;
}

const path_parameters = new Map<string, readonly string[]>();

/** Names of the path parameters of an OpenAPI-style path (read on every request: each route's list is worked out once). */
export function pathParameters(path: string): readonly string[] {
  let names = path_parameters.get(path);
  if (names === undefined) {
    names = Object.freeze((path.match(/\{([a-z_]+)\}/g) ?? []).map((name) => name.slice(1, -1)));
    // Only route paths are asked about (a fixed set); a stray caller cannot grow the map without bound.
    if (path_parameters.size < 1024) path_parameters.set(path, names);
  }
  return names;
}

export function koaPath(path: string): string {
  return path.replace(/\{([a-z_]+)\}/g, ':$1');
}
