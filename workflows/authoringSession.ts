// One authoring session (spec: Authoring sessions (beta)), started by POST /v1/projects/{project_id}/authoring-sessions with
// id authoring-<session id>. Reads top to bottom as the process:
//   load the intake and template → draft (one AI iteration, metered through the credit saga) → checkpoint (validate,
//   smoke run, rules, stored by an activity) → wait for answers / revise / approve (Temporal Updates with validators)
//   → repeat; approve saves a world revision and ends; no step within the configured wait → expired.
// The whole-session AI preparation limit (calls, tokens, AI iterations, wall seconds) is checked before every AI step; when
// reached, AI work stops with cap_reached, the last checkpoint stays, answers are applied by rule and approve is accepted.
// Long sessions continue-as-new carrying their state. Deterministic: imports only the workflow SDK, types and pure helpers.
import { allHandlersFinished, ApplicationFailure, ContinueAsNew, condition, isCancellation, continueAsNew, defineUpdate, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import type { AuthoringStart } from '../activities/authoring.ts';
import { type AiUsage, limitReached, ZERO_USAGE } from '../domain/authoring/checkpoint.ts';
import { type AuthoringDraft, applyProposals, type Question, type SlotValue } from '../domain/authoring/draft.ts';
import { AUTHORING_DRAFT_MAX_OUTPUT_TOKENS, AUTHORING_DRAFT_SCHEMA_NAME, AUTHORING_DRAFT_TASK, authoringCallBound, authoringDraftPrompt, authoringDraftSystem } from '../domain/authoring/register.ts';
import { UPDATE_REQUEST_EXPIRED } from '../domain/jobs.ts';
import { meteredWork } from './credits.ts';

const { loadAuthoringSession, markAuthoringDrafting, writeAuthoringCheckpoint, approveAuthoringSession, endAuthoringSession } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '500 milliseconds', maximumInterval: '30 seconds', maximumAttempts: 20 },
});
// The call heartbeats while the provider answers, so a worker that dies mid-call is noticed in a heartbeat timeout,
// not after the whole start-to-close timeout; the retry is the same activity execution (one ai_usage row, one charge).
const { callModel } = proxyActivities<Activities>({
  startToCloseTimeout: '6 minutes',
  heartbeatTimeout: '20 seconds',
  retry: { initialInterval: '2 seconds', maximumInterval: '1 minute', backoffCoefficient: 2, maximumAttempts: 4 },
});

/** Steps (drafts, answers, revisions) one workflow run takes before it continues as new, unless the worker says otherwise. */
export const AUTHORING_STEPS_PER_RUN_MAX = 25;


export type AnswersInput = { answers: Array<{ question_id: string; value: number; note?: string }> };
export type ReviseInput = { values?: Array<{ slot: string; value: number; reference?: string }>; instructions?: string | null };
export type StepResult = { checkpoint: number };
/** When the API stops waiting for a worker to accept the step (ms since the epoch); a later delivery is refused. */
export type StepDeadline = { not_after_ms: number };

export const answersUpdate = defineUpdate<StepResult, [AnswersInput, StepDeadline | null]>('answers');
export const reviseUpdate = defineUpdate<StepResult, [ReviseInput, StepDeadline | null]>('revise');
export const approveUpdate = defineUpdate<{ world_revision_id: string }, [{ approved_by: string }, StepDeadline | null]>('approve');

type Step = { id: number; kind: 'draft' | 'answers' | 'revise'; answers?: AnswersInput['answers']; revise?: ReviseInput };

export type AuthoringState = {
  start: AuthoringStart;
  status: 'drafting' | 'waiting' | 'approved';
  filled: Record<string, SlotValue>;
  questions: Question[];
  checkpoint: number;
  usage: AiUsage;
  cap_reached: boolean;
  valid: boolean;
  last_draft: AuthoringDraft | null;
  next_step_id: number;
  done_step_id: number;
};

export type AuthoringSessionInput = { session_id: string; state?: AuthoringState };

function conflict(message: string): never {
  throw ApplicationFailure.create({ type: 'CONFLICT', message, nonRetryable: true });
}

/** A step the API gave up on (no worker accepted it in time) is refused when it arrives late: a refused Update leaves no trace. */
function refuseLate(deadline: StepDeadline | null | undefined): void {
  if (deadline && Date.now() > deadline.not_after_ms) {
    throw ApplicationFailure.create({ type: UPDATE_REQUEST_EXPIRED, message: 'the request waited longer than the API did for a worker; it changed nothing; send it again', nonRetryable: true });
  }
}

