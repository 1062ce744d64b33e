// Request helpers shared by every route: body reading with limits, validation against TypeBox schemas, paging.
import type { Context } from 'koa';
import type { TSchema, Static } from 'typebox';
import { Compile } from 'typebox/compile';
import { ServiceError, type ErrorDetail } from '../domain/errors.ts';

/** JSON bodies are limited to 1 MiB unless an endpoint says otherwise (issue 2 item 3). */
export const JSON_BODY_LIMIT_BYTES = 1024 * 1024;

export async function readRawBody(ctx: Context, limit_bytes: number): Promise<Buffer> {
  const declared = Number(ctx.get('content-length') || 0);
  if (declared > limit_bytes) {
    ctx.req.resume();
    throw new ServiceError('PAYLOAD_TOO_LARGE', `The request body is larger than the limit of ${limit_bytes} bytes; send a smaller body.`, {
      limit_bytes,
    });
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    size += (chunk as Buffer).length;
    if (size > limit_bytes) {
      ctx.req.resume();
      throw new ServiceError('PAYLOAD_TOO_LARGE', `The request body is larger than the limit of ${limit_bytes} bytes; send a smaller body.`, {
        limit_bytes,
      });
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

export async function readJsonBody(ctx: Context, limit_bytes = JSON_BODY_LIMIT_BYTES): Promise<unknown> {
  const raw = await readRawBody(ctx, limit_bytes);
  if (raw.length === 0) return undefined;
  const type = ctx.get('content-type');
  if (type && !/^application\/([a-z.+-]*\+)?json\b/i.test(type)) {
    throw new ServiceError('VALIDATION_FAILED', `Send the body as JSON with Content-Type: application/json (got ${type.split(';')[0]}).`, [
      { path: '', message: 'unsupported content type' },
    ]);
  }
  try {
    return JSON.parse(raw.toString('utf8'));
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

export function validate<S extends TSchema>(schema: S, value: unknown, what = 'request body'): Static<S> {
  if (value === undefined) {
    throw new ServiceError('VALIDATION_FAILED', `The ${what} is required; send a JSON object.`, [{ path: '/', message: 'is required' }]);
  }
  const details = schemaErrors(schema, value);
  if (details.length > 0) {
    const first = details[0]!;
    throw new ServiceError('VALIDATION_FAILED', `The ${what} is invalid: ${first.path} ${first.message}${details.length > 1 ? ` (and ${details.length - 1} more)` : ''}.`, details);
  }
  return value as Static<S>;
}

export const PAGE_LIMIT_MAX = 200;
export const PAGE_LIMIT_DEFAULT = 50;
/** Offsets beyond this are refused: deep paging stays bounded. */
export const PAGE_OFFSET_MAX = 1_000_000;

/** One paging shape everywhere: offset, limit (1–200), next_offset. */
export function paging(ctx: Context): { offset: number; limit: number } {
  const details: ErrorDetail[] = [];
  const read = (name: string, fallback: number, min: number, max: number) => {
    const raw = ctx.query[name];
    if (raw === undefined) return fallback;
    const value = Number(Array.isArray(raw) ? raw[0] : raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      details.push({ path: `/query/${name}`, message: `must be an integer from ${min} to ${max}` });
      return fallback;
    }
    return value;
  };
  const offset = read('offset', 0, 0, PAGE_OFFSET_MAX);
  const limit = read('limit', PAGE_LIMIT_DEFAULT, 1, PAGE_LIMIT_MAX);
  if (details.length > 0) throw new ServiceError('VALIDATION_FAILED', `Invalid paging: ${details.map((d) => `${d.path} ${d.message}`).join('; ')}.`, details);
  return { offset, limit };
}

/** Fetch limit+1 rows; returns the page and next_offset (null at the end). */
export function page<T>(rows: T[], offset: number, limit: number): { data: T[]; next_offset: number | null } {
  return { data: rows.slice(0, limit), next_offset: rows.length > limit ? offset + limit : null };
}

export { iso } from '../domain/time.ts';
