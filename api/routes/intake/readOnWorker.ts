// An extraction request with a PDF is read on a worker, never in the API process (docs/deploy.md "Where the work runs";
// docs/decisions.md "PDFs are read on workers, staged in the database"). The request's sources are staged sealed in the
// database, a short workflow reads them on a worker's compute pool and stores them, and its result (the source ids,
// never text) brings the API back to the stored rows, answered as a request read here would be. Whatever fails, the
// staged sources do not outlive the request.
import { type Client, WorkflowFailedError } from '@temporalio/client';
import { TimeoutFailure } from '@temporalio/common';
import { checkInputLimits, type ExtractionInput } from '../../../compute/extraction.ts';
import { type ErrorCode, ERROR_STATUS, isServiceError, ServiceError } from '../../../domain/errors.ts';
import { newId } from '../../../domain/ids.ts';
import {
  INTAKE_READ_WORKFLOW_TYPE,
  type IntakeReadInput,
  type IntakeReadResult,
  intakeReadWorkflowId,
  causeChain,
  typedFailureOf,
} from '../../../domain/jobs.ts';
import { jobSearchAttributes, TEMPORAL_CALL_DEADLINE_MS, temporalUnavailable, temporalUnreachable } from '../../../integrations/temporal/jobs.ts';
import { deleteStagedRead, stageSources, type StagedOwner } from '../../../store/intake/staged.ts';
import { findOrgSources, type SourceView } from '../../../store/intake/sources.ts';
import type { AppDeps } from '../../context.ts';

/** What a 503 for a document reader that did not answer suggests as `Retry-After`. */
export const READER_RETRY_AFTER_SECONDS = 10;

/** The 503 declared on the route. */
export const READER_UNAVAILABLE =
  'TEMPORARILY_UNAVAILABLE: no document reader (a worker) read the PDFs within CRUCIBLE_PDF_READ_WAIT_SECONDS; nothing was stored; send them again';

function readerUnavailable(wait_seconds: number): ServiceError {
  return new ServiceError(
    'TEMPORARILY_UNAVAILABLE',
    `The document reader is unavailable: no worker read the PDFs within ${wait_seconds} seconds, so nothing was stored. Send the same files again in a little while, or send the text instead.`,
    { dependency: 'worker', wait_seconds },
    { retry_after_seconds: READER_RETRY_AFTER_SECONDS },
  );
}

/** Whether the chain holds a timeout (the workflow's execution timeout, or every attempt's heartbeat lost). */
function timedOut(error: unknown): boolean {
  return [...causeChain(error)].some((link) => link instanceof TimeoutFailure);
}

/** The details the innermost typed failure carries (the activity's ServiceError details: activities/index.ts failureFor). */
function typedDetails(error: unknown, type: string): ServiceError['details'] {
  let details: ServiceError['details'] = [];
  for (const link of causeChain(error)) {
    const failure = link as { type?: unknown; details?: unknown };
    if (failure.type === type && Array.isArray(failure.details)) details = failure.details as ServiceError['details'];
  }
  return details;
}

/**
 * The answer for a read that did not end with the source ids: the activity's ServiceError as it threw it (a limit the
 * request broke), 503 when no worker read the request in time or Temporal could not be reached, else as it is (500).
 */
export function readFailure(error: unknown, wait_seconds: number): unknown {
  if (isServiceError(error)) return error;
  const typed = typedFailureOf(error);
  if (typed && typed.type in ERROR_STATUS) return new ServiceError(typed.type as ErrorCode, typed.message, typedDetails(error, typed.type));
  if (timedOut(error) || temporalUnreachable(error)) return readerUnavailable(wait_seconds);
  if (error instanceof WorkflowFailedError) return new ServiceError('INTERNAL', 'The document reader failed; nothing was stored. Send the files again.');
  return error;
}

/** Starts the read (bounded like every job start) and waits for its result at most `wait_ms`. */
async function readOnWorker(client: Client, task_queue: string, owner: StagedOwner, input: IntakeReadInput, wait_ms: number): Promise<IntakeReadResult> {
  const workflowId = intakeReadWorkflowId(input.staged_id);
  let handle: Awaited<ReturnType<Client['workflow']['start']>>;
  try {
    handle = await client.withDeadline(Date.now() + TEMPORAL_CALL_DEADLINE_MS, () =>
      client.workflow.start(INTAKE_READ_WORKFLOW_TYPE, {
        taskQueue: task_queue,
        workflowId,
        args: [input],
        // Temporal ends the read when the API stops waiting: a worker that comes later finds nothing to do.
        workflowExecutionTimeout: wait_ms,
        typedSearchAttributes: jobSearchAttributes({ kind: 'intake_read', resource_id: input.staged_id, org_id: owner.org_id, project_id: owner.project_id }),
      }),
    );
  } catch (error) {
    if (temporalUnreachable(error)) throw temporalUnavailable('the PDF reading');
    throw error;
  }
  return (await client.withDeadline(Date.now() + wait_ms + TEMPORAL_CALL_DEADLINE_MS, () => handle.result())) as IntakeReadResult;
}

/** The stored sources of `ids`, in their order. */
async function storedSources(deps: AppDeps, org_id: string, ids: string[]): Promise<SourceView[] | null> {
  const found = new Map((await findOrgSources(deps.db, org_id, ids)).map((source) => [source.id, source]));
  const sources = ids.map((id) => found.get(id));
  return sources.every((source) => source !== undefined) ? (sources as SourceView[]) : null;
}

/**
 * Reads a request with a PDF on a worker and answers its stored sources, as extractSources and insertSources would have
 * here. The limits are checked first (the same 413 and 422, nothing staged); without a worker in time it is 503 and
 * nothing is kept.
 */
export async function extractOnWorker(deps: AppDeps, owner: StagedOwner, inputs: ExtractionInput[]): Promise<SourceView[]> {
  checkInputLimits(inputs);
  const wait_seconds = deps.config.pdf_read_wait_seconds;
  if (!deps.temporal) throw readerUnavailable(wait_seconds);
  const input: IntakeReadInput = { staged_id: newId('ext'), source_ids: inputs.map(() => newId('src')) };
  await stageSources(deps.db, { id: input.staged_id, master_key: deps.config.master_key, ...owner, inputs });
  try {
    const { source_ids } = await readOnWorker(deps.temporal.client, deps.temporal.task_queue, owner, input, wait_seconds * 1000);
    const sources = await storedSources(deps, owner.org_id, source_ids);
    if (!sources) throw new ServiceError('INTERNAL', 'The document reader reported sources that are not stored; send the files again.');
    return sources;
  } catch (error) {
    // The staged row goes whatever happened. When it was already gone the worker finished just as the wait ended: its
    // sources are stored, and answered.
    const deleted = await deps.db.transaction((tx) => deleteStagedRead(tx, input.staged_id));
    if (!deleted) {
      const sources = await storedSources(deps, owner.org_id, input.source_ids);
      if (sources) return sources;
    }
    throw readFailure(error, wait_seconds);
  }
}
