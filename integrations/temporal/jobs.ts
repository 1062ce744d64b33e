// The one seam that starts and cancels long jobs (ARCHITECTURE.md: How a request flows, step 3), used by the routes
// after their commit and by the maintenance reconcilers alike. A job's workflow id comes from its resource id
// (domain/jobs.ts) and a second start is a no-op; every job carries the search attributes operators filter on
// (docs/operators.md). Updates and signals are passed as their definitions (workflows/messages.ts), never by name; a
// job's input is typed by domain/jobs.ts (JobInputs), which workflows/index.ts checks against each workflow. SDK errors
// are recognised by class, never by name. Imports nothing of workflows/.
import { type Client, isGrpcServiceError, type WorkflowUpdateHandle, WorkflowUpdateRPCTimeoutOrCancelledError, WorkflowUpdateStage } from '@temporalio/client';
import type { SignalDefinition, UpdateDefinition } from '@temporalio/common';
import {
  defineSearchAttributeKey,
  SearchAttributeType,
  type SearchAttributePair,
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
} from '@temporalio/common';
import { ServiceError } from '../../domain/errors.ts';
import {
  JOB_SEARCH_ATTRIBUTES,
  JOB_WORKFLOW_TYPES,
  causeChain,
  type JobInputs,
  type JobKind,
  type JobRef,
  type JobRow,
  jobStartOf,
  jobWorkflowId,
  type StartableJobKind,
  type StepDeadline,
} from '../../domain/jobs.ts';

export type { StartableJobKind };

/**
 * How a job's workflow ended when it ended outside its own closing step: `stopped` (canceled or terminated from outside),
 * `failed` (failed or timed out); null while it runs, when it completed or continued as new, or when Temporal holds no
 * record of it (never started, or past the namespace's retention).
 */
export async function jobWorkflowEndedOutside(temporal: JobTemporal, kind: StartableJobKind, resource_id: string): Promise<'stopped' | 'failed' | null> {
  try {
    const { status } = await temporal.client.workflow.getHandle(jobWorkflowId(kind, resource_id)).describe();
    if (status.name === 'CANCELLED' || status.name === 'TERMINATED') return 'stopped';
    if (status.name === 'FAILED' || status.name === 'TIMED_OUT') return 'failed';
    return null;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return null;
    throw error;
  }
}

/** Where jobs start: a client and the task queue of the workers. */
export type JobTemporal = { client: Client; task_queue: string };

const searchAttributeKeys = {
  org_id: defineSearchAttributeKey(JOB_SEARCH_ATTRIBUTES.org_id, SearchAttributeType.KEYWORD),
  project_id: defineSearchAttributeKey(JOB_SEARCH_ATTRIBUTES.project_id, SearchAttributeType.KEYWORD),
  resource_kind: defineSearchAttributeKey(JOB_SEARCH_ATTRIBUTES.resource_kind, SearchAttributeType.KEYWORD),
  resource_id: defineSearchAttributeKey(JOB_SEARCH_ATTRIBUTES.resource_id, SearchAttributeType.KEYWORD),
};

/** The search attributes a job's workflow carries (and a short workflow of its own kind: `intake_read`). */
export function jobSearchAttributes(job: Omit<JobRef, 'kind'> & { kind: JobKind | 'intake_read' }): SearchAttributePair[] {
  const pairs: SearchAttributePair[] = [
    { key: searchAttributeKeys.org_id, value: job.org_id },
    { key: searchAttributeKeys.resource_kind, value: job.kind },
    { key: searchAttributeKeys.resource_id, value: job.resource_id },
  ];
  if (job.project_id) pairs.push({ key: searchAttributeKeys.project_id, value: job.project_id });
  return pairs;
}

/**
 * started: now running (or it already was); finished: it ran before and ended; no_temporal: left queued; deferred:
 * Temporal did not answer in time, the row stays queued and the maintenance reconciler starts it.
 */
export type JobStart = 'started' | 'finished' | 'no_temporal' | 'deferred';

/** Every call to Temporal from a request is bounded: past this it is taken as unreachable (503, never a 20 s wait). */
export const TEMPORAL_CALL_DEADLINE_MS = 3_000;
/** What a 503 for an unreachable Temporal suggests as `Retry-After`. */
export const TEMPORAL_RETRY_AFTER_SECONDS = 5;

