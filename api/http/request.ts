// Request helpers shared by every route: body reading with limits, validation against TypeBox schemas, paging.
import type { Context } from 'koa';
import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { ServiceError, type ErrorDetail } from '../../domain/errors.ts';
import { parseJsonBody } from '../../domain/jsonBody.ts';

export { isStorableString } from '../../domain/jsonBody.ts';

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/** The text of UTF-8 bytes, or null when they are not UTF-8 (never a silent U+FFFD in place of the bytes sent). */
export function decodeUtf8(bytes: Uint8Array): string | null {
  try {
    return STRICT_UTF8.decode(bytes);
  } catch {
    return null;
  }
}

/** JSON bodies are limited to 1 MiB unless an endpoint says otherwise. */
export const JSON_BODY_LIMIT_BYTES = 1024 * 1024;

function tooLarge(limit_bytes: number, limit_name: string): ServiceError {
  return new ServiceError('PAYLOAD_TOO_LARGE', `The request body is larger than ${limit_name} (${limit_bytes} bytes); send a smaller body.`, {
    limit: limit_name,
    limit_bytes,
  });
}

/**
 * A refused body may still be arriving. One with a declared length is drained, so the connection stays usable; a chunked
 * one has no length to skip, so the answer says `Connection: close` and the connection ends after it (the next request
 * never lands in the middle of the old body).
 */
export function refuseRest(ctx: Context): void {
  if (!ctx.get('content-length')) ctx.set('Connection', 'close');
  ctx.req.resume();
}

export async function readRawBody(ctx: Context, limit_bytes: number, limit_name = 'JSON_BODY_LIMIT_BYTES'): Promise<Buffer> {
  const declared = Number(ctx.get('content-length') || 0);
  if (declared > limit_bytes) {
    refuseRest(ctx);
    throw tooLarge(limit_bytes, limit_name);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    size += (chunk as Buffer).length;
    if (size > limit_bytes) {
      refuseRest(ctx);
      throw tooLarge(limit_bytes, limit_name);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** The text of a JSON body (undefined when empty): its size, Content-Type and UTF-8 checked, not yet parsed. */
export async function readJsonText(ctx: Context, limit_bytes = JSON_BODY_LIMIT_BYTES, limit_name = 'JSON_BODY_LIMIT_BYTES'): Promise<string | undefined> {
  const raw = await readRawBody(ctx, limit_bytes, limit_name);
  if (raw.length === 0) return undefined;
  const type = ctx.get('content-type');
  if (type && !/^application\/([a-z.+-]*\+)?json\b/i.test(type)) {
    throw new ServiceError('VALIDATION_FAILED', `Send the body as JSON with Content-Type: application/json (got ${type.split(';')[0]}).`, [
      { path: '', message: 'unsupported content type' },
    ]);
  }
  const text = decodeUtf8(raw);
  if (text === null) {
    throw new ServiceError('VALIDATION_FAILED', 'The request body is not valid UTF-8; send the JSON encoded as UTF-8.', [
      { path: '/', message: 'holds bytes that are not UTF-8' },
    ]);
  }
  return text;
}

export async function readJsonBody(ctx: Context, limit_bytes = JSON_BODY_LIMIT_BYTES, limit_name = 'JSON_BODY_LIMIT_BYTES'): Promise<unknown> {
  const text = await readJsonText(ctx, limit_bytes, limit_name);
  return text === undefined ? undefined : parseJsonBody(text);
}

const compiled = new WeakMap<TSchema, ReturnType<typeof Compile>>();

function validator(schema: TSchema) {
  let check = compiled.get(schema);
  if (!check) {
    check = Compile(schema);
    compiled.set(schema, check);
  }
  return check;
}

/** One entry per bad field in `details`; the message says what to fix. */
export function schemaErrors(schema: TSchema, value: unknown): ErrorDetail[] {
  return listedSchemaErrors(schema, value, Number.POSITIVE_INFINITY).details;
}

const UNKNOWN_FIELD = 'is not an allowed field; remove it';

/**
 * The first `listed_max` entries of schemaErrors, and how many more there are: the rest are counted, never built (a
 * body of 90,000 unknown fields is answered with `listed_max` of them and the count). TypeBox stops after
 * `Settings.maxErrors` (8) errors and reports each unknown field of a closed object as a `false` schema, without the
 * summary it gives for fewer: the unknown fields of the top-level object are therefore listed and counted here.
 */
export function listedSchemaErrors(schema: TSchema, value: unknown, listed_max: number): { details: ErrorDetail[]; not_listed: number } {
  const check = validator(schema);
  if (check.Check(value)) return { details: [], not_listed: 0 };
  const details: ErrorDetail[] = [];
  let not_listed = 0;
  const seen = new Set<string>();
  const add = (path: string, message: string, shown = message) => {
    const key = `${path}|${message}`;
    if (seen.has(key)) return;
    seen.add(key);
    if (details.length < listed_max) details.push({ path, message: shown });
    else not_listed++;
  };
  for (const error of check.Errors(value) as Iterable<{
    instancePath: string;
    schemaPath: string;
    message: string;
    keyword: string;
    params: Record<string, unknown>;
  }>) {
    const path = error.instancePath || '';
    if (error.keyword === 'boolean') {
      if (error.schemaPath.endsWith('/additionalProperties')) add(path, UNKNOWN_FIELD);
      continue;
    }
    if (error.keyword === 'required') {
      for (const name of (error.params.requiredProperties as string[]) ?? []) add(`${path}/${name}`, 'is required');
      continue;
    }
    if (error.keyword === 'additionalProperties') {
      for (const name of (error.params.additionalProperties as string[]) ?? []) add(`${path}/${escapePointerSegment(name)}`, UNKNOWN_FIELD);
      continue;
    }
    add(path || '/', error.message, error.keyword === 'anyOf' || error.keyword === 'oneOf' ? 'does not match any allowed shape' : error.message);
  }
  const closed = schema as { type?: unknown; additionalProperties?: unknown; properties?: Record<string, unknown>; patternProperties?: unknown };
  const body: unknown = value;
  if (closed.type === 'object' && closed.additionalProperties === false && !closed.patternProperties && isPlainObject(body)) {
    for (const name in body)
      if (Object.hasOwn(body, name) && !Object.hasOwn(closed.properties ?? {}, name)) add(`/${escapePointerSegment(name)}`, UNKNOWN_FIELD);
  }
  if (details.length === 0) details.push({ path: '/', message: 'does not match the expected shape' });
  return { details, not_listed };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function escapePointerSegment(name: string): string {
  return name.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Fetch limit+1 rows; returns the page and next_offset (null at the end). */
export function page<T>(rows: T[], offset: number, limit: number): { data: T[]; next_offset: number | null } {
  return { data: rows.slice(0, limit), next_offset: rows.length > limit ? offset + limit : null };
}

export { iso } from '../../domain/time.ts';
