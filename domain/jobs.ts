// The long jobs, one place (ARCHITECTURE.md: Layout, How a request flows step 3): each job's workflow type and its
// workflow id, derived from the resource id so a second start is a no-op, and the search attributes an operator filters
// on in the Temporal UI (docs/operators.md), each job's input, and the typed failure a job records with the one
// cause-chain reader. Routes, reconcilers and tests all name jobs through this module. Pure: no Temporal import.
import { AI_CALL_FAILURE_TYPES, AI_FAILURE_TYPES } from './ai/call.ts';
import type { AuthoringSessionInput } from './authoring/session.ts';
import { DRAFT_STATUSES } from './contracts/intake.ts';
import { RUN_STATUSES } from './contracts/runs.ts';
import type { SubjectKind } from './credits/rules.ts';
import { ERROR_STATUS, type ErrorCode } from './errors.ts';
import { JOB_FAILURE_CODES, JOB_ONLY_FAILURE_CODES, type JobFailure, type JobFailureCode } from './contracts/jobFailure.ts';
import { LITERATURE_FAILURE_TYPES } from './reviews/literature.ts';
import { REVIEW_NEXT, REVIEW_STATES, type ReviewState } from './reviews/states.ts';

/** Every kind of long job; `authoring` and `checkout` are reserved for authoring sessions and checkout reconciliation. */
export const JOB_KINDS = ['run', 'review', 'intake_draft', 'authoring', 'checkout'] as const;
export type JobKind = (typeof JOB_KINDS)[number];

/** The workflow id prefix of each kind: `run-<run id>`, `review-<review id>`, `intake-draft-<draft id>`, ... */
export const JOB_ID_PREFIXES: Record<JobKind, string> = {
  run: 'run-',
  review: 'review-',
  intake_draft: 'intake-draft-',
  authoring: 'authoring-',
  checkout: 'checkout-',
};

/** The workflow type (the exported workflow function's name) of each kind that has one today. */
export const JOB_WORKFLOW_TYPES = {
  run: 'worldRunWorkflow',
  review: 'conceptReviewWorkflow',
  intake_draft: 'intakeDraftWorkflow',
  checkout: 'checkoutWorkflow',
  authoring: 'authoringSessionWorkflow',
} as const satisfies Partial<Record<JobKind, string>>;

/**
 * The failure type with which a workflow refuses an Update delivered after the API stopped waiting for it (the API
 * answered 503 TEMPORARILY_UNAVAILABLE), so the late step changes nothing (integrations/temporal/jobs.ts: updateJob).
 */
export const UPDATE_REQUEST_EXPIRED = 'UPDATE_REQUEST_EXPIRED';
/** The failure type with which a workflow refuses a step while another one runs (the API may ask again). */
export const STEP_BUSY = 'STEP_BUSY';
/** The failure type `meter.add` throws when work would use more credits than it reserved (a bug). */
export const CREDITS_BUDGET_EXCEEDED = 'CREDITS_BUDGET_EXCEEDED';

/**
 * Every typed failure the cause-chain reader recognizes: the API's error codes and the typed failures activities,
 * integrations and workflows throw. A failure whose type is none of these (a plain Error Temporal wrapped) is not typed.
 */
export const TYPED_FAILURE_TYPES = [
  ...(Object.keys(ERROR_STATUS) as ErrorCode[]),
  ...JOB_ONLY_FAILURE_CODES,
  UPDATE_REQUEST_EXPIRED,
  STEP_BUSY,
  CREDITS_BUDGET_EXCEEDED,
  ...Object.values(AI_FAILURE_TYPES),
  ...Object.values(AI_CALL_FAILURE_TYPES),
  ...Object.values(LITERATURE_FAILURE_TYPES),
] as const;
export type TypedFailureType = (typeof TYPED_FAILURE_TYPES)[number];
const TYPED_TYPES = new Set<string>(TYPED_FAILURE_TYPES);

export function isTypedFailureType(value: unknown): value is TypedFailureType {
  return typeof value === 'string' && TYPED_TYPES.has(value);
}

/** A typed failure as thrown (an activity's, an integration's, a workflow's refusal): its type and message. */
export type TypedFailure = { type: TypedFailureType; message: string };

export { JOB_FAILURE_CODES, type JobFailure, type JobFailureCode };

