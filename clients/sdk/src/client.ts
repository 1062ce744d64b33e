// @crucible/sdk/client: the typed client alone (no bundled resources), for a browser page or any bundler: calls typed
// by path from the served OpenAPI document (src/generated), the error classes and unwrap. index.ts adds the resources.
import type { Operations } from './generated/operations.gen.ts';

export type * from './generated/types.gen.ts';
export type { Operations } from './generated/operations.gen.ts';

export const SDK_VERSION = '0.1.0';

/** The service's error envelope (spec: Errors). */
export type ErrorBody = { code: string; message: string; details: unknown; request_id: string };

/** An answer from the service that is not a success: `status` and the envelope's `code`, `message`, `details`, `request_id`. */
export class CrucibleApiError extends Error {
  override readonly name = 'CrucibleApiError';
  readonly status: number;
  readonly code: string;
  readonly details: unknown;
  readonly request_id: string;
  /** The whole error body as sent. */
  readonly body: ErrorBody;
  /** The answer's headers (Retry-After on a 429 or 503, say), when the error came from an answer. */
  readonly headers: Headers | null;
  constructor(status: number, body: ErrorBody, headers: Headers | null = null) {
    super(`${body.code}: ${body.message}`);
    this.status = status;
    this.headers = headers;
    this.code = body.code;
    this.details = body.details;
    this.request_id = body.request_id;
    this.body = body;
  }
}

