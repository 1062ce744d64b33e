// Exit codes of `crucible` (spec: Versioning — exit code 4 means input or approval is needed because an authoring
// session waits for answers). Pure functions, so each mapping is tested on its own.
import { CrucibleApiError, CrucibleNetworkError } from '../../sdk/src/index.ts';

export const EXIT = {
  ok: 0,
  api_error: 1,
  usage: 2,
  authentication: 3,
  session_waiting: 4,
  temporary: 5,
} as const;

export const EXIT_CODES_HELP = `Exit codes of crucible:
  0  ok
  1  API error: the service refused the request (the error code and request id are printed), or the awaited
     review, draft or run ended failed or canceled
  2  usage: unknown command, missing or invalid arguments
  3  authentication: no token, or the service answered 401 (sign in again) or 403 (a scope or role is missing)
  4  input or approval needed: an authoring session waits for answers (or for approval). Not a failure: answer with
     \`crucible sessions answer\`, or approve, then run the command again. Scripts that treat any nonzero code as
     failure must handle 4.
  5  temporary: the service could not be reached, did not answer within the request timeout (--request-timeout), or
     answered 429, 502, 503 or 504; retry later (creating calls with the same --idempotency-key). A --wait reads again
     through such failures (after Retry-After when sent) and exits 5 when its --timeout passes (the job goes on:
     read it again later) or the service stays unreachable for 5 minutes; a create is repeated only when it carries an --idempotency-key (without one, the
     message says what to check before sending it again)
`;

/**
 * The authoring session status in which it waits for the user: for answers to its questions, a revision or an approval
 * (docs/authoring.md: `drafting` works, `approved`, `expired` and `failed` have ended).
 */
export const SESSION_WAITING_STATUS = 'waiting';

type SessionLike = { status?: unknown; questions?: unknown; checkpoint?: unknown };

/** Open questions of a session: those of its latest checkpoint (or listed on the session itself) without an answer. */
export function openQuestions(session: SessionLike): Record<string, unknown>[] {
  const checkpoint = session.checkpoint && typeof session.checkpoint === 'object' ? (session.checkpoint as { questions?: unknown }) : null;
  const questions = Array.isArray(checkpoint?.questions) ? checkpoint.questions : session.questions;
  if (!Array.isArray(questions)) return [];
  return (questions as Record<string, unknown>[]).filter(
    (q) => q && typeof q === 'object' && (q.answer === undefined || q.answer === null) && q.status !== 'answered' && q.answered !== true,
  );
}

/** 4 while the session waits for answers or approval (spec: Versioning), 0 otherwise: it drafts, or it has ended. */
export function sessionExitCode(session: SessionLike): number {
  return session.status === SESSION_WAITING_STATUS ? EXIT.session_waiting : EXIT.ok;
}

const TEMPORARY_STATUSES = [429, 502, 503, 504];

/** The exit code for an error thrown while running a command. */
export function errorExitCode(error: unknown): number {
  if (error instanceof CrucibleNetworkError || error instanceof RequestTimeoutError || error instanceof WaitTimeoutError) return EXIT.temporary;
  if (error instanceof CrucibleApiError) {
    if (error.status === 401 || error.status === 403) return EXIT.authentication;
    // A provider that is not configured is a deployment fact, not a passing one.
    if (TEMPORARY_STATUSES.includes(error.status) && error.code !== 'PROVIDER_NOT_CONFIGURED' && !error.code.endsWith('_NOT_CONFIGURED')) return EXIT.temporary;
    return EXIT.api_error;
  }
  if (error instanceof UsageError) return EXIT.usage;
  if (error instanceof AuthenticationError) return EXIT.authentication;
  return EXIT.api_error;
}

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export class AuthenticationError extends Error {
  override readonly name = 'AuthenticationError';
}

/** A request that got no answer within its limit (clients/cli/src/timeouts.ts): temporary, like a dropped connection. */
export class RequestTimeoutError extends Error {
  override readonly name = 'RequestTimeoutError';
}

/** A --wait that reached its --timeout while the job goes on: nothing was wrong with the command; read it again later. */
export class WaitTimeoutError extends Error {
  override readonly name = 'WaitTimeoutError';
}
