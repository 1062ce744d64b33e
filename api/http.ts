// Request helpers shared by every route: body reading with limits, validation against TypeBox schemas, paging.
import type { Context } from 'koa';
import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { ServiceError, type ErrorDetail } from '../domain/errors.ts';

/** NUL cannot be stored in PostgreSQL text; a lone UTF-16 surrogate cannot be encoded as UTF-8. */
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export function isStorableString(value: string): boolean {
  return !UNSTORABLE.test(value);
}

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

export async function readJsonBody(ctx: Context, limit_bytes = JSON_BODY_LIMIT_BYTES, limit_name = 'JSON_BODY_LIMIT_BYTES'): Promise<unknown> {
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
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ServiceError('VALIDATION_FAILED', 'The request body is not valid JSON; fix the syntax and resend.', [
      { path: '', message: (error as Error).message },
    ]);
  }
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
  const check = validator(schema);
  if (check.Check(value)) return [];
  const details: ErrorDetail[] = [];
  const seen = new Set<string>();
  for (const error of check.Errors(value) as Iterable<{ instancePath: string; message: string; keyword: string; params: Record<string, unknown> }>) {
    if (error.keyword === 'boolean') continue;
    let path = error.instancePath || '';
    let message = error.message;
    if (error.keyword === 'required') {
      const missing = (error.params.requiredProperties as string[]) ?? [];
      for (const name of missing) {
        const key = `${path}/${name}|required`;
        if (!seen.has(key)) {
          seen.add(key);
          details.push({ path: `${path}/${name}`, message: 'is required' });
        }
      }
      continue;
    }
    if (error.keyword === 'additionalProperties') {
      for (const name of (error.params.additionalProperties as string[]) ?? []) {
        details.push({ path: `${path}/${name}`, message: 'is not an allowed field; remove it' });
      }
      continue;
    }
    if (path === '') path = '/';
    const key = `${path}|${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (error.keyword === 'anyOf' || error.keyword === 'oneOf') message = 'does not match any allowed shape';
    details.push({ path, message });
  }
  return details;
}

/** Fetch limit+1 rows; returns the page and next_offset (null at the end). */
export function page<T>(rows: T[], offset: number, limit: number): { data: T[]; next_offset: number | null } {
  return { data: rows.slice(0, limit), next_offset: rows.length > limit ? offset + limit : null };
}

export { iso } from '../domain/time.ts';
