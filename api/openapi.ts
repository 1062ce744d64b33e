// OpenAPI 3.1, generated from the TypeBox schemas of every registered route.
import type { TSchema } from 'typebox';
import { ERROR_STATUS } from '../domain/errors.ts';
import { ErrorEnvelope } from '../domain/contracts/common.ts';
import type { RouteDef } from './registry.ts';

export const API_VERSION = '1.0.0-beta';
/** spec: Versioning — changes are listed in the changelog (additive entries included) until v1 is declared stable. */
export const CHANGELOG = 'CHANGELOG.md';

/** Inlined schemas drop `$id`/`$schema`: a contract used by several operations would otherwise declare one id twice. */
function plain(schema: TSchema): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema), (key, value) => (key === '$id' || key === '$schema' ? undefined : value)) as Record<string, unknown>;
}

export function buildOpenApi(routes: RouteDef[], server_url: string | null): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const parameters: unknown[] = [];
    for (const name of route.path.match(/\{([a-z_]+)\}/g) ?? []) {
      parameters.push({ name: name.slice(1, -1), in: 'path', required: true, schema: { type: 'string' } });
    }
    for (const [name, q] of Object.entries(route.query ?? {})) {
      parameters.push({ name, in: 'query', required: q.required ?? false, description: q.description, schema: plain(q.schema) });
    }
    if (route.idempotency) {
      parameters.push({
        name: 'Idempotency-Key',
        in: 'header',
        required: route.idempotency === 'required',
        schema: { type: 'string', minLength: 1, maxLength: 255 },
        description: 'Retry with the same key and body after an ambiguous failure; a replay returns the original response.',
      });
    }
    const responses: Record<string, unknown> = {};
    for (const [status, r] of Object.entries(route.responses)) {
      responses[status] = r.schema
        ? { description: r.description, content: { [r.content_type ?? 'application/json']: { schema: plain(r.schema) } } }
        : { description: r.description };
    }
    responses.default = { description: 'Error envelope', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
    const operation: Record<string, unknown> = {
      operationId: route.operation_id,
      summary: route.summary,
      tags: [route.tag],
      parameters,
      responses,
      'x-crucible-auth': route.auth,
      ...(route.scope ? { 'x-crucible-scope': route.scope } : {}),
      ...(route.role ? { 'x-crucible-role': route.role } : {}),
    };
    if (route.auth === 'user') operation.security = [{ bearer: [] }, { session_cookie: [] }];
    else if (route.auth === 'session') operation.security = [{ bearer: [] }, { session_cookie: [] }];
    else operation.security = [];
    if (route.body) operation.requestBody = { required: true, content: { 'application/json': { schema: plain(route.body) } } };
    if (route.body_content) {
      operation.requestBody = {
        required: true,
        content: Object.fromEntries(Object.entries(route.body_content).map(([type, c]) => [type, { schema: plain(c.schema) }])),
      };
    }
    paths[route.path] ??= {};
    paths[route.path]![route.method] = operation;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Crucible API',
      version: API_VERSION,
      description: `Evaluation service for early health-technology ideas. Beta: breaking changes are listed in the changelog (${CHANGELOG}) until v1 is stable; additive changes are listed there too.`,
      'x-changelog': CHANGELOG,
    },
    servers: server_url ? [{ url: server_url }] : [],
    paths,
    components: {
      schemas: { Error: plain(ErrorEnvelope) },
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'An API token (cru.tok_….…) or a user-session JWT' },
        session_cookie: { type: 'apiKey', in: 'cookie', name: 'crucible_session' },
      },
    },
    'x-error-codes': ERROR_STATUS,
  };
}
