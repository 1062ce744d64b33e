// One registry of routes serves both the router and the OpenAPI document, so the document lists exactly what is served.
import type { Context } from 'koa';
import type { TSchema } from 'typebox';
import type { Scope } from '../domain/accounts/rules.ts';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

export type RouteDef = {
  method: Method;
  /** OpenAPI style: /v1/projects/{id} */
  path: string;
  operation_id: string;
  summary: string;
  tag: string;
  /** public: no token; user: session or token; session: a signed-in user session only; signed: signed link; webhook: provider signature */
  auth: 'public' | 'user' | 'session' | 'signed' | 'webhook';
  scope?: Scope;
  /** Minimum role and who may call, for docs/api.md. */
  role?: string;
  idempotency?: 'required' | 'optional';
  body?: TSchema;
  /** Non-JSON request bodies (multipart, raw). */
  body_content?: Record<string, { schema: TSchema }>;
  query?: Record<string, { schema: TSchema; description?: string; required?: boolean }>;
  responses: Record<number, { description: string; schema?: TSchema; content_type?: string }>;
  handler: (ctx: Context) => Promise<void>;
};

export function koaPath(path: string): string {
  return path.replace(/\{([a-z_]+)\}/g, ':$1');
}
