// What every `crucible` command shares: the global options, the client, the output, the exit code, and the helpers
// for arguments, secrets and --wait. Each commands/<group>.ts registers its commands with one CommandContext.
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline/promises';
import { setTimeout as delay } from 'node:timers/promises';
import type { Command } from 'commander';
import ora from 'ora';
import {
  type ApiResult,
  CrucibleApiError,
  type CrucibleClient,
  createCrucibleClient,
  type JobKind,
  jobEnded,
  SDK_VERSION,
  unwrap,
  unwrapAs,
} from '../../../sdk/src/index.ts';
import { readStored, resolveBaseUrl, resolveToken } from '../credentials.ts';
import { AuthenticationError, EXIT, UsageError, WaitTimeoutError } from '../exit.ts';
import { type Printer, printer } from '../output.ts';
import { createOnce, retryTemporary } from '../retry.ts';
import { resolveRequestTimeout, withRequestTimeouts } from '../timeouts.ts';

export type Any = Record<string, any>;
export type Global = { url?: string; json?: boolean; requestTimeout?: string };

/** The code the process exits with once a command returns without throwing (-1: leave the process running). */
export type ExitState = { code: number };

export type CommandContext = {
  /** The global options (--url, --json), read when a command runs. */
  global(): Global;
  out(): Printer;
  client(require_token?: boolean): CrucibleClient;
  /** The request timeout in seconds (--request-timeout, CRUCIBLE_CLI_REQUEST_TIMEOUT, 60), for a plain fetch. */
  requestTimeout(): number;
  exit: ExitState;
};

/** Polling: at most one read per second, for at most this long (a --wait is explicit; the SDK never polls). */
const poll_interval_ms = 1000;
/** The longest `wait` a long poll asks for: the service's POLL_WAIT_SECONDS_MAX (api/poll.ts; a test keeps them equal). */
export const LONG_POLL_WAIT_SECONDS_MAX = 30;
export const wait_max_seconds_default = 1800;

export function commandContext(program: Command, exit: ExitState): CommandContext {
  const global = (): Global => program.opts<Global>();
  return {
    global,
    out: () => printer(Boolean(global().json)),
    client: (require_token = true) => clientFor(global(), require_token),
    requestTimeout: () => resolveRequestTimeout(global().requestTimeout),
    exit,
  };
}

function clientFor(global: Global, require_token: boolean): CrucibleClient {
  const token = resolveToken();
  if (require_token && !token) throw new AuthenticationError('No token: set CRUCIBLE_TOKEN or run `crucible login`.');
  const client = createCrucibleClient({ baseUrl: resolveBaseUrl(global.url), getToken: () => token, userAgent: `crucible-cli/${SDK_VERSION}` });
  // Each try of a keyed create gets its own time limit.
  return withKeyedRetries(withRequestTimeouts(client, resolveRequestTimeout(global.requestTimeout)));
}

/**
 * Every command's client: a POST carrying an Idempotency-Key is repeated on a temporary failure, a timed-out try too
 * (createOnce: a replay answers the first result), one without a key is sent once. Done here once, so no command can
 * forget it.
 */
function withKeyedRetries(client: CrucibleClient): CrucibleClient {
  const post = client.POST as unknown as Untyped;
  const POST: Untyped = async (path, options) => {
    let last: ApiResult<unknown> | undefined;
    try {
      return await createOnce(options?.idempotencyKey, async () => {
        last = await post(path, options);
        // A failed answer is thrown so createOnce can judge it; the last one is what the caller gets back.
        return last.ok ? last : unwrap(last);
      });
    } catch (error) {
      if (error instanceof CrucibleApiError && last && !last.ok) return last;
      throw error;
    }
  };
  return { ...client, POST: POST as unknown as CrucibleClient['POST'] };
}

/** Calls to paths the bundled document may not list yet (authoring sessions while they are in beta). */
type Untyped = (path: string, options?: Any) => Promise<ApiResult<unknown>>;
export function untyped(client: CrucibleClient): { GET: Untyped; POST: Untyped } {
  return { GET: client.GET as unknown as Untyped, POST: client.POST as unknown as Untyped };
}

