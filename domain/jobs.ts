// The long jobs, one place (ARCHITECTURE.md: Layout, How a request flows step 3): each job's workflow type and its
// workflow id, derived from the resource id so a second start is a no-op, and the search attributes an operator filters
// on in the Temporal UI (docs/operators.md). Routes, reconcilers and tests all name jobs through this module.

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

/** The job's workflow id, derived from its resource id. */
export function jobWorkflowId(kind: JobKind, resource_id: string): string {
  return `${JOB_ID_PREFIXES[kind]}${resource_id}`;
}

export const runWorkflowId = (run_id: string): string => jobWorkflowId('run', run_id);
export const reviewWorkflowId = (review_id: string): string => jobWorkflowId('review', review_id);
export const intakeDraftWorkflowId = (draft_id: string): string => jobWorkflowId('intake_draft', draft_id);

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

/** The maintenance schedule's cadence: one workflow execution per tick (reconcilers are its activities). */
export const MAINTENANCE_INTERVAL_MINUTES = 5;
export const MAINTENANCE_SCHEDULE_ID = 'crucible-maintenance';
export const MAINTENANCE_WORKFLOW_TYPE = 'maintenanceWorkflow';