/** The request never got an answer (refused connection, DNS, reset, abort). Not an API error (spec: Errors). */
export class CrucibleNetworkError extends Error {
  override readonly name = 'CrucibleNetworkError';
  readonly method: string;
  readonly url: string;
  constructor(method: string, url: string, cause: unknown) {
    super(`${method} ${url} failed before an answer: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.method = method;
    this.url = url;
  }
}

type Method = keyof Operations;
type Data<M extends Method, P extends keyof Operations[M]> = Operations[M][P] extends { data: infer D } ? D : never;
type Responses<M extends Method, P extends keyof Operations[M]> = Operations[M][P] extends { responses: infer R } ? R : never;
/** The body of the operation's success answers (every 2xx the document declares). */
export type SuccessBody<M extends Method, P extends keyof Operations[M]> = Responses<M, P>[keyof Responses<M, P>];

export type CallOptions = {
  /** The Idempotency-Key header for creating calls: retry an ambiguous failure with the same key and body. */
  idempotencyKey?: string;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** How to read a success body; by default JSON when the answer says so, text otherwise. */
  parseAs?: 'json' | 'text' | 'bytes';
};

type RequestParts<D> = { [K in keyof D as K extends 'url' | 'headers' ? never : D[K] extends never | undefined ? never : K]: D[K] };
type RequiredKeys<T> = { [K in keyof T]-?: Record<never, never> extends Pick<T, K> ? never : K }[keyof T];
/** A body may also be FormData, sent as multipart (for /v1/intakes/extract with files: the document lists both). */
type WithForm<R> = 'body' extends keyof R ? Omit<R, 'body'> & { body: R['body' & keyof R] | FormData } : R;
type Options<D> = WithForm<RequestParts<D>> & CallOptions;
type Args<D> = RequiredKeys<RequestParts<D>> extends never ? [options?: Options<D>] : [options: Options<D>];

export type ApiSuccess<T> = { ok: true; status: number; data: T; headers: Headers; request_id: string | null };
export type ApiFailure = { ok: false; status: number; error: ErrorBody; headers: Headers; request_id: string | null };
export type ApiResult<T> = ApiSuccess<T> | ApiFailure;

export type CrucibleClientOptions = {
  baseUrl: string;
  /** Called before every request (may be async); null or undefined sends no credential. */
  getToken?: () => string | null | undefined | Promise<string | null | undefined>;
  /** A fetch implementation (defaults to the global fetch). */
  fetch?: typeof fetch;
  /**
   * Whether a browser sends its cookies (fetch's `credentials`): a page served by the service itself passes
   * 'same-origin' and is signed in by the session cookie POST /v1/auth/sessions sets, holding no token.
   */
  credentials?: RequestInit['credentials'];
  userAgent?: string;
};

export type CrucibleClient = {
  readonly baseUrl: string;
  GET<P extends keyof Operations['get']>(path: P, ...args: Args<Data<'get', P>>): Promise<ApiResult<SuccessBody<'get', P>>>;
  POST<P extends keyof Operations['post']>(path: P, ...args: Args<Data<'post', P>>): Promise<ApiResult<SuccessBody<'post', P>>>;
  DELETE<P extends keyof Operations['delete']>(path: P, ...args: Args<Data<'delete', P>>): Promise<ApiResult<SuccessBody<'delete', P>>>;
};

function fillPath(template: string, values: Record<string, unknown> | undefined): string {
  return template.replace(/\{([a-z_]+)\}/g, (_, name: string) => {
    const value = values?.[name];
    if (value === undefined || value === null || value === '') throw new TypeError(`missing path parameter ${name} for ${template}`);
    return encodeURIComponent(String(value));
  });
}

function queryString(values: Record<string, unknown> | undefined): string {
  if (!values) return '';
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(values)) {
    if (value === undefined || value === null) continue;
    search.append(key, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

/**
 * An error body that is not the envelope (a proxy's HTML page, say) still becomes one, with what is known: the status
 * in a sentence, and the start of the body as `details.body`.
 */
function asErrorBody(response: Response, parsed: unknown, text: string, request_id: string | null): ErrorBody {
  const body = parsed as Partial<ErrorBody> | null;
  if (body && typeof body === 'object' && typeof body.code === 'string' && typeof body.message === 'string') return parsed as ErrorBody;
  const status = `${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
  return {
    code: `HTTP_${response.status}`,
    message: `The service answered ${status}.`,
    details: text ? { body: text.slice(0, 500) } : {},
    request_id: request_id ?? '',
  };
}

export function createCrucibleClient(options: CrucibleClientOptions): CrucibleClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const fetcher = options.fetch ?? globalThis.fetch;

  async function call(method: 'GET' | 'POST' | 'DELETE', template: string, call_options: Record<string, unknown> = {}): Promise<ApiResult<unknown>> {
    const {
      path,
      query,
      body,
      idempotencyKey,
      headers: extra,
      signal,
      parseAs,
    } = call_options as {
      path?: Record<string, unknown>;
      query?: Record<string, unknown>;
      body?: unknown;
    } & CallOptions;
    const url = `${baseUrl}${fillPath(template, path)}${queryString(query)}`;
    const headers: Record<string, string> = { accept: 'application/json', ...extra };
    if (options.userAgent) headers['user-agent'] = options.userAgent;
    const token = options.getToken ? await options.getToken() : null;
    if (token) headers.authorization = `Bearer ${token}`;
    if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
    let payload: string | FormData | undefined;
    if (body instanceof FormData) payload = body;
    else if (body !== undefined) {
      payload = JSON.stringify(body);
      headers['content-type'] = 'application/json';
    }
    let response: Response;
    try {
      response = await fetcher(url, { method, headers, body: payload, signal, ...(options.credentials ? { credentials: options.credentials } : {}) });
    } catch (error) {
      throw new CrucibleNetworkError(method, url, error);
    }
    const request_id = response.headers.get('x-request-id');
    let text: string;
    let bytes: Uint8Array | null = null;
    try {
      if (response.ok && parseAs === 'bytes') {
        bytes = new Uint8Array(await response.arrayBuffer());
        text = '';
      } else text = await response.text();
    } catch (error) {
      throw new CrucibleNetworkError(method, url, error);
    }
    const is_json = (response.headers.get('content-type') ?? '').includes('json');
    let parsed: unknown = text;
    if (bytes) parsed = bytes;
    else if (parseAs !== 'text' && text && (is_json || parseAs === 'json')) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
    } else if (!text) parsed = null;
    if (response.ok) return { ok: true, status: response.status, data: parsed, headers: response.headers, request_id };
    return { ok: false, status: response.status, error: asErrorBody(response, parsed, text, request_id), headers: response.headers, request_id };
  }

  return {
    baseUrl,
    GET: ((path: string, o?: Record<string, unknown>) => call('GET', path, o)) as CrucibleClient['GET'],
    POST: ((path: string, o?: Record<string, unknown>) => call('POST', path, o)) as CrucibleClient['POST'],
    DELETE: ((path: string, o?: Record<string, unknown>) => call('DELETE', path, o)) as CrucibleClient['DELETE'],
  };
}

/** The data of a success, or throws CrucibleApiError with the status and the error envelope. */
export function unwrap<T>(result: ApiResult<T>): T {
  if (result.ok) return result.data;
  throw new CrucibleApiError(result.status, result.error, result.headers);
}

/** Like unwrap, cast to T: for operations whose answer the document does not describe. A cast only, no validation. */
export function unwrapAs<T>(result: ApiResult<unknown>): T {
  return unwrap(result) as T;
}
