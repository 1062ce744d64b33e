// Riding out temporary failures (no answer, 429, 502, 503, 504): one policy for every --wait poll and every keyed
// create. A POST without an Idempotency-Key is never repeated: a reset after the service acted would create twice.
import { setTimeout as delay } from 'node:timers/promises';
import { CrucibleApiError } from '../../sdk/src/index.ts';
import { EXIT, errorExitCode } from './exit.ts';

/** Backoff before the next try: drawn from [0, min(cap, base × 2^attempt)] (full jitter). */
export const RETRY_BACKOFF_BASE_MS = 500;
export const RETRY_BACKOFF_CAP_MS = 15_000;
/** How long a wait keeps trying while every try fails temporarily, before it gives up with exit 5. */
export const UNREACHABLE_MAX_MS = 300_000;
/** Retries of a create that carries an Idempotency-Key (after the first try), and how long they may take in all. */
export const CREATE_RETRIES_MAX = 4;
export const CREATE_RETRY_WINDOW_MS = 60_000;

/** True for failures that say "not now" rather than "no": exit code 5's cases. */
export function isTemporary(error: unknown): boolean {
  return errorExitCode(error) === EXIT.temporary;
}

/** The wait a 429 or 503 asks for in its Retry-After header (seconds or an HTTP date), in ms; null when none. */
export function retryAfterMs(error: unknown, now_ms = Date.now()): number | null {
  if (!(error instanceof CrucibleApiError)) return null;
  const value = error.headers?.get('retry-after')?.trim();
  if (!value) return null;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now_ms);
}

export type RetryPolicy = {
  /** No try starts after this instant (epoch ms): the wait's own deadline. */
  deadline_ms: number;
  /** Retries after the first try; unbounded (but for the deadline and UNREACHABLE_MAX_MS) when absent. */
  retries_max?: number;
  /** Told before each pause, for a progress display. */
  on_retry?: (error: unknown, pause_ms: number) => void;
};

/**
 * Runs `attempt` until it answers, pausing after each temporary failure (the longer of the backoff and the service's
 * Retry-After). Rethrows any other error at once, and the last temporary one when the next try would start after the
 * deadline, after `retries_max` retries, or after UNREACHABLE_MAX_MS of failures in a row.
 */
export async function retryTemporary<T>(attempt: () => Promise<T>, policy: RetryPolicy): Promise<T> {
  const failing_since_ms = Date.now();
  for (let retry = 0; ; retry++) {
    try {
      return await attempt();
    } catch (error) {
      if (!isTemporary(error)) throw error;
      if (policy.retries_max !== undefined && retry >= policy.retries_max) throw error;
      const now_ms = Date.now();
      const backoff_ms = Math.random() * Math.min(RETRY_BACKOFF_CAP_MS, RETRY_BACKOFF_BASE_MS * 2 ** retry);
      const pause_ms = Math.max(backoff_ms, retryAfterMs(error, now_ms) ?? 0);
      if (now_ms + pause_ms > policy.deadline_ms || now_ms + pause_ms - failing_since_ms > UNREACHABLE_MAX_MS) throw error;
      policy.on_retry?.(error, pause_ms);
      await delay(pause_ms);
    }
  }
}

/** A create: retried on temporary failures only when it carries an Idempotency-Key (a replay returns the original). */
export function createOnce<T>(idempotency_key: string | undefined, send: () => Promise<T>): Promise<T> {
  if (!idempotency_key) return send();
  return retryTemporary(send, { deadline_ms: Date.now() + CREATE_RETRY_WINDOW_MS, retries_max: CREATE_RETRIES_MAX });
}
