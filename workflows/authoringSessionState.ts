// The state of one authoring session's workflow and the steps it takes (as the safe-message-handlers sample keeps its
// state in a class of its own file): the Update validators, the step queue, and one step — apply answers and revise
// values, one AI iteration when it can add something (metered through the credit saga), then the checkpoint.
// Deterministic: the workflow SDK, domain, and activity types only.
import { condition, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { limitReached, ZERO_USAGE } from '../domain/authoring/checkpoint.ts';
import { type AuthoringDraft, answerNote, applyProposals, type SlotValue } from '../domain/authoring/draft.ts';
import {
  AUTHORING_DRAFT_MAX_OUTPUT_TOKENS,
  AUTHORING_DRAFT_SCHEMA_NAME,
  AUTHORING_DRAFT_TASK,
  authoringCallBound,
  authoringToolDefinitions,
  authoringDraftPrompt,
  authoringDraftSystem,
} from '../domain/authoring/register.ts';
import type { AnswersInput, ApproveInput, ApproveResult, AuthoringSessionInput, AuthoringState, ReviseInput, StepResult } from '../domain/authoring/session.ts';
import {
  authoringStepTransferBase,
  JOB_CREDITS,
  jobFailureCode,
  STEP_BUSY,
  type StepDeadline,
  type TypedFailure,
  typedFailureOf,
  UPDATE_REQUEST_EXPIRED,
} from '../domain/jobs.ts';
import { queuedActivities } from './activityQueues.ts';
import { ACTIVITY_PROFILES } from './activityOptions.ts';
import { fail } from './common.ts';
import { meteredWork, recordOutcome } from './credits.ts';

const { loadAuthoringSession, markAuthoringDrafting, approveAuthoringSession, endAuthoringSession } = proxyActivities<Activities>(ACTIVITY_PROFILES.store);
const { writeAuthoringCheckpoint } = proxyActivities<Activities>(ACTIVITY_PROFILES.checkpoint);
const { callModel } = queuedActivities<Activities>('model', ACTIVITY_PROFILES.model);

/** Steps (drafts, answers, revisions) one workflow run takes before it continues as new, unless the worker says otherwise. */
export const AUTHORING_STEPS_PER_RUN_MAX = 25;

export type Step = { id: number; kind: 'draft' | 'answers' | 'revise'; answers?: AnswersInput['answers']; revise?: ReviseInput };

const EMPTY_DRAFT: AuthoringDraft = { name: '', description: '', proposals: [], next_steps: [] };

export class AuthoringSession {
  readonly state: AuthoringState;
  readonly queue: Step[] = [];
  world_revision_id: string | null = null;
  /**
   * Set when a step could not go on: the waiting Update fails with this typed cause (a missing key stays the request's
   * 422) and the session ends failed with its job code (domain/jobs.ts: jobFailureCode).
   */
  failure: TypedFailure | null = null;
  steps_this_run = 0;

  private constructor(state: AuthoringState) {
    this.state = state;
  }

  static async load(input: AuthoringSessionInput): Promise<AuthoringSession> {
    if (input.state) return new AuthoringSession(input.state);
    const start = await loadAuthoringSession({ session_id: input.session_id });
    const state: AuthoringState = {
      start,
      status: 'drafting',
      filled: start.filled,
      questions: [],
      checkpoint: 0,
      usage: { ...ZERO_USAGE },
      cap_reached: false,
      valid: false,
      last_draft: null,
      next_step_id: 1,
      done_step_id: 0,
    };
    return new AuthoringSession(state);
  }

  // ---------- validators: a refused Update leaves no trace; each refusal carries a typed code ----------

  /** A step the API gave up on (no worker accepted it in time) is refused when it arrives late. */
  private refuseLate(deadline: StepDeadline | null | undefined): void {
    if (deadline && Date.now() > deadline.not_after_ms)
      fail(UPDATE_REQUEST_EXPIRED, 'the request waited longer than the API did for a worker; it changed nothing; send it again');
  }

  private refuseUnlessWaiting(call: string): void {
    if (this.state.status === 'drafting') fail(STEP_BUSY, `the session is drafting; ${call} is accepted only while it waits`);
    if (this.state.status !== 'waiting') fail('CONFLICT', `the session is ${this.state.status}; ${call} is accepted only while it waits`);
  }

  validateAnswers(body: AnswersInput, deadline: StepDeadline | null): void {
    this.refuseLate(deadline);
    this.refuseUnlessWaiting('answers');
    const open = this.state.questions;
    if (open.length === 0) fail('CONFLICT', 'nothing is asked: the session has no open question; revise or approve instead');
    for (const answer of body.answers) {
      if (!open.some((question) => question.id === answer.question_id))
        fail('CONFLICT', `question ${answer.question_id} is not open; open questions: ${open.map((q) => q.id).join(', ')}`);
    }
  }

  validateRevise(body: ReviseInput, deadline: StepDeadline | null): void {
    this.refuseLate(deadline);
    this.refuseUnlessWaiting('revise');
    const { start } = this.state;
    if (body.instructions && this.state.cap_reached)
      fail('CONFLICT', 'the session reached its AI preparation limit (cap_reached): no more AI steps; revise with values only, or approve');
    if (body.instructions && start.offline) {
      fail(
        'VALIDATION_FAILED',
        'The offline provider cannot follow written instructions: it only reads the numbers the intake cites. Send the values you want as values: [{slot, value, reference}], or start a session with a hosted model (byok_provider) to revise with instructions. Nothing was charged.',
      );
    }
    for (const value of body.values ?? [])
      if (!start.slots.some((slot) => slot.id === value.slot)) fail('CONFLICT', `slot ${value.slot} is not a slot of this world`);
  }

  validateApprove(deadline: StepDeadline | null): void {
    this.refuseLate(deadline);
    this.refuseUnlessWaiting('approve');
    if (!this.state.valid) fail('CONFLICT', "the checkpoint's world does not validate yet; answer the questions or revise first (see next_steps)");
  }

  // ---------- handlers ----------

  /** Queues a step and waits for its checkpoint; a step that fails fails the Update with the cause's code. */
  async enqueue(step: Omit<Step, 'id'>): Promise<StepResult> {
    const id = this.state.next_step_id++;
    this.state.status = 'drafting'; // later validators see the session busy
    this.queue.push({ ...step, id });
    await condition(() => this.state.done_step_id >= id || this.failure !== null);
    if (this.failure) fail(this.failure.type, this.failure.message);
    return { checkpoint: this.state.checkpoint };
  }

  async approve(body: ApproveInput): Promise<ApproveResult> {
    this.state.status = 'approved';
    const approved = await approveAuthoringSession({ session_id: this.state.start.session_id, approved_by: body.approved_by });
    this.world_revision_id = approved.world_revision_id;
    return approved;
  }

  // ---------- steps ----------

  /** Runs the next queued step (or the first draft) and returns to waiting. */
  async next(step: Step = this.queue.shift()!): Promise<void> {
    await this.runStep(step);
    this.state.done_step_id = Math.max(this.state.done_step_id, step.id);
    this.state.status = 'waiting';
    this.steps_this_run++;
  }

  /** True once this run took its share of steps (or Temporal suggests it) and nothing waits. */
  shouldContinueAsNew(suggested: boolean): boolean {
    return this.queue.length === 0 && (this.steps_this_run >= (this.state.start.steps_per_run_max ?? AUTHORING_STEPS_PER_RUN_MAX) || suggested);
  }

  /**
   * Ends the session failed with the innermost cause, once (the AI step's closing step may have recorded it already);
   * the credit saga has already released what the step reserved.
   */
  async end(error: unknown): Promise<void> {
    if (this.failure) return;
    this.failure = typedFailureOf(error) ?? {
      type: 'INTERNAL',
      message: 'the authoring step failed inside the service; nothing was charged for it; start a new session',
    };
    const failure = { code: jobFailureCode(this.failure.type), message: this.failure.message };
    await endAuthoringSession({ session_id: this.state.start.session_id, status: 'failed', failure });
  }

  /** Ends the session failed with CANCELED (canceled through Temporal), once; the unused reservation is voided with it. */
  async cancel(): Promise<void> {
    if (this.failure) return;
    this.failure = { type: 'CANCELED', message: 'the session was canceled by an operator; nothing more is charged for it; start a new session' };
    await endAuthoringSession({
      session_id: this.state.start.session_id,
      status: 'failed',
      failure: { code: 'CANCELED', message: this.failure.message },
    });
  }

  async expire(): Promise<void> {
    await endAuthoringSession({ session_id: this.state.start.session_id, status: 'expired', failure: null });
  }

  private applyValues(step: Step, at: number): Record<string, SlotValue> {
    const { state } = this;
    const filled = { ...state.filled };
    for (const answer of step.answers ?? []) {
      const question = state.questions.find((q) => q.id === answer.question_id);
      if (!question) continue;
      const note = answerNote(question, answer.value, answer.note);
      filled[question.slot] = {
        value: answer.value,
        unit: question.unit,
        source: { kind: 'answer', question_id: question.id, answered_at_checkpoint: at, ...(note ? { note } : {}) },
      };
    }
    for (const value of step.revise?.values ?? []) {
      const slot = state.start.slots.find((candidate) => candidate.id === value.slot)!;
      const source = value.reference
        ? { kind: 'reference' as const, reference: value.reference }
        : { kind: 'answer' as const, question_id: `revise_${at}`, answered_at_checkpoint: at };
      filled[slot.id] = { value: value.value, unit: slot.unit, source };
    }
    return filled;
  }

  /**
   * Whether an AI iteration can add something: asked for with instructions, or a slot is open — except on the offline
   * heuristic after its first draft (it reads only the intake's cited numbers, which every step applies anyway).
   */
  private wantsAi(step: Step, filled: Record<string, SlotValue>): boolean {
    const { start } = this.state;
    if (step.revise?.instructions) return true;
    const open = start.slots.some((slot) => !filled[slot.id]);
    return open && !(start.offline && this.state.usage.ai_iterations > 0);
  }

  private async runStep(step: Step): Promise<void> {
    const { state } = this;
    const { start } = state;
    await markAuthoringDrafting({ session_id: start.session_id });
    const at = state.checkpoint + 1;
    const filled = this.applyValues(step, at);
    const draftInput = { intake: start.intake, slots: start.slots, filled, instructions: step.revise?.instructions ?? null };
    const prompt = authoringDraftPrompt(draftInput);
    const bound = authoringCallBound(prompt, start.byok_provider !== null, start.credits_per_1k_tokens);
    let draft: AuthoringDraft | null = null;
    if (this.wantsAi(step, filled) && !state.cap_reached && limitReached(state.usage, start.ai_limits, bound.tokens) === null) {
      draft = await this.aiIteration(draftInput, prompt, bound.credits);
      state.last_draft = draft;
    }
    const applied = applyProposals({ draft: draft ?? EMPTY_DRAFT, slots: start.slots, filled, intake: start.intake, checkpoint: at });
    const reached = limitReached(state.usage, start.ai_limits, bound.tokens);
    state.cap_reached = state.cap_reached || reached !== null;
    state.filled = applied.filled;
    state.questions = applied.questions;
    const heuristic = draft !== null && start.byok_provider === null && draft.description.startsWith('Drafted by the offline heuristic');
    const written = await writeAuthoringCheckpoint({
      session_id: start.session_id,
      number: at,
      reason: step.kind,
      revise_instructions: Boolean(step.revise?.instructions),
      intake: start.intake,
      template: start.template,
      slots: start.slots,
      filled: state.filled,
      questions: state.questions,
      draft,
      ai: {
        estimated: { calls: 1, tokens: bound.tokens, ai_iterations: 1, wall_seconds: 0, credits: bound.credits },
        session_total: state.usage,
        limits: start.ai_limits,
        cap_reached: state.cap_reached,
        limit_reached: reached,
        heuristic,
      },
    });
    state.checkpoint = written.checkpoint;
    state.valid = written.valid;
  }

  /** One drafting call inside the credit saga: the call's bound reserved, settled at what it charged. */
  private async aiIteration(draftInput: Parameters<typeof authoringDraftPrompt>[0], prompt: string, credits_max: number): Promise<AuthoringDraft> {
    const { state } = this;
    const { start } = state;
    const subject = { project_id: start.project_id, kind: 'session' as const, id: start.session_id };
    const started = Date.now();
    // The first AI step replays what the create call reserved (the same rule; the amount it recorded wins).
    const reserved = state.usage.ai_iterations === 0 ? (start.first_step_credits_reserved ?? credits_max) : credits_max;
    const metered = await meteredWork(
      {
        transfer_id_base: authoringStepTransferBase(start.session_id, state.usage.ai_iterations + 1),
        org_id: start.org_id,
        subject,
        credits_max: reserved,
        reason: JOB_CREDITS.authoring.reason,
        caused_by: start.created_by,
      },
      async (meter) => {
        const result = await callModel({
          org_id: start.org_id,
          subject,
          task: AUTHORING_DRAFT_TASK,
          byok_provider: start.byok_provider,
          system: authoringDraftSystem(),
          prompt,
          schema_name: AUTHORING_DRAFT_SCHEMA_NAME,
          offline_input: draftInput,
          max_output_tokens: AUTHORING_DRAFT_MAX_OUTPUT_TOKENS,
          tools: authoringToolDefinitions(),
          credits_limit: meter.remaining(),
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
    // The closing step every job shares (workflows/credits.ts): the saga settled or released already. A canceled step
    // rethrows its cancellation; a failed one ends the session failed (the same activity, at the same point in the
    // history, as the workflow's own catch recorded it before) and fails the step.
    return recordOutcome(metered, {
      succeeded: async (draft) => draft,
      canceled: async () => undefined,
      failed: async (error) => {
        await this.end(error);
        throw error;
      },
    });
  }
}
