// A multipart/form-data body read through busboy (the maintained streaming parser), with its limits enforced while it
// streams: parts, fields and files per request, bytes per part, bytes per request. This adapter only frames and counts;
// what a field means and which error each limit is are the caller's (api/routes/intake/extractIntakeSources.ts).
import busboy from 'busboy';
import type { Context } from 'koa';
import { ServiceError } from '../../domain/errors.ts';
import { refuseRest } from './request.ts';

/** A kept part, in arrival order: a text field the caller kept, or a file of any field name. */
export type MultipartPart =
  | { kind: 'field'; name: string; value: string }
  | { kind: 'file'; filename: string | undefined; mime_type: string; bytes: Uint8Array };

export type MultipartOptions = {
  limits: { files: number; fields: number; parts: number; part_bytes_max: number; total_bytes_max: number; declared_bytes_max: number };
  /**
   * Sees each field as it arrives: true keeps it as a part (counted in the parts' index), false keeps it aside in
   * `fields`; a thrown ServiceError refuses the request.
   */
  field: (name: string, value: string) => boolean;
  refusals: { tooManyParts: () => ServiceError; partTooLarge: (index: number) => ServiceError; tooLarge: () => ServiceError };
};

export type MultipartBody = { parts: MultipartPart[]; fields: Record<string, string> };

const malformed = (error: unknown) =>
  new ServiceError('VALIDATION_FAILED', `the multipart body cannot be read: ${(error as Error).message}`, [{ path: '/', message: 'malformed multipart' }]);

/** One read in progress: what it kept, what it counted, and whether it already ended. */
type Reading = {
  ctx: Context;
  options: MultipartOptions;
  parser: busboy.Busboy;
  body: MultipartBody;
  pending: Array<Promise<void>>;
  total_bytes: number;
  ended: boolean;
};

/** Ends the read with a refusal: stops collecting and refuses the rest of the body (the connection closes after the answer). */
function refuse(reading: Reading, reject: (error: Error) => void, error: Error): void {
  if (reading.ended) return;
  reading.ended = true;
  reading.ctx.req.unpipe(reading.parser);
  refuseRest(reading.ctx);
  reject(error);
}

function count(reading: Reading, fail: (error: Error) => void, bytes: number): void {
  reading.total_bytes += bytes;
  if (reading.total_bytes > reading.options.limits.total_bytes_max) fail(reading.options.refusals.tooLarge());
}

function onField(reading: Reading, fail: (error: Error) => void, name: string, value: string, truncated: boolean): void {
  if (reading.ended) return;
  let keep: boolean;
  try {
    keep = reading.options.field(name, value);
  } catch (error) {
    fail(error as Error);
    return;
  }
  if (!keep) {
    reading.body.fields[name] = value;
    return;
  }
  if (truncated) {
    fail(reading.options.refusals.partTooLarge(reading.body.parts.length));
    return;
  }
  count(reading, fail, Buffer.byteLength(value, 'utf8'));
  reading.body.parts.push({ kind: 'field', name, value });
}

function onFile(reading: Reading, fail: (error: Error) => void, stream: NodeJS.ReadableStream, info: busboy.FileInfo): void {
  if (reading.ended) {
    stream.resume();
    return;
  }
  const index = reading.body.parts.length;
  const part: MultipartPart & { kind: 'file' } = { kind: 'file', filename: info.filename, mime_type: info.mimeType, bytes: new Uint8Array() };
  reading.body.parts.push(part);
  reading.pending.push(
    new Promise<void>((done) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => {
        if (reading.ended) return;
        chunks.push(chunk);
        count(reading, fail, chunk.length);
      });
      stream.on('limit', () => fail(reading.options.refusals.partTooLarge(index)));
      stream.on('end', () => {
        part.bytes = new Uint8Array(Buffer.concat(chunks));
        done();
      });
      stream.on('error', () => done());
    }),
  );
}

/**
 * Streams the request's multipart body. On the first limit hit it stops collecting, refuses the rest of the body and
 * rejects; a client that leaves mid-body rejects with ECONNRESET (logged as 499 by api/app.ts), never waiting forever.
 */
export function readMultipart(ctx: Context, options: MultipartOptions): Promise<MultipartBody> {
  const { limits, refusals } = options;
  if (Number(ctx.get('content-length') || 0) > limits.declared_bytes_max) {
    refuseRest(ctx);
    return Promise.reject(refusals.tooLarge());
  }
  return new Promise<MultipartBody>((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: ctx.req.headers,
        defParamCharset: 'utf8',
        limits: { files: limits.files, fields: limits.fields, parts: limits.parts, fileSize: limits.part_bytes_max, fieldSize: limits.part_bytes_max },
      });
    } catch (error) {
      ctx.req.resume();
      reject(malformed(error));
      return;
    }
    const reading: Reading = { ctx, options, parser, body: { parts: [], fields: {} }, pending: [], total_bytes: 0, ended: false };
    const fail = (error: Error) => refuse(reading, reject, error);
    parser.on('field', (name, value, info) => onField(reading, fail, name, value, info.valueTruncated));
    parser.on('file', (_name, stream, info) => onFile(reading, fail, stream, info));
    for (const event of ['filesLimit', 'fieldsLimit', 'partsLimit'] as const) parser.on(event, () => fail(refusals.tooManyParts()));
    parser.on('error', (error) => fail(malformed(error)));
    parser.on('close', () => {
      if (reading.ended) return;
      Promise.all(reading.pending).then(() => {
        if (!reading.ended) resolve(reading.body);
      }, reject);
    });
    const left = (error?: Error) => {
      if (reading.ended) return;
      reading.ended = true;
      ctx.req.unpipe(parser);
      reject(error ?? Object.assign(new Error('aborted'), { code: 'ECONNRESET' }));
    };
    ctx.req.on('error', left);
    ctx.req.on('close', () => {
      if (!ctx.req.complete) left();
    });
    ctx.req.pipe(parser);
  });
}