/** The kinds whose queued rows the maintenance reconciler starts (activities/maintenance.ts: reconcilers). */
const RECONCILED_KINDS: ReadonlySet<string> = new Set(['run', 'review', 'intake_draft']);

const GRPC_DEADLINE_EXCEEDED = 4;
const GRPC_UNAVAILABLE = 14;

/** Whether an SDK error (or one it wraps) says the Temporal frontend could not be reached in time. */
export function temporalUnreachable(error: unknown): boolean {
  return [...causeChain(error)].some((cause) => isGrpcServiceError(cause) && (cause.code === GRPC_UNAVAILABLE || cause.code === GRPC_DEADLINE_EXCEEDED));
}

/** The 503 answered when Temporal cannot be reached: nothing was started and nothing charged. */
export function temporalUnavailable(what: string): ServiceError {
  return new ServiceError(
    'TEMPORARILY_UNAVAILABLE',
    `The workflow service (Temporal) cannot be reached, so ${what} cannot start now; nothing was charged. Send the same request (with the same Idempotency-Key, if you sent one) again in a few seconds.`,
    { dependency: 'temporal' },
    { retry_after_seconds: TEMPORAL_RETRY_AFTER_SECONDS },
  );
}

/** Runs one Temporal call within TEMPORAL_CALL_DEADLINE_MS; an unreachable Temporal becomes the 503 above. */
async function bounded<T>(temporal: JobTemporal, what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await temporal.client.withDeadline(Date.now() + TEMPORAL_CALL_DEADLINE_MS, call);
  } catch (error) {
    if (temporalUnreachable(error)) throw temporalUnavailable(what);
    throw error;
  }
}

/**
 * Starts a job's workflow under its deterministic id. A job already running is left alone (USE_EXISTING) and one that
 * finished is not run again (REJECT_DUPLICATE): both are a no-op. Without Temporal (an API-only test process) the row
 * stays queued for the maintenance reconciler. When Temporal does not answer within TEMPORAL_CALL_DEADLINE_MS (it went
 * down after the route's check, api/readiness.ts): a reconciled kind stays queued ('deferred'), any other kind is a 503
 * (its create needs an Idempotency-Key, and the same request again starts it).
 */
export async function startJob<K extends StartableJobKind>(temporal: JobTemporal | null, job: JobRef & { kind: K }, input: JobInputs[K]): Promise<JobStart> {
  if (!temporal) return 'no_temporal';
  const workflowId = jobWorkflowId(job.kind, job.resource_id);
  try {
    await bounded(temporal, `the ${job.kind.replace('_', ' ')}`, () =>
      temporal.client.workflow.start(JOB_WORKFLOW_TYPES[job.kind], {
        taskQueue: temporal.task_queue,
        workflowId,
        args: [input],
        workflowIdConflictPolicy: 'USE_EXISTING',
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        typedSearchAttributes: jobSearchAttributes(job),
      }),
    );
    return 'started';
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) return 'finished';
    if (error instanceof ServiceError && error.code === 'TEMPORARILY_UNAVAILABLE' && RECONCILED_KINDS.has(job.kind)) return 'deferred';
    throw error;
  }
}

/** Starts the workflow of a job's row: the routes after their commit, the reconcilers for a row left queued. */
export function startJobOf<K extends StartableJobKind>(temporal: JobTemporal | null, kind: K, row: JobRow): Promise<JobStart> {
  const { job, input } = jobStartOf(kind, row);
  return startJob(temporal, job, input);
}

/**
 * Delivers a signal to a job's workflow, starting it first when it is not running (payment webhooks: spec Events), with
 * the same id and search attributes as startJob. The signal is its definition, so its arguments are checked.
 */
