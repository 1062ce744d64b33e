// How long a model call may take and when its attempts are spent (docs/ai-and-literature.md: Time and attempts), and
// the words its last failure is recorded in. Pure: the activity reads Temporal's activity info into an AttemptClock.
/** One attempt's timeout when CRUCIBLE_AI_CALL_TIMEOUT_SECONDS is not set. */
export const AI_CALL_TIMEOUT_SECONDS_DEFAULT = 120;
export const AI_CALL_TIMEOUT_SECONDS_MIN = 1;
/** The most one attempt may be given: below the model profile's start-to-close backstop (workflows/activityOptions.ts). */
export const AI_CALL_TIMEOUT_SECONDS_MAX = 300;
/** Kept back from Temporal's own timeouts, so an attempt ends first, by itself, and says why. */
export const AI_CALL_TIMEOUT_MARGIN_MS = 2_000;
/** The shortest attempt worth making: with less time left before the step's deadline, the attempt before was the last. */
export const AI_CALL_ATTEMPT_MIN_MS = 1_000;

/** What Temporal says of the current attempt and the step it belongs to (times in ms; null: not set). */
export type AttemptClock = {
  /** 1 for the first attempt. */
  attempt: number;
  maximum_attempts: number | null;
  initial_interval_ms: number;
  backoff_coefficient: number;
  maximum_interval_ms: number | null;
  /** When the step's first attempt was scheduled, and how long the step may take from then (scheduleToClose). */
  scheduled_ms: number;
  schedule_to_close_ms: number | null;
  start_to_close_ms: number | null;
  /** When this attempt started. */
  started_ms: number;
};

/** The step's deadline (ms since the epoch), or null when it has none. */
function deadlineMs(clock: AttemptClock): number | null {
  return clock.schedule_to_close_ms ? clock.scheduled_ms + clock.schedule_to_close_ms : null;
}

/**
 * The time this attempt gives the provider: the configured timeout, cut so the attempt ends before Temporal's
 * start-to-close and the step's deadline would end it without a word.
 */
export function attemptTimeoutMs(configured_ms: number, clock: AttemptClock): number {
  let limit = configured_ms;
  if (clock.start_to_close_ms) limit = Math.min(limit, clock.start_to_close_ms - AI_CALL_TIMEOUT_MARGIN_MS);
  const deadline = deadlineMs(clock);
  if (deadline !== null) limit = Math.min(limit, deadline - clock.started_ms - AI_CALL_TIMEOUT_MARGIN_MS);
  return Math.max(AI_CALL_ATTEMPT_MIN_MS, Math.floor(limit));
}

/** Temporal's wait before the next attempt: initial × coefficient^(attempt − 1), at most the maximum interval. */
export function retryDelayMs(clock: AttemptClock, retry_after_ms?: number): number {
  if (retry_after_ms !== undefined) return retry_after_ms;
  const maximum = clock.maximum_interval_ms ?? clock.initial_interval_ms * 100; // Temporal's default maximum interval
  return Math.min(maximum, clock.initial_interval_ms * clock.backoff_coefficient ** (clock.attempt - 1));
}

/**
 * Why this attempt, failing in a way another attempt might fix, is the last one: its attempts are spent, or the step's
 * deadline leaves no room for another; null when Temporal will make another.
 */
export function lastAttemptBecause(clock: AttemptClock, now_ms: number, retry_after_ms?: number): 'attempts_spent' | 'deadline' | null {
  if (clock.maximum_attempts && clock.attempt >= clock.maximum_attempts) return 'attempts_spent';
  const deadline = deadlineMs(clock);
  const next_start = now_ms + retryDelayMs(clock, retry_after_ms);
  if (deadline !== null && next_start + AI_CALL_ATTEMPT_MIN_MS + AI_CALL_TIMEOUT_MARGIN_MS > deadline) return 'deadline';
  return null;
}

/** "2 minutes", "90 seconds", "1 second": a duration as a person says it, rounded to whole seconds. */
export function durationInWords(ms: number): string {
  const seconds = Math.max(1, Math.round(ms / 1000));
  if (seconds % 60 === 0) return seconds === 60 ? '1 minute' : `${seconds / 60} minutes`;
  return seconds === 1 ? '1 second' : `${seconds} seconds`;
}

function times(count: number): string {
  return count === 1 ? 'once' : count === 2 ? 'twice' : `${count} times`;
}

/**
 * The message a model call's last failure is recorded with, when no attempt gave an answer: what the provider did on
 * the last attempt (`last`: the attempt's message, which names the provider), how often it was asked, that nothing was charged and what to do.
 */
export function lastAttemptWords(input: {
  last: string;
  attempts: number;
  because: 'attempts_spent' | 'deadline';
  schedule_to_close_ms: number | null;
}): string {
  const within =
    input.because === 'deadline' && input.schedule_to_close_ms ? ` in the ${durationInWords(input.schedule_to_close_ms)} a model call may take` : '';
  const asked = `It was asked ${times(input.attempts)}${within} and gave no answer.`;
  return `${input.last} ${asked} Nothing was charged. Try again later.`;
}