/**
 * The one mapping from a thrown failure's type to the code a job records and an API answer carries
 * (docs/decisions.md "Job failure codes"). A key the provider refused, a missing key and a stored key that cannot be
 * read all say "check your key" (PROVIDER_KEY_REJECTED); a provider that could not be reached, was busy, refused the
 * request or answered with something unusable is PROVIDER_ERROR, the API's code for a provider's failure. A code
 * recorded before this mapping existed (a row written by an older release) reads through the same table.
 */
const FAILURE_CODE_OF: Record<string, JobFailureCode> = {
  [AI_FAILURE_TYPES.auth_rejected]: 'PROVIDER_KEY_REJECTED',
  [AI_CALL_FAILURE_TYPES.key_missing]: 'PROVIDER_KEY_REJECTED',
  [AI_CALL_FAILURE_TYPES.key_undecryptable]: 'PROVIDER_KEY_REJECTED',
  [AI_FAILURE_TYPES.unavailable]: 'PROVIDER_ERROR',
  [AI_FAILURE_TYPES.request_rejected]: 'PROVIDER_ERROR',
  [AI_FAILURE_TYPES.output_invalid]: 'PROVIDER_ERROR',
  [AI_CALL_FAILURE_TYPES.call_failed]: 'PROVIDER_ERROR',
  [AI_FAILURE_TYPES.not_configured]: 'PROVIDER_NOT_CONFIGURED',
  [AI_CALL_FAILURE_TYPES.bad_input]: 'INTERNAL',
  [LITERATURE_FAILURE_TYPES.unavailable]: 'LITERATURE_UNAVAILABLE',
  [LITERATURE_FAILURE_TYPES.request_rejected]: 'LITERATURE_UNAVAILABLE',
  [CREDITS_BUDGET_EXCEEDED]: 'INTERNAL',
  [STEP_BUSY]: 'CONFLICT',
  [UPDATE_REQUEST_EXPIRED]: 'TEMPORARILY_UNAVAILABLE',
};
const JOB_CODES = new Set<string>(JOB_FAILURE_CODES);

/** The code a job records for a thrown failure's type (or a stored code): a job code as it is, INTERNAL when unknown. */
export function jobFailureCode(type: string): JobFailureCode {
  if (Object.hasOwn(FAILURE_CODE_OF, type)) return FAILURE_CODE_OF[type]!;
  return JOB_CODES.has(type) ? (type as JobFailureCode) : 'INTERNAL';
}

/** A stored `{code, message}` (any release's) as the API answers it. */
export function jobFailureFromStored(stored: { code: string; message: string } | null | undefined): JobFailure | null {
  return stored ? { code: jobFailureCode(stored.code), message: stored.message } : null;
}

/** How deep a cause chain is followed (WorkflowUpdateFailedError → ActivityFailure → ApplicationFailure is three). */
export const FAILURE_CAUSE_DEPTH_MAX = 10;

/** `error` and its causes, outermost first, at most FAILURE_CAUSE_DEPTH_MAX of them (each read by its `cause` field). */
export function* causeChain(error: unknown): Generator<object> {
  let current: unknown = error;
  for (let depth = 0; current && typeof current === 'object' && depth < FAILURE_CAUSE_DEPTH_MAX; depth++) {
    yield current;
    current = (current as { cause?: unknown }).cause;
  }
}

/**
 * The one cause-chain reader: the innermost typed failure of `error` — an ApplicationFailure's `type` or a
 * ServiceError's `code` that is a TypedFailureType — with its message, or null when nothing in the chain is typed.
 * Read by field, so it works on both sides of the workflow sandbox (the workflow bundle has its own SDK classes).
 */
export function typedFailureOf(error: unknown): TypedFailure | null {
  let found: TypedFailure | null = null;
  for (const link of causeChain(error)) {
    const typed = link as { type?: unknown; code?: unknown; message?: unknown };
    const type = isTypedFailureType(typed.type) ? typed.type : isTypedFailureType(typed.code) ? typed.code : null;
    if (type) found = { type, message: typeof typed.message === 'string' ? typed.message : '' };
  }
  return found;
}

/** What a failed job records for `error`: its innermost typed failure under the job's code, or null when untyped. */
export function jobFailureOf(error: unknown): JobFailure | null {
  const typed = typedFailureOf(error);
  return typed ? { code: jobFailureCode(typed.type), message: typed.message } : null;
}

/** When the API stops waiting for a worker to accept a step (ms since the epoch); a later delivery is refused. */
export type StepDeadline = { not_after_ms: number };

