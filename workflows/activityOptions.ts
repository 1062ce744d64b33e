// The activity options of every workflow, one entry per activity kind (STYLE.md: one seam per concern): a workflow
// proxies its activities with ACTIVITY_PROFILES.<kind>, never with options written by hand. Deterministic: types only.
import type { ActivityOptions, LocalActivityOptions } from '@temporalio/workflow';

/** Europe PMC outages are retried a few times; past that the review fails and nothing is charged. */
export const LITERATURE_ATTEMPTS_MAX = 4;
/** A model call: transient provider failures are retried a few times (the gateway types the rest as non-retryable). */
export const MODEL_CALL_MAX_ATTEMPTS = 4;
/** A model call's step ends this long after it was first scheduled, whatever its attempts: no job waits longer on a provider. */
export const MODEL_CALL_DEADLINE = '10 minutes';
/** The simulation activity: a lost worker is retried from the stored replications a few times. */
export const SIMULATION_ATTEMPTS_MAX = 5;
/** An authoring checkpoint (a smoke run and a write): a few attempts, then the session fails with the cause. */
export const CHECKPOINT_ATTEMPTS_MAX = 20;
/** Checkout reconciliation: the payment provider is retried for about an hour before the run leaves it to the next event. */
export const PAYMENT_ATTEMPTS_MAX = 50;
/** Reading an extraction request on a worker: a lost worker's read is tried again by another a few times. */
export const INTAKE_READ_ATTEMPTS_MAX = 3;
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
  /**
   * One structured-output model call; may take minutes. It heartbeats while the provider answers (activities/aiCall.ts),
   * so a worker that dies mid-call is noticed within the heartbeat timeout and the same execution is retried. Each
   * attempt gives the provider CRUCIBLE_AI_CALL_TIMEOUT_SECONDS (at most 300 s, under the start-to-close backstop); the
   * step as a whole ends at MODEL_CALL_DEADLINE, however many attempts that leaves (docs/ai-and-literature.md).
   */
  model: {
    startToCloseTimeout: '6 minutes',
    scheduleToCloseTimeout: MODEL_CALL_DEADLINE,
    heartbeatTimeout: '20 seconds',
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
  /** An authoring checkpoint: assembles, validates and smoke-runs the candidate world in-process before storing it. */
  checkpoint: {
    startToCloseTimeout: '2 minutes',
    retry: { initialInterval: '500 milliseconds', maximumInterval: '30 seconds', backoffCoefficient: 2, maximumAttempts: CHECKPOINT_ATTEMPTS_MAX },
  },
  /** Checkout reconciliation: retrieves the provider session, then commits; the provider may be away for a while. */
  payment: {
    startToCloseTimeout: '1 minute',
    retry: { initialInterval: '1 second', maximumInterval: '1 minute', backoffCoefficient: 2, maximumAttempts: PAYMENT_ATTEMPTS_MAX },
  },
  /**
   * Reading an extraction request's staged sources on the worker's pool (each PDF stops at PDF_READ_SECONDS_MAX). It
   * heartbeats, so a lost worker is noticed within seconds and another reads the request again; the API stops waiting
   * at CRUCIBLE_PDF_READ_WAIT_SECONDS, which is also the workflow's execution timeout.
   */
  intake_read: {
    startToCloseTimeout: '10 minutes',
    heartbeatTimeout: '10 seconds',
    retry: { initialInterval: '500 milliseconds', maximumInterval: '5 seconds', backoffCoefficient: 2, maximumAttempts: INTAKE_READ_ATTEMPTS_MAX },
  },
  /** The maintenance schedule's purge and reconcilers. */
  maintenance: {
    startToCloseTimeout: '5 minutes',
    retry: { initialInterval: '1 second', maximumInterval: '30 seconds', backoffCoefficient: 2, maximumAttempts: MAINTENANCE_ATTEMPTS_MAX },
  },
} as const satisfies Record<string, ActivityOptions>;

/**
 * Local-activity profiles (docs/decisions.md: short row and ledger steps of a run as local activities): the step runs in
 * the worker that holds the workflow task, and its result is recorded in the history as a marker, so consecutive steps
 * cost no round trip through the Temporal server each. Only for short, idempotent database steps: a step that outlives
 * the workflow task is retried from the start by the next worker, so each must be safe to run twice.
 */
export const LOCAL_ACTIVITY_PROFILES = {
  /** As ACTIVITY_PROFILES.store: idempotent and must eventually land, so no attempt limit. */
  store: {
    startToCloseTimeout: '1 minute',
    retry: { initialInterval: '500 milliseconds', maximumInterval: '30 seconds', backoffCoefficient: 2 },
  },
} as const satisfies Record<string, LocalActivityOptions>;
