// What every workflow shares: the named activity-option profiles and how a failure becomes the {code, message} a row
// records. Deterministic: imports only the workflow SDK.
import { type ActivityOptions, ApplicationFailure } from '@temporalio/workflow';

/** Europe PMC outages are retried a few times; past that the review fails and nothing is charged. */
export const LITERATURE_ATTEMPTS_MAX = 4;
/** A model call: transient provider failures are retried a few times (the gateway types the rest as non-retryable). */
export const MODEL_CALL_MAX_ATTEMPTS = 4;
/** The simulation activity: a lost worker is retried from the stored replications a few times. */
export const SIMULATION_ATTEMPTS_MAX = 5;
/** Housekeeping: the next maintenance tick tries again anyway. */
export const MAINTENANCE_ATTEMPTS_MAX = 3;

/**
 * The activity-option profiles. A non-retryable failure (a ServiceError, a broken invariant: activities/index.ts) stops
 * at once in every profile; the attempt limits apply to the failures a retry may fix (the database or a provider away).
 */
export const ACTIVITY_PROFILES = {
  /** Store reads and writes (row moves, ledger transfers): idempotent and must eventually land, so no attempt limit. */
  store: {
    startToCloseTimeout: '1 minute',
    retry: { initialInterval: '500 milliseconds', maximumInterval: '30 seconds', backoffCoefficient: 2 },
  },
  /** One structured-output model call; may take minutes. */
  model: {
    startToCloseTimeout: '6 minutes',
    retry: { initialInterval: '2 seconds', maximumInterval: '1 minute', backoffCoefficient: 2, maximumAttempts: MODEL_CALL_MAX_ATTEMPTS },
  },
  /** Europe PMC search and open-access reading for a review. */
  literature: {
    startToCloseTimeout: '5 minutes',
    retry: { initialInterval: '500 milliseconds', maximumInterval: '10 seconds', backoffCoefficient: 2, maximumAttempts: LITERATURE_ATTEMPTS_MAX },
  },
  /** The run's replications: it enforces the run's wall-clock limit itself; heartbeats detect a lost worker; a cancel waits for it to record what it discarded. */
  simulation: {
    startToCloseTimeout: '25 hours',
    heartbeatTimeout: '30 seconds',
    cancellationType: 'WAIT_CANCELLATION_COMPLETED',
    retry: { initialInterval: '1 second', maximumInterval: '30 seconds', backoffCoefficient: 2, maximumAttempts: SIMULATION_ATTEMPTS_MAX },
  },
  /** The maintenance schedule's purge and reconcilers. */
  maintenance: {
    startToCloseTimeout: '5 minutes',
    retry: { initialInterval: '1 second', maximumInterval: '30 seconds', backoffCoefficient: 2, maximumAttempts: MAINTENANCE_ATTEMPTS_MAX },
  },
} as const satisfies Record<string, ActivityOptions>;

export type JobFailure = { code: string; message: string };

/** How deep a cause chain is followed (ActivityFailure → ApplicationFailure is two). */
const FAILURE_CAUSE_DEPTH_MAX = 10;

/**
 * The code and message a failed job records: the first ApplicationFailure in the cause chain (an activity's typed
 * failure, or one the workflow threw), its type as the code; never a stack. Anything else is INTERNAL with `otherwise`.
 */
export function failureOf(error: unknown, otherwise: string): JobFailure {
  let current: unknown = error;
  for (let depth = 0; current && depth < FAILURE_CAUSE_DEPTH_MAX; depth++) {
    if (current instanceof ApplicationFailure) return { code: current.type ?? 'INTERNAL', message: current.message };
    current = (current as { cause?: unknown }).cause;
  }
  return { code: 'INTERNAL', message: otherwise };
}
