// How long one request may take before the CLI stops waiting for its answer. Without a limit a connection the service
// accepted but never answers (or that stalls mid-body) holds a command for undici's own 300 s, and a --wait poll with it.
// A timed-out request is a temporary failure like a dropped connection: a --wait reads again, a keyed create is sent
// again, and a POST without an Idempotency-Key is never repeated: it may have been carried out, so the user is told what
// to check first.
import { type CrucibleClient, CrucibleNetworkError } from '../../sdk/src/index.ts';
import { RequestTimeoutError, UsageError } from './exit.ts';

/** An ordinary request's limit (seconds), for the answer and its whole body. */
export const REQUEST_TIMEOUT_SECONDS_DEFAULT = 60;
/** The environment variable that sets it (the `--request-timeout` option wins). */
export const REQUEST_TIMEOUT_ENV = 'CRUCIBLE_CLI_REQUEST_TIMEOUT';
/** A long poll (`?wait=N`) may take its N seconds plus this margin. */
export const LONG_POLL_MARGIN_SECONDS = 15;
/**
 * A file sent (multipart: `extract` with files, up to 25 MiB) or fetched (`review download`, `runs export`) gets this
 * many times the request timeout: the service gives an upload 120 s to arrive (CRUCIBLE_REQUEST_TIMEOUT_SECONDS) and
 * then reads it (docs/decisions.md, "Clients").
 */
export const TRANSFER_TIMEOUT_FACTOR = 3;

/** The request timeout in seconds: `--request-timeout`, then CRUCIBLE_CLI_REQUEST_TIMEOUT, then 60. */
export function resolveRequestTimeout(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): number {
  const [name, value] = flag !== undefined ? ['--request-timeout', flag] : [REQUEST_TIMEOUT_ENV, env[REQUEST_TIMEOUT_ENV]];
  if (value === undefined || value === '') return REQUEST_TIMEOUT_SECONDS_DEFAULT;
  if (!/^\d+$/.test(value.trim()) || Number(value) < 1) throw new UsageError(`${name} must be a whole number of seconds, 1 or more; got ${value}`);
  return Number(value);
}

type RequestShape = { query?: unknown; body?: unknown; parseAs?: string };

/** The limit of one request (seconds): a long poll's wait plus the margin, a file transfer's longer limit, or the timeout. */
export function requestTimeoutSeconds(options: RequestShape | undefined, timeout_seconds: number): number {
  const wait = (options?.query as { wait?: unknown } | undefined)?.wait;
  if (typeof wait === 'number' && wait > 0) return wait + LONG_POLL_MARGIN_SECONDS;
  // A multipart body is a file upload; a body read as text or bytes is a file download (`review download`).
  if (options?.body instanceof FormData || options?.parseAs === 'text' || options?.parseAs === 'bytes') return timeout_seconds * TRANSFER_TIMEOUT_FACTOR;
  return timeout_seconds;
}

/**
 * What a POST without an Idempotency-Key may have done when no answer came, and where the user looks before sending it
 * again, by the path as the API document writes it. Other POSTs get the general sentence.
 */
const UNANSWERED_POSTS: Record<string, string> = {
  '/v1/runs':
    "the run may have been created. List the project's runs with `crucible runs list --project <project_id>` before trying again (a create sent with --idempotency-key is repeated safely).",
  '/v1/projects/{project_id}/reviews':
    "the review may have been started. List the project's reviews with `crucible review list --project <project_id>` before trying again (a start sent with --idempotency-key is repeated safely).",
  '/v1/projects':
    'the project may have been created. List projects with `crucible projects list` before trying again (a create sent with --idempotency-key is repeated safely).',
  '/v1/orgs/{org_id}/provider-keys':
    'the key may have been stored. List keys with `crucible provider-keys list` before trying again (an add sent with --idempotency-key is repeated safely).',
};

/** The sentence for a request that got no answer in time: what it may have done, and what to check, for a POST without a key. */
export function timeoutMessage(method: string, path: string, seconds: number, keyed: boolean, hints = true): string {
  const said = `The service did not answer ${method} ${path} within ${seconds} s`;
  if (method !== 'POST' || keyed) return `${said}.`;
  const hint = hints ? UNANSWERED_POSTS[path] : undefined;
  return hint ? `${said}; ${hint}` : `${said}; it may have been carried out, so check before sending it again.`;
}

type Call = (path: string, options?: Record<string, unknown>) => Promise<unknown>;

/**
 * The client with a limit on every request (requestTimeoutSeconds), combined with a signal the caller passes. A request
 * over its limit throws RequestTimeoutError (exit 5, temporary); `hints` names the CLI's commands in its message.
 */
export function withRequestTimeouts(client: CrucibleClient, timeout_seconds: number, hints = true): CrucibleClient {
  const timed =
    (method: 'GET' | 'POST' | 'DELETE'): Call =>
    async (path, options = {}) => {
      const seconds = requestTimeoutSeconds(options, timeout_seconds);
      const timer = AbortSignal.timeout(seconds * 1000);
      const given = options.signal as AbortSignal | undefined;
      try {
        return await (client[method] as unknown as Call)(path, { ...options, signal: given ? AbortSignal.any([given, timer]) : timer });
      } catch (error) {
        if (timer.aborted && !given?.aborted && error instanceof CrucibleNetworkError) {
          throw new RequestTimeoutError(timeoutMessage(method, path, seconds, Boolean(options.idempotencyKey), hints), { cause: error });
        }
        throw error;
      }
    };
  return {
    ...client,
    GET: timed('GET') as CrucibleClient['GET'],
    POST: timed('POST') as CrucibleClient['POST'],
    DELETE: timed('DELETE') as CrucibleClient['DELETE'],
  };
}

/** A plain fetch (the export link, which takes no bearer credential) with a file transfer's limit. */
export async function fetchFile(url: string, timeout_seconds: number, what: string): Promise<Uint8Array> {
  const seconds = timeout_seconds * TRANSFER_TIMEOUT_FACTOR;
  const timer = AbortSignal.timeout(seconds * 1000);
  try {
    const response = await fetch(url, { signal: timer });
    if (!response.ok) throw new UsageError(`${what} failed: HTTP ${response.status}`);
    return new Uint8Array(await response.arrayBuffer());
  } catch (error) {
    if (timer.aborted) throw new RequestTimeoutError(`The service did not send the file within ${seconds} s (${what}); try again.`, { cause: error });
    throw error;
  }
}