export async function authoringSessionWorkflow(input: AuthoringSessionInput): Promise<{ status: 'approved' | 'expired' | 'failed'; world_revision_id?: string }> {
  const state: AuthoringState =
    input.state ??
    (await (async () => {
      const start = await loadAuthoringSession({ session_id: input.session_id });
      return { start, status: 'drafting', filled: start.filled, questions: [], checkpoint: 0, usage: { ...ZERO_USAGE }, cap_reached: false, valid: false, last_draft: null, next_step_id: 1, done_step_id: 0 } as AuthoringState;
    })());
  const { start } = state;
  const queue: Step[] = [];
  let world_revision_id: string | null = null;
  let steps_this_run = 0;

  const enqueue = async (step: Omit<Step, 'id'>): Promise<StepResult> => {
    const id = state.next_step_id++;
    state.status = 'drafting'; // later validators see the session busy
    queue.push({ ...step, id });
    await condition(() => state.done_step_id >= id);
    return { checkpoint: state.checkpoint };
  };

  setHandler(answersUpdate, (body) => enqueue({ kind: 'answers', answers: body.answers }), {
    validator: (body, deadline) => {
      refuseLate(deadline);
      if (state.status !== 'waiting') conflict(`the session is ${state.status}; answers are accepted only while it waits`);
      if (state.questions.length === 0) conflict('nothing is asked: the session has no open question; revise or approve instead');
      for (const answer of body.answers) {
        if (!state.questions.some((question) => question.id === answer.question_id)) conflict(`question ${answer.question_id} is not open; open questions: ${state.questions.map((q) => q.id).join(', ')}`);
      }
    },
  });
  setHandler(reviseUpdate, (body) => enqueue({ kind: 'revise', revise: body }), {
    validator: (body, deadline) => {
      refuseLate(deadline);
      if (state.status !== 'waiting') conflict(`the session is ${state.status}; revise is accepted only while it waits`);
      if (body.instructions && state.cap_reached) conflict('the session reached its AI preparation limit (cap_reached): no more AI steps; revise with values only, or approve');
      for (const value of body.values ?? []) if (!start.slots.some((slot) => slot.id === value.slot)) conflict(`slot ${value.slot} is not a slot of this world`);
    },
  });
  setHandler(
    approveUpdate,
    async (body) => {
      state.status = 'approved';
      const approved = await approveAuthoringSession({ session_id: start.session_id, approved_by: body.approved_by });
      world_revision_id = approved.world_revision_id;
      return approved;
    },
    {
      validator: (_body, deadline) => {
        refuseLate(deadline);
        if (state.status !== 'waiting') conflict(`the session is ${state.status}; approve is accepted only while it waits`);
        if (!state.valid) conflict("the checkpoint's world does not validate yet; answer the questions or revise first (see next_steps)");
      },
    },
  );

  const runStep = async (step: Step) => {
    await markAuthoringDrafting({ session_id: start.session_id });
    const filled = { ...state.filled };
    const at = state.checkpoint + 1;
    for (const answer of step.answers ?? []) {
      const question = state.questions.find((q) => q.id === answer.question_id);
      if (question) filled[question.slot] = { value: answer.value, unit: question.unit, source: { kind: 'answer', question_id: question.id, answered_at_checkpoint: at } };
    }
    for (const value of step.revise?.values ?? []) {
      const slot = start.slots.find((candidate) => candidate.id === value.slot)!;
      filled[slot.id] = {
        value: value.value,
        unit: slot.unit,
        source: value.reference ? { kind: 'reference', reference: value.reference } : { kind: 'answer', question_id: `revise_${at}`, answered_at_checkpoint: at },
      };
    }
    const draftInput = { intake: start.intake, slots: start.slots, filled, instructions: step.revise?.instructions ?? null };
    const prompt = authoringDraftPrompt(draftInput);
    const bound = authoringCallBound(prompt, start.byok_provider !== null, 0);
    const open = start.slots.some((slot) => !filled[slot.id]);
    // An AI iteration runs when something is still open or the user asked for one; never past the session's limit.
    let draft: AuthoringDraft | null = null;
    if ((open || step.revise?.instructions) && !state.cap_reached && limitReached(state.usage, start.ai_limits, bound.tokens) === null) {
      const started = Date.now();
      const credits_max = (await creditsBound(prompt)).credits;
      const metered = await meteredWork(
        {
          transfer_id_base: `${start.session_id}:ai:${state.usage.ai_iterations + 1}`,
          org_id: start.org_id,
          subject: { project_id: start.project_id, kind: 'session', id: start.session_id },
          credits_max,
          reason: 'authoring session AI step',
          caused_by: start.created_by,
        },
        async (meter) => {
          const result = await callModel({
            org_id: start.org_id,
            subject: { project_id: start.project_id, kind: 'session', id: start.session_id },
            task: AUTHORING_DRAFT_TASK,
            byok_provider: start.byok_provider,
            system: authoringDraftSystem(),
            prompt,
            schema_name: AUTHORING_DRAFT_SCHEMA_NAME,
            offline_input: draftInput,
            max_output_tokens: AUTHORING_DRAFT_MAX_OUTPUT_TOKENS,
          });
          meter.add(result.credits_charged);
          state.usage = {
            calls: state.usage.calls + 1,
            tokens: state.usage.tokens + result.input_tokens + result.output_tokens,
            ai_iterations: state.usage.ai_iterations + 1,
            wall_seconds: state.usage.wall_seconds + Math.max(0, Math.round((Date.now() - started) / 1000)),
            credits: state.usage.credits + result.credits_charged,
          };
          return result.object as AuthoringDraft;
        },
      );
      // The saga settled (or released) already; a failed or canceled AI step ends the step as before.
      if (metered.status !== 'succeeded') throw metered.error;
      draft = metered.value;
      state.last_draft = draft;
    }
    const applied = applyProposals({ draft: draft ?? { name: '', description: '', proposals: [], next_steps: [] }, slots: start.slots, filled, intake: start.intake, checkpoint: at });
    const reached = limitReached(state.usage, start.ai_limits, bound.tokens);
    state.cap_reached = state.cap_reached || reached !== null;
    state.filled = applied.filled;
    state.questions = applied.questions;
    const written = await writeAuthoringCheckpoint({
      session_id: start.session_id,
      number: at,
      reason: step.kind,
      intake: start.intake,
      template: start.template,
      slots: start.slots,
      filled: state.filled,
      questions: state.questions,
      draft,
      ai: {
        estimated: { calls: 1, tokens: bound.tokens, ai_iterations: 1, wall_seconds: 0, credits: (await creditsBound(prompt)).credits },
        session_total: state.usage,
        limits: start.ai_limits,
        cap_reached: state.cap_reached,
        limit_reached: reached,
        heuristic: draft !== null && start.byok_provider === null && draft.description.startsWith('Drafted by the offline heuristic'),
      },
    });
    state.checkpoint = written.checkpoint;
    state.valid = written.valid;
  };

  // The reservation for one AI step: the call's upper bound at the deployment's price (0 with the organization's own key).
  async function creditsBound(prompt: string): Promise<{ credits: number }> {
    return { credits: authoringCallBound(prompt, start.byok_provider !== null, start.credits_per_1k_tokens).credits };
  }

  try {
    if (state.checkpoint === 0) {
      await runStep({ id: 0, kind: 'draft' });
      state.status = 'waiting';
    }
    for (;;) {
      const woke = await condition(() => queue.length > 0 || state.status === 'approved', start.wait_seconds_max * 1000);
      if (state.status === 'approved') {
        await condition(() => world_revision_id !== null);
        await condition(allHandlersFinished);
        return { status: 'approved', world_revision_id: world_revision_id! };
      }
      if (!woke) {
        await endAuthoringSession({ session_id: start.session_id, status: 'expired', error: null });
        return { status: 'expired' };
      }
      const step = queue.shift()!;
      await runStep(step);
      state.done_step_id = step.id;
      state.status = 'waiting';
      steps_this_run++;
      if (queue.length === 0 && (steps_this_run >= (start.steps_per_run_max ?? AUTHORING_STEPS_PER_RUN_MAX) || workflowInfo().continueAsNewSuggested)) {
        await condition(allHandlersFinished);
        if (queue.length === 0 && state.status === 'waiting') await continueAsNew<typeof authoringSessionWorkflow>({ session_id: start.session_id, state });
      }
    }
  } catch (error) {
    if (error instanceof ContinueAsNew || isCancellation(error)) throw error;
    // A step that cannot go on (credits that cannot cover an AI step, a provider refusing) ends the session failed;
    // the credit saga has already released what the failed step reserved.
    const failure = error instanceof ApplicationFailure ? error : null;
    await endAuthoringSession({ session_id: start.session_id, status: 'failed', error: { code: failure?.type ?? 'INTERNAL', message: String((error as Error)?.message ?? error).slice(0, 500) } });
    return { status: 'failed' };
  }
}
