// How a workflow fails and how a failure becomes the {code, message} a row records (domain/jobs.ts: jobFailureOf, the
// one cause-chain reader). Deterministic: imports only the workflow SDK and domain.
import { ApplicationFailure } from '@temporalio/workflow';
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
