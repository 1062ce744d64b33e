// Drafting an IntakeSpec from a project's processed sources started by POST /v1/projects/{id}/intakes/parse
// with id intake-draft-<draft id>. Reads top to bottom as the process:
//   mark the draft drafting → reserve credits → read the processed sources → build the prompt → call the model
//   → settle credits at actual usage → check citations, store the draft and mark it succeeded.
// A failure marks the draft failed and releases the reservation; a cancellation settles what was used and marks it canceled.
import { ApplicationFailure, CancellationScope, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import type { DraftUsage } from '../activities/intake.ts';
import type { IntakeSpec } from '../domain/contracts/intakeSpec.ts';
import { INTAKE_DRAFT_MAX_OUTPUT_TOKENS, INTAKE_DRAFT_TASK, INTAKE_SPEC_SCHEMA_NAME, intakeDraftSystem } from '../domain/intake/register.ts';
import { buildIntakeDraftUserMessage } from '../domain/prompts/intakeDraft.ts';
import { JOB_CREDITS } from '../domain/jobs.ts';
import { queuedActivities } from './activityQueues.ts';
import { ACTIVITY_PROFILES } from './activityOptions.ts';
import { failureOf } from './common.ts';
import { type Meter, meteredWork, recordOutcome } from './credits.ts';

const { startIntakeDraft, loadIntakeDraftSources, completeIntakeDraft, endIntakeDraft } = proxyActivities<Activities>(ACTIVITY_PROFILES.store);
const { callModel } = queuedActivities<Activities>('model', ACTIVITY_PROFILES.model);

export type IntakeDraftWorkflowInput = { draft_id: string };
export type IntakeDraftWorkflowResult = { status: 'succeeded' | 'failed' | 'canceled' | 'queued' | 'drafting' };

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
      credits_limit: meter.remaining(),
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
  // With the organization's own key (or a free deployment) credits_max is 0 and nothing is reserved.
  const outcome = await meteredWork(
    {
      transfer_id_base: job.draft_id,
      org_id: job.org_id,
      subject: { project_id: job.project_id, kind: 'intake_draft', id: job.draft_id },
      credits_max: job.credits_max,
      reason: JOB_CREDITS.intake_draft.reason,
      caused_by: job.created_by,
    },
    draft,
  );
  return recordOutcome<Awaited<ReturnType<typeof draft>>, IntakeDraftWorkflowResult>(outcome, {
    // After settlement: a draft reads succeeded only once its credits are settled.
    succeeded: async (value) => {
      await completeIntakeDraft({ draft_id: job.draft_id, ...value });
      return { status: 'succeeded' as const };
    },
    canceled: () => endIntakeDraft({ draft_id: job.draft_id, status: 'canceled', failure: { code: 'CANCELED', message: 'the draft was canceled' }, usage }),
    failed: async (error) => {
      await endIntakeDraft({ draft_id: job.draft_id, status: 'failed', failure: failureOf(error, 'the drafting workflow failed; try again'), usage });
      return { status: 'failed' as const };
    },
  });
}
