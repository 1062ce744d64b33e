// Drafting an IntakeSpec from a project's processed sources (issue 4 item 4), started by POST /v1/projects/{id}/intakes/parse
// with id intake-draft-<draft id>. Reads top to bottom as the process:
//   mark the draft drafting → reserve credits → read the processed sources → build the prompt → call the model
//   → settle credits at actual usage → check citations, store the draft and mark it succeeded.
// A failure marks the draft failed and releases the reservation; a cancellation settles what was used and marks it canceled.
import { ApplicationFailure, CancellationScope, isCancellation, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import type { DraftError, DraftUsage } from '../activities/intake.ts';
import type { IntakeSpec } from '../domain/contracts/intakeSpec.ts';
import { INTAKE_DRAFT_MAX_OUTPUT_TOKENS, INTAKE_DRAFT_TASK, INTAKE_SPEC_SCHEMA_NAME, intakeDraftSystem } from '../domain/intake/register.ts';
import { buildIntakeDraftUserMessage } from '../domain/prompts/intakeDraft.ts';
import { type Meter, meteredWork } from './credits.ts';
import { startQueued } from './reconcile.ts';

const { startIntakeDraft, loadIntakeDraftSources, completeIntakeDraft, endIntakeDraft, queuedIntakeDraftsToStart } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '500 milliseconds', maximumInterval: '30 seconds', maximumAttempts: 20 },
});

// A model call may take minutes; transient provider failures are retried a few times (the gateway types the rest as non-retryable).
const { callModel } = proxyActivities<Activities>({
  startToCloseTimeout: '6 minutes',
  retry: { initialInterval: '2 seconds', maximumInterval: '1 minute', backoffCoefficient: 2, maximumAttempts: 4 },
});

export type IntakeDraftWorkflowInput = { draft_id: string };
export type IntakeDraftWorkflowResult = { status: 'succeeded' | 'failed' | 'canceled' | 'queued' | 'drafting' };

/** The code and message of a failure, for the draft row: the innermost ApplicationFailure's type, never a stack. */
function failureOf(error: unknown): DraftError {
  let current: unknown = error;
  let found: ApplicationFailure | null = null;
  for (let depth = 0; current && depth < 10; depth++) {
    if (current instanceof ApplicationFailure) found = current;
    current = (current as { cause?: unknown }).cause;
  }
  if (found) return { code: found.type ?? 'INTERNAL', message: found.message };
  return { code: 'INTERNAL', message: 'the drafting workflow failed; try again' };
}

export async function intakeDraftWorkflow(input: IntakeDraftWorkflowInput): Promise<IntakeDraftWorkflowResult> {
  // Non-cancellable: once the row says drafting, this workflow must be the one to end it.
  const job = await CancellationScope.nonCancellable(() => startIntakeDraft({ draft_id: input.draft_id }));
  if (job.status !== 'drafting') return { status: job.status }; // ended already (a replayed start): nothing to do
  let usage: DraftUsage | null = null;
  const draft = async (meter: Meter) => {
    const sources = await loadIntakeDraftSources({ draft_id: job.draft_id });
    let prompt: string;
    try {
      prompt = buildIntakeDraftUserMessage(sources);
    } catch (error) {
      throw ApplicationFailure.nonRetryable((error as Error).message, (error as { code?: string }).code ?? 'INTERNAL');
    }
    const result = await callModel({
      org_id: job.org_id,
      subject: { project_id: job.project_id, kind: 'intake_draft', id: job.draft_id },
      task: INTAKE_DRAFT_TASK,
      byok_provider: job.byok_provider,
      system: intakeDraftSystem(),
      prompt,
      schema_name: INTAKE_SPEC_SCHEMA_NAME,
      offline_input: { sources },
      max_output_tokens: INTAKE_DRAFT_MAX_OUTPUT_TOKENS,
    });
    usage = {
      provider: result.provider,
      model: result.model,
      input_tokens: result.input_tokens,
      output_tokens: result.output_tokens,
      credits_charged: result.credits_charged,
    };
    meter.add(result.credits_charged);
    return { spec: result.object as IntakeSpec, usage, heuristic: result.heuristic };
  };
  try {
    // With the organization's own key (or a free deployment) credits_max is 0 and nothing is reserved.
    const drafted = await meteredWork(
      {
        transfer_id_base: job.draft_id,
        org_id: job.org_id,
        subject: { project_id: job.project_id, kind: 'intake_draft', id: job.draft_id },
        credits_max: job.credits_max,
        reason: 'intake draft',
        caused_by: job.created_by,
      },
      draft,
    );
    // After settlement: a draft reads succeeded only once its credits are settled.
    await completeIntakeDraft({ draft_id: job.draft_id, ...drafted });
    return { status: 'succeeded' };
  } catch (error) {
    if (isCancellation(error)) {
      await CancellationScope.nonCancellable(() =>
        endIntakeDraft({ draft_id: job.draft_id, status: 'canceled', error: { code: 'CANCELED', message: 'the draft was canceled' }, usage }),
      );
      throw error;
    }
    await endIntakeDraft({ draft_id: job.draft_id, status: 'failed', error: failureOf(error), usage });
    return { status: 'failed' };
  }
}

/** A draft still queued after this long is (re)started by the reconciler; one whose workflow runs is left alone. */
export const QUEUED_DRAFT_RESTART_AFTER_MS = 5 * 60 * 1000;
/** Drafts (re)started per reconciler pass. */
export const QUEUED_DRAFTS_PER_PASS = 100;

/**
 * The drafts' reconciler (ARCHITECTURE.md: How a request flows, step 3), for the maintenance schedule to run: starts the
 * workflow of every draft left queued, as an abandoned child under the draft's deterministic id; one already started is skipped.
 */
export async function reconcileQueuedIntakeDraftsWorkflow(input: { older_than_ms?: number } = {}): Promise<{ started: number }> {
  const ids = await queuedIntakeDraftsToStart({ older_than_ms: input.older_than_ms ?? QUEUED_DRAFT_RESTART_AFTER_MS, limit: QUEUED_DRAFTS_PER_PASS });
  return startQueued(ids, intakeDraftWorkflow, (draft_id) => ({ workflowId: `intake-draft-${draft_id}`, input: { draft_id } }));
}