/** The input each job's workflow is started with (workflows/index.ts checks each workflow takes it). */
export type JobInputs = {
  run: { run_id: string };
  review: { review_id: string };
  intake_draft: { draft_id: string };
  authoring: AuthoringSessionInput;
  checkout: { intent_id: string };
};

/** The job's workflow id, derived from its resource id. */
export function jobWorkflowId(kind: JobKind, resource_id: string): string {
  return `${JOB_ID_PREFIXES[kind]}${resource_id}`;
}

export const runWorkflowId = (run_id: string): string => jobWorkflowId('run', run_id);
export const reviewWorkflowId = (review_id: string): string => jobWorkflowId('review', review_id);
export const intakeDraftWorkflowId = (draft_id: string): string => jobWorkflowId('intake_draft', draft_id);

/** The kinds of job that spend credits: each reserves at creation, in the creating request's transaction. */
export type MeteredJobKind = Extract<JobKind, 'run' | 'review' | 'intake_draft' | 'authoring'>;

/**
 * The ledger ids of one piece of metered work, derived from a stable base (the resource id, or `<session id>:ai:<n>` for
 * an authoring session's n-th AI step): the creating request and the workflow's saga write the same rows, so the
 * workflow's reserve replays the reservation the request made (ARCHITECTURE.md: How a request flows, step 4).
 */
export function meteredTransferIds(base: string): { reserve: string; settle: string; release: string } {
  return { reserve: `${base}:reserve`, settle: `${base}:settle`, release: `${base}:release` };
}

/** The transfer base of an authoring session's n-th AI step (1-based). */
export function authoringStepTransferBase(session_id: string, ai_iteration: number): string {
  return `${session_id}:ai:${ai_iteration}`;
}

/** The ledger subject kind, the reason the ledger shows, and the transfer base of each kind's reservation at creation. */
export const JOB_CREDITS: Record<MeteredJobKind, { subject_kind: SubjectKind; reason: string; transfer_base: (resource_id: string) => string }> = {
  run: { subject_kind: 'run', reason: 'world run', transfer_base: (id) => id },
  review: { subject_kind: 'review', reason: 'concept and evidence review', transfer_base: (id) => id },
  intake_draft: { subject_kind: 'intake_draft', reason: 'intake draft', transfer_base: (id) => id },
  // A session reserves its first AI step at creation; later steps reserve when they are asked for.
  authoring: { subject_kind: 'session', reason: 'authoring session AI step', transfer_base: (id) => authoringStepTransferBase(id, 1) },
};

// ---------------------------------------------------------------------------------------------------------------------
// The lifecycle of each kind (spec: States and transitions — run states named; review and session transitions "not
// shown", decided here and in docs/decisions.md): its states, the moves allowed from each, and the ones that have ended.
// The store moves a row only along these (store/jobs.ts: moveJob); a finished row never moves again.

/** An authoring session's states (docs/authoring.md): `drafting` works, `waiting` waits for a step; the rest have ended. */
export const SESSION_STATUSES = ['drafting', 'waiting', 'approved', 'expired', 'failed'] as const;

export type JobStates = {
  run: (typeof RUN_STATUSES)[number];
  review: ReviewState;
  intake_draft: (typeof DRAFT_STATUSES)[number];
  authoring: (typeof SESSION_STATUSES)[number];
};

export type JobLifecycle<S extends string> = { states: readonly S[]; next: Readonly<Record<S, readonly S[]>>; ended: readonly S[] };

function lifecycle<S extends string>(states: readonly S[], next: Record<S, readonly S[]>): JobLifecycle<S> {
  return { states, next, ended: states.filter((state) => next[state].length === 0) };
}

export const JOB_LIFECYCLES: { [K in MeteredJobKind]: JobLifecycle<JobStates[K]> } = {
  // spec: Run states — a canceled run stays canceled whatever the worker reports.
  run: lifecycle(RUN_STATUSES, {
    queued: ['running', 'canceled'],
    running: ['succeeded', 'timed_out', 'canceled', 'failed'],
    succeeded: [],
    timed_out: [],
    canceled: [],
    failed: [],
  }),
  review: lifecycle(REVIEW_STATES, REVIEW_NEXT),
  intake_draft: lifecycle(DRAFT_STATUSES, {
    queued: ['drafting', 'succeeded', 'failed', 'canceled'],
    drafting: ['succeeded', 'failed', 'canceled'],
    succeeded: [],
    failed: [],
    canceled: [],
  }),
  authoring: lifecycle(SESSION_STATUSES, {
    drafting: ['drafting', 'waiting', 'approved', 'expired', 'failed'],
    waiting: ['drafting', 'waiting', 'approved', 'expired', 'failed'],
    approved: [],
    expired: [],
    failed: [],
  }),
};

