// How a workflow fails and how a failure becomes the {code, message} a row records (domain/jobs.ts: jobFailureOf, the
// one cause-chain reader). Deterministic: imports only the workflow SDK and domain.
import { ApplicationFailure, CancellationScope, patched } from '@temporalio/workflow';
import { type JobFailure, jobFailureOf, type TypedFailureType } from '../domain/jobs.ts';

export type { JobFailure };

/** Throws a typed, non-retryable failure (a refused step, a rule the workflow checks). */
export function fail(type: TypedFailureType, message: string): never {
  throw ApplicationFailure.create({ type, message, nonRetryable: true });
}

/**
 * The code and message a failed job records: the innermost typed failure in the cause chain (an activity's
 * INSUFFICIENT_CREDITS under its ActivityFailure, a provider's PROVIDER_NOT_CONFIGURED, ...). Anything untyped is a
 * bug of ours: INTERNAL with `otherwise`, never a stack or an internal message.
 */
export function failureOf(error: unknown, otherwise: string): JobFailure {
  return jobFailureOf(error) ?? { code: 'INTERNAL', message: otherwise };
}

/** Jobs started before a cancel waited for their first step replay with that step cancellable (Temporal's patching). */
export const JOB_START_HOLDS_PATCH = 'job-start-holds';

/**
 * A job's first step, the one that reads its queued row (or moves it on). A cancel through Temporal (an operator) that
 * lands during it, or before any worker took the workflow, waits for it; the workflow then goes on into the credit saga,
 * whose closing step ends the row canceled and resolves the reservation made at creation. A cancel that failed the
 * workflow here would leave the row queued, holding its credits, with nothing to end it.
 */
export function startingStep<T>(step: () => Promise<T>): Promise<T> {
  return patched(JOB_START_HOLDS_PATCH) ? CancellationScope.nonCancellable(step) : step();
}
