// What an authoring session's workflow carries and what its messages take (spec: Authoring sessions (beta)): the start
// an activity loads, the state continued-as-new, and the Update arguments. Types only, plus the credits the first step
// may need (the create call refuses a session the organization cannot cover). Pure.
import type { Static } from 'typebox';
import type { AnswersBody, ReviseBody } from '../contracts/authoring.ts';
import type { IntakeSpec } from '../contracts/intakeSpec.ts';
import type { WorldSpec } from '../contracts/worldSpec.ts';
import { type AiLimits, type AiUsage, limitReached, ZERO_USAGE } from './checkpoint.ts';
import { type AuthoringDraft, type Question, queueTemplate, type Slot, type SlotValue, startingTemplate } from './draft.ts';
import { authoringCallBound, authoringDraftPrompt } from './register.ts';

export type AuthoringStart = {
  session_id: string;
  org_id: string;
  project_id: string;
  byok_provider: 'openai' | 'anthropic' | 'google' | null;
  /** the session's AI steps run on the offline heuristic (no byok_provider and the deployment's hosted provider is offline) */
  offline?: boolean;
  created_by: string;
  ai_limits: AiLimits;
  wait_seconds_max: number;
  /** Steps one workflow run takes before it continues as new (the worker's CRUCIBLE_AUTHORING_STEPS_PER_RUN_MAX). */
  steps_per_run_max: number;
  credits_per_1k_tokens: number;
  /** What the create call reserved for the first AI step (firstStepCreditsMax), which that step's saga replays; null: nothing. */
  first_step_credits_reserved?: number | null;
  intake: IntakeSpec | null;
  template: WorldSpec;
  slots: Slot[];
  filled: Record<string, SlotValue>;
};

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

/** The workflow's input: the session, and its state when it continues as new. */
export type AuthoringSessionInput = { session_id: string; state?: AuthoringState };
export type AuthoringSessionResult = { status: 'approved' | 'expired' | 'failed'; world_revision_id?: string };

/** The answers Update's argument: the request body as validated (domain/contracts/authoring.ts). */
export type AnswersInput = Static<typeof AnswersBody>;
/** The revise Update's argument: the request body as validated. */
export type ReviseInput = Static<typeof ReviseBody>;
export type ApproveInput = { approved_by: string };
export type StepResult = { checkpoint: number };
export type ApproveResult = { world_revision_id: string };

/**
 * What a new session's first step reserves, the rule its workflow follows (workflows/authoringSessionState.ts: runStep):
 * one drafting call's bound when a slot is open and the session's AI limits allow the call; 0 when the starting world
 * fills every slot (no AI step), the limits refuse the call, or the organization's own key pays (spec: What the
 * service does 7). The create call reserves it (store/jobs.ts).
 */
export function firstStepCreditsMax(input: {
  intake: IntakeSpec | null;
  starting_world: WorldSpec | null;
  byok: boolean;
  credits_per_1k_tokens: number;
  ai_limits: AiLimits;
}): number {
  const template = input.starting_world ? startingTemplate(input.starting_world) : { ...queueTemplate(input.intake), filled: {} };
  if (input.byok || template.slots.every((slot) => template.filled[slot.id])) return 0;
  const prompt = authoringDraftPrompt({ intake: input.intake, slots: template.slots, filled: template.filled, instructions: null });
  const bound = authoringCallBound(prompt, false, input.credits_per_1k_tokens);
  return limitReached(ZERO_USAGE, input.ai_limits, bound.tokens) === null ? bound.credits : 0;
}

/** A call a waiting session may take. */
export type AuthoringCall = 'answers' | 'revise' | 'approve';

/**
 * The calls a session accepts now (the session's `accepts`): none unless it waits with a checkpoint; answers while a
 * question is open, revise always, approve once the checkpoint's world validates. The workflow's Update validators
 * (workflows/authoringSessionState.ts) refuse the rest with their reasons.
 */
export function acceptedCalls(status: string, checkpoint: { questions: readonly unknown[]; validation: { valid: boolean } } | null): AuthoringCall[] {
  if (status !== 'waiting' || !checkpoint) return [];
  const calls: AuthoringCall[] = [];
  if (checkpoint.questions.length > 0) calls.push('answers');
  calls.push('revise');
  if (checkpoint.validation.valid) calls.push('approve');
  return calls;
}