/** Whether a row of `kind` may move from `from` to `to`. */
export function canMoveJob<K extends MeteredJobKind>(kind: K, from: JobStates[K], to: JobStates[K]): boolean {
  return (JOB_LIFECYCLES[kind].next as Record<string, readonly string[]>)[from]!.includes(to);
}

/** Whether a row of `kind` in `status` has ended (it never moves again). */
export function jobEnded<K extends MeteredJobKind>(kind: K, status: JobStates[K]): boolean {
  return (JOB_LIFECYCLES[kind].ended as readonly string[]).includes(status);
}

/** The kinds a route or a reconciler starts; checkout is signalled-with-start. */
export type StartableJobKind = Exclude<JobKind, 'checkout'>;

/** A job's row as far as starting its workflow needs: its id and its owner (the search attributes). */
export type JobRow = { id: string; org_id: string; project_id: string | null };

const JOB_INPUT_OF: { [K in StartableJobKind]: (resource_id: string) => JobInputs[K] } = {
  run: (id) => ({ run_id: id }),
  review: (id) => ({ review_id: id }),
  intake_draft: (id) => ({ draft_id: id }),
  authoring: (id) => ({ session_id: id }),
};

/** What starts a job's workflow, from its row: the job (id and search attributes) and the workflow's input. */
export function jobStartOf<K extends StartableJobKind>(kind: K, row: JobRow): { job: JobRef & { kind: K }; input: JobInputs[K] } {
  return { job: { kind, resource_id: row.id, org_id: row.org_id, project_id: row.project_id }, input: JOB_INPUT_OF[kind](row.id) };
}

/**
 * The custom search attributes (all Keyword) every job carries, registered on the Temporal server at start
 * (runtime/temporal.ts, docker-compose.yml), so `CrucibleOrgId = "org_…"` finds an organization's jobs.
 */
export const JOB_SEARCH_ATTRIBUTES = {
  org_id: 'CrucibleOrgId',
  project_id: 'CrucibleProjectId',
  resource_kind: 'CrucibleResourceKind',
  resource_id: 'CrucibleResourceId',
} as const;

/** What names a job: its kind, its resource, and whose it is (for the search attributes). */
export type JobRef = { kind: JobKind; resource_id: string; org_id: string; project_id: string | null };

/**
 * Reading an extraction request's PDFs on a worker (docs/deploy.md "Where the work runs"): a short workflow whose id is
 * derived from the staged request's id (store/intake/staged.ts). Its input and result carry ids only, never text.
 */
export const INTAKE_READ_WORKFLOW_TYPE = 'intakeReadWorkflow';
export const INTAKE_READ_ID_PREFIX = 'intake-read-';
export type IntakeReadInput = { staged_id: string; source_ids: string[] };
export type IntakeReadResult = { source_ids: string[] };

export function intakeReadWorkflowId(staged_id: string): string {
  return `${INTAKE_READ_ID_PREFIX}${staged_id}`;
}

/** The maintenance schedule's cadence: one workflow execution per tick (reconcilers are its activities). */
export const MAINTENANCE_INTERVAL_MINUTES = 5;
export const MAINTENANCE_SCHEDULE_ID = 'crucible-maintenance';
export const MAINTENANCE_WORKFLOW_TYPE = 'maintenanceWorkflow';

/**
 * The task queues by kind of work (docs/deploy.md "Task queues"): `default` holds every workflow task and the short
 * activities (rows, ledger, literature, payments, checkpoints, maintenance); `model` the AI calls; `simulation` a run's
 * replications. A deployment can give each its own workers (`crucible-server worker --queues simulation`), so a burst of
 * long runs never delays a draft's or a review's next step.
 */
export const WORK_QUEUES = ['default', 'model', 'simulation'] as const;
export type WorkQueue = (typeof WORK_QUEUES)[number];

/**
 * The task queue of a kind of work, from the deployment's queue (CRUCIBLE_TASK_QUEUE, where the workflows run):
 * `crucible`, `crucible-model`, `crucible-simulation`. Workflows derive it from their own task queue.
 */
export function workQueueName(base: string, kind: WorkQueue): string {
  return kind === 'default' ? base : `${base}-${kind}`;
}