export async function signalWithStartJob<K extends JobKind, S>(
  temporal: JobTemporal | null,
  job: JobRef & { kind: K },
  input: JobInputs[K],
  signal: SignalDefinition<[S]>,
  signal_arg: S,
): Promise<'signaled' | 'no_temporal'> {
  if (!temporal) return 'no_temporal';
  await bounded(temporal, `the ${job.kind}`, () =>
    temporal.client.workflow.signalWithStart(JOB_WORKFLOW_TYPES[job.kind], {
      taskQueue: temporal.task_queue,
      workflowId: jobWorkflowId(job.kind, job.resource_id),
      args: [input],
      signal,
      signalArgs: [signal_arg],
      typedSearchAttributes: jobSearchAttributes(job),
    }),
  );
  return 'signaled';
}

/**
 * Asks a job's workflow to stop. A workflow that never started or already ended needs nothing (the row is the source of
 * truth, and the workflow reads it); nor does one Temporal cannot be asked about now ('deferred': the workflow reads the
 * canceled row at its next step). Any other failure propagates.
 */
export async function cancelJob(
  temporal: JobTemporal | null,
  job: Pick<JobRef, 'kind' | 'resource_id'>,
): Promise<'requested' | 'not_running' | 'no_temporal' | 'deferred'> {
  if (!temporal) return 'no_temporal';
  try {
    await bounded(temporal, 'the cancellation', () => temporal.client.workflow.getHandle(jobWorkflowId(job.kind, job.resource_id)).cancel());
    return 'requested';
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return 'not_running';
    if (error instanceof ServiceError && error.code === 'TEMPORARILY_UNAVAILABLE') return 'deferred';
    throw error;
  }
}

/** How much earlier than the API gives up the workflow stops accepting a step (the acceptance's way back). */
export const UPDATE_ACCEPT_MARGIN_MS = 2_000;

/** What a 503 for a step no worker accepted suggests as `Retry-After`. */
export const STEP_RETRY_AFTER_SECONDS = 10;

/** What updateJob sends: a step Update's definition (its arguments are the step's body and a StepDeadline) and its body. */
export type JobUpdate<R, B> = {
  definition: UpdateDefinition<R, [B, StepDeadline | null]>;
  body: B;
  update_id: string;
  accept_timeout_ms: number;
  deadline_ms?: number;
};

/**
 * Sends an Update to a job's workflow and returns its result. The wait for a worker to accept it is bounded: with no
 * worker polling (or one too busy to take the step within accept_timeout_ms), it fails with 503 TEMPORARILY_UNAVAILABLE
 * and nothing changed (an Update is durable only once accepted; the workflow refuses a late delivery past the
 * StepDeadline it is sent). Once accepted, the step runs to its end and its result is awaited. `update_id` makes a
 * retried call one step. `deadline_ms` (default: now + accept_timeout_ms) lets a caller that asks again share one wait
 * across its attempts; the 503 reports the caller's `accept_timeout_ms`.
 */
export async function updateJob<R, B>(temporal: JobTemporal, job: Pick<JobRef, 'kind' | 'resource_id'>, update: JobUpdate<R, B>): Promise<R> {
  const handle = temporal.client.workflow.getHandle(jobWorkflowId(job.kind, job.resource_id));
  const deadline_ms = update.deadline_ms ?? Date.now() + update.accept_timeout_ms;
  // The workflow stops accepting a little before the call gives up, so an acceptance is never lost in transit.
  const not_after_ms = deadline_ms - Math.min(UPDATE_ACCEPT_MARGIN_MS, Math.max(0, deadline_ms - Date.now()) / 4);
  let accepted: WorkflowUpdateHandle<R>;
  try {
    accepted = await temporal.client.withDeadline(deadline_ms, () =>
      handle.startUpdate(update.definition, { args: [update.body, { not_after_ms }], updateId: update.update_id, waitForStage: WorkflowUpdateStage.ACCEPTED }),
    );
  } catch (error) {
    if (error instanceof WorkflowUpdateRPCTimeoutOrCancelledError) {
      throw new ServiceError(
        'TEMPORARILY_UNAVAILABLE',
        `No worker took the ${update.definition.name} step within ${Math.round(update.accept_timeout_ms / 1000)} seconds; nothing changed. Send the same request (same Idempotency-Key) again later.`,
        { workflow_id: jobWorkflowId(job.kind, job.resource_id), accept_timeout_ms: update.accept_timeout_ms },
        { retry_after_seconds: STEP_RETRY_AFTER_SECONDS },
      );
    }
    throw error;
  }
  return accepted.result();
}
