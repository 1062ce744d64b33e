// The Updates and signals of every job, as the definitions `defineUpdate`/`defineSignal` return (temporalio
// samples-typescript, message-passing/introduction): the workflow sets its handlers with these objects and the API sends
// them through the job seam (integrations/temporal/jobs.ts), so a name or an argument type cannot drift between the two.
// Deterministic: the workflow SDK's definition helpers and domain types only; the API may import this module.
import { defineSignal, defineUpdate } from '@temporalio/workflow';
import type { AnswersInput, ApproveInput, ApproveResult, ReviseInput, StepResult } from '../domain/authoring/session.ts';
import type { ReconcileTrigger } from '../domain/billing/rules.ts';
import type { StepDeadline } from '../domain/jobs.ts';

/** Answers to the session's open questions (POST /v1/authoring-sessions/{session_id}/answers). */
export const answersUpdate = defineUpdate<StepResult, [AnswersInput, StepDeadline | null]>('answers');
/** Slot values and/or instructions for another AI iteration (…/revise). */
export const reviseUpdate = defineUpdate<StepResult, [ReviseInput, StepDeadline | null]>('revise');
/** Saves the latest checkpoint's world as a world revision (…/approve). */
export const approveUpdate = defineUpdate<ApproveResult, [ApproveInput, StepDeadline | null]>('approve');

/** A payment event (or the checkout's creation) for the checkout-reconciliation workflow of an intent. */
export type CheckoutSignal = { trigger: ReconcileTrigger; session_id: string };
export const checkoutEventSignal = defineSignal<[CheckoutSignal]>('checkoutEvent');
