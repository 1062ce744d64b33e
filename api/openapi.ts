// OpenAPI 3.1, generated from the TypeBox schemas of every registered route.
import type { TSchema } from 'typebox';
import { ERROR_STATUS } from '../domain/errors.ts';
import { JOB_LIFECYCLES } from '../domain/jobs.ts';
import { Checkpoint } from '../domain/contracts/checkpoint.ts';
import { ErrorEnvelope } from '../domain/contracts/common.ts';
import { JobFailure } from '../domain/contracts/jobFailure.ts';
import type { RouteDef } from './registry.ts';

export const API_VERSION = '1.0.0-beta';
/** spec: Versioning — changes are listed in the changelog (additive entries included) until v1 is declared stable. */
export const CHANGELOG = 'CHANGELOG.md';

/**
 * Shapes the document names once under `components.schemas` and references with `$ref` wherever an operation embeds
 * them (found by identity: the contract object itself), so generated clients declare each one type, not a copy per use.
 */
const COMPONENTS: ReadonlyArray<readonly [name: string, schema: TSchema]> = [
  ['Checkpoint', Checkpoint],
  ['JobFailure', JobFailure],
];
const component_name = new Map<unknown, string>(COMPONENTS.map(([name, schema]) => [schema, name]));

/** TypeBox's `Type.Record(Type.String(), T)` spells "any key" as this pattern. */
const ANY_KEY_PATTERN = '^.*$';

/**
 * A schema as the document carries it. It drops `$id`/`$schema` (a contract used by several operations would otherwise
 * declare one id twice), references named components, and writes a record of T as `additionalProperties: T`: the
 * any-key `patternProperties` TypeBox emits leaves other keys open, which generators type as `unknown | T`.
 */
function plain(schema: TSchema, root_component: string | null = null): Record<string, unknown> {
  const text = JSON.stringify(schema, (key, value) => {
    const name = component_name.get(value);
    return name && !(key === '' && name === root_component) ? { $ref: `#/components/schemas/${name}` } : value;
  });
  return JSON.parse(text, (key, value) => {
    if (key === '$id' || key === '$schema') return undefined;
    return value && typeof value === 'object' && !Array.isArray(value) ? recordOf(value as Record<string, unknown>) : value;
  }) as Record<string, unknown>;
}

function recordOf(schema: Record<string, unknown>): Record<string, unknown> {
  const patterns = schema.patternProperties as Record<string, unknown> | undefined;
  if (schema.type !== 'object' || !patterns || Object.keys(patterns).join() !== ANY_KEY_PATTERN || schema.properties) return schema;
  const { patternProperties: _, ...rest } = schema;
  return { ...rest, additionalProperties: patterns[ANY_KEY_PATTERN] };
}

/** One operation of the document: its parameters, responses, security and request body. */
function operationOf(route: RouteDef): Record<string, unknown> {
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
  if (route.body && route.body_limit && !responses['413']) {
    responses['413'] = { description: `PAYLOAD_TOO_LARGE: the body is larger than ${route.body_limit.name} (${route.body_limit.bytes} bytes)` };
  }
  if (route.starts_job) {
    const unavailable =
      'TEMPORARILY_UNAVAILABLE: the workflow service (Temporal) cannot be reached; nothing was created or charged, retry after Retry-After seconds';
    const declared = (responses['503'] as { description?: string } | undefined)?.description;
    responses['503'] = { description: declared ? `${declared}, or ${unavailable}` : unavailable };
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
    ...(route.starts_job ? { 'x-crucible-starts-job': true } : {}),
  };
  if (route.auth === 'user') operation.security = [{ bearer: [] }, { session_cookie: [] }];
  else if (route.auth === 'session') operation.security = [{ bearer: [] }, { session_cookie: [] }];
  else operation.security = [];
  // A route that reads JSON and another media type (extract: JSON or multipart) documents both.
  const content: Record<string, unknown> = route.body ? { 'application/json': { schema: plain(route.body) } } : {};
  for (const [type, c] of Object.entries(route.body_content ?? {})) content[type] = { schema: plain(c.schema) };
  if (Object.keys(content).length > 0) operation.requestBody = { required: true, content };
  return operation;
}

export function buildOpenApi(routes: RouteDef[], server_url: string | null): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    paths[route.path] ??= {};
    paths[route.path]![route.method] = operationOf(route);
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
      schemas: { Error: plain(ErrorEnvelope), ...Object.fromEntries(COMPONENTS.map(([name, schema]) => [name, plain(schema, name)])) },
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'An API token (cru.tok_….…) or a user-session JWT' },
        session_cookie: { type: 'apiKey', in: 'cookie', name: 'crucible_session' },
      },
    },
    'x-error-codes': ERROR_STATUS,
    // Per job kind, the statuses after which it never changes: a client stops polling there (clients:generate turns
    // this into the SDK's ENDED_STATUSES and the Python client's). The failure codes are the JobFailure component's.
    'x-job-ended-statuses': Object.fromEntries(Object.entries(JOB_LIFECYCLES).map(([kind, lifecycle]) => [kind, lifecycle.ended])),
  };
}