export function readJsonFile(path: string): unknown {
  const text = path === '-' ? readFileSync(0, 'utf8') : readFileSync(path, 'utf8');
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${path} is not JSON: ${(error as Error).message}`);
  }
}

export function integer(name: string) {
  return (value: string) => {
    if (!/^\d+$/.test(value)) throw new UsageError(`${name} must be a whole number, got ${value}`);
    return Number(value);
  };
}

/**
 * What a --wait adds to one read of a pollable resource (api/poll.ts; docs/performance.md, "Polling"): the long poll's `wait` goes in
 * `query`, so the request's own time limit becomes the wait plus LONG_POLL_MARGIN_SECONDS (timeouts.ts), and the ETag
 * of the last answer goes in `If-None-Match`. A plain read gets neither.
 */
export type Poll = { query?: { wait: number }; headers?: Record<string, string> };
/** One read of the draft, review, run or session a --wait follows: the SDK call with `poll` spread into its options. */
export type PollRead = (poll: Poll) => Promise<ApiResult<unknown>>;

/**
 * Waits for a workflow-backed resource to end, with a progress display on stderr (none with --json). The first read is
 * plain; each next one is a long poll: `If-None-Match` with the last answer's ETag and `wait` (longPollSeconds), which
 * the service holds until the resource changes (200, the new value) or the wait ends (304, unchanged). No poll follows
 * an answer that says the job ended, and none is sent without If-None-Match (the service would hold it until the *next*
 * change). A service that sends no ETag is read plainly once a second, as before. Long polls start at most once a second
 * too, so a run that changes all the time is not read faster than that.
 *
 * A read that fails temporarily (no answer, none within the request timeout, 429, 502, 503, 504) is tried again with
 * backoff, after Retry-After when the service sends one: the job goes on meanwhile. Only a deadline reached, or a
 * service unreachable for UNREACHABLE_MAX_MS, ends the wait with that error (exit 5).
 */
export async function waitFor(
  global: Global,
  what: string,
  read: PollRead,
  describe: (value: Any) => string,
  timeout_seconds: number,
  /** When to stop reading: the job's ended statuses (the SDK's ENDED_STATUSES), or a stop of the caller's own. */
  done: (value: Any) => boolean,
): Promise<Any> {
  // --json keeps stderr free for scripts: no progress at all.
  const spinner = global.json ? null : ora({ text: `${what}: waiting`, stream: process.stderr });
  spinner?.start();
  const deadline = Date.now() + timeout_seconds * 1000;
  try {
    // The ETag of the last 200; null before the first answer and after an answer without one (plain polling).
    let etag: string | null = null;
    for (;;) {
      const long_poll: string | null = etag;
      const started_ms = Date.now();
      const answer: Answer = await retryTemporary(() => readOnce(read, long_poll, deadline), {
        deadline_ms: deadline,
        on_retry: (error, pause_ms) => {
          if (spinner) spinner.text = `${what}: ${temporaryCause(error)}, reading again in ${Math.ceil(pause_ms / 1000)} s`;
        },
      });
      if (answer !== UNCHANGED) {
        const value = answer.value;
        etag = answer.etag;
        if (spinner) spinner.text = `${what}: ${describe(value)}`;
        if (done(value)) {
          if (!['failed', 'canceled', 'timed_out', 'expired'].includes(value.status)) spinner?.succeed(`${what}: ${describe(value)}`);
          else spinner?.fail(`${what}: ${describe(value)}`);
          return value;
        }
      }
      if (Date.now() > deadline) throw new WaitTimeoutError(`${what} did not end within ${timeout_seconds} s (--timeout); it goes on, read it again later.`);
      // Plain polling reads once a second; a long poll answered sooner than that waits out the rest of the second.
      if (etag === null) await delay(poll_interval_ms);
      else if (long_poll !== null) await delay(Math.max(0, started_ms + poll_interval_ms - Date.now()));
    }
  } catch (error) {
    if (spinner?.isSpinning) spinner.stop();
    throw error;
  }
}

const UNCHANGED = Symbol('unchanged');
/** A 200's value with its ETag (null when the service sent none), or UNCHANGED for a 304. */
type Answer = { value: Any; etag: string | null } | typeof UNCHANGED;

/** One read: plain without an ETag, else a long poll for a version other than `etag`; a 304 is UNCHANGED. */
async function readOnce(read: PollRead, etag: string | null, deadline_ms: number): Promise<Answer> {
  if (etag === null) {
    const result = await read({});
    return { value: unwrapAs<Any>(result), etag: result.headers.get('etag') };
  }
  const result = await read({ query: { wait: longPollSeconds(deadline_ms) }, headers: { 'if-none-match': etag } });
  if (result.status === 304) return UNCHANGED;
  return { value: unwrapAs<Any>(result), etag: result.headers.get('etag') };
}

/** A long poll's `wait`: the service's longest, or the whole seconds left before the --timeout deadline, at least 1. */
export function longPollSeconds(deadline_ms: number, now_ms = Date.now()): number {
  return Math.max(1, Math.min(LONG_POLL_WAIT_SECONDS_MAX, Math.floor((deadline_ms - now_ms) / 1000)));
}

function temporaryCause(error: unknown): string {
  const status = (error as { status?: unknown }).status;
  return typeof status === 'number' ? `the service answered ${status}` : 'no answer from the service';
}

/** --wait and --timeout, as every command that waits for a draft, review or run to end spells them. */
export function waitOptions(command: Command, wait_description: string): Command {
  return command.option('--wait', wait_description).option('--timeout <seconds>', 'with --wait', integer('--timeout'), wait_max_seconds_default);
}

/** A --wait: reads until the draft, review or run ends, and exits 1 unless it succeeded (or timed out with results). */
export async function waitToEnd(
  context: CommandContext,
  kind: JobKind,
  what: string,
  read: PollRead,
  describe: (value: Any) => string,
  timeout_seconds: number,
): Promise<Any> {
  const ended = await waitFor(context.global(), what, read, describe, timeout_seconds, (value) => jobEnded(kind, value.status));
  context.exit.code = ended.status === 'succeeded' || ended.status === 'timed_out' ? EXIT.ok : EXIT.api_error;
  return ended;
}

export async function promptSecret(question: string): Promise<string> {
  if (!process.stdin.isTTY) throw new UsageError(`${question.trim()} is needed: pass it with a flag or on stdin (prompts appear only on a terminal).`);
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  // Never echo what is typed.
  (rl as unknown as { _writeToOutput: (s: string) => void })._writeToOutput = () => {};
  process.stderr.write(question);
  const answer = await rl.question('');
  rl.close();
  process.stderr.write('\n');
  return answer.trim();
}

export async function orgOf(client: CrucibleClient, flag: string | undefined): Promise<string> {
  if (flag) return flag;
  const stored = readStored().org_id;
  if (stored) return stored;
  const me = unwrapAs<Any>(await client.GET('/v1/me'));
  const org = me.memberships?.[0]?.org_id ?? me.org_id;
  if (!org) throw new UsageError('No organization: pass --org.');
  return org;
}
