// One step of a session: an Update of its workflow (the definition from workflows/messages.ts) whose update id is the
// request's Idempotency-Key, so a retried request is one step; a refusal or failure answers with its typed code.
import { setTimeout as delay } from 'node:timers/promises';
import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import type { UpdateDefinition } from '@temporalio/common';
import type { Context } from 'koa';
import { AI_CALL_FAILURE_TYPES } from '../../../domain/ai/call.ts';
import { ERROR_STATUS, type ErrorCode, isServiceError, ServiceError } from '../../../domain/errors.ts';
import { jobFailureCode, STEP_BUSY, type TypedFailure, typedFailureOf, type StepDeadline, UPDATE_REQUEST_EXPIRED } from '../../../domain/jobs.ts';
import { STEP_RETRY_AFTER_SECONDS, updateJob } from '../../../integrations/temporal/jobs.ts';
import type { SessionRow } from '../../../store/authoring/sessions.ts';
import type { AppDeps } from '../../context.ts';
import { readIdempotencyKey } from '../../idempotency.ts';

/**
 * Sends one step to the session's workflow as an Update (its definition: workflows/messages.ts) whose id is the
 * Idempotency-Key; a refusal answers with its typed code (stepError). The wait for a worker to accept the step is bounded
 * (CRUCIBLE_AUTHORING_UPDATE_ACCEPT_SECONDS): past it the call is 503 TEMPORARILY_UNAVAILABLE and nothing changed.
 */
export async function step<R, B>(
  deps: AppDeps,
  ctx: Context,
  session: SessionRow,
  definition: UpdateDefinition<R, [B, StepDeadline | null]>,
  body: B,
): Promise<R> {
  const name = definition.name;
  if (session.status !== 'waiting' && session.status !== 'drafting') {
    throw new ServiceError('CONFLICT', `The authoring session is ${session.status}; it accepts no ${name} any more.`, [
      { path: '/status', message: session.status },
    ]);
  }
  if (!deps.temporal)
    throw new ServiceError(
      'TEMPORARILY_UNAVAILABLE',
      'Authoring sessions need the workflow service; none is configured.',
      {},
      { retry_after_seconds: STEP_RETRY_AFTER_SECONDS },
    );
  const key = readIdempotencyKey(ctx, true)!;
  const accept_timeout_ms = deps.config.authoring_update_accept_seconds * 1000;
  const until_ms = Date.now() + accept_timeout_ms;
  for (let attempt = 1; ; attempt++) {
    try {
      return await updateJob(
        deps.temporal,
        { kind: 'authoring', resource_id: session.id },
        { definition, body, update_id: `${name}:${key}`, accept_timeout_ms, deadline_ms: until_ms },
      );
    } catch (error) {
      if (isServiceError(error)) throw error; // the seam's own answer (503 no worker took the step)
      const code = typedFailureOf(error)?.type;
      // An earlier copy of this request (same update id) that waited past its own deadline was refused on arrival;
      // a refused Update leaves nothing behind, so this request's copy is asked for while its time lasts.
      if (code === UPDATE_REQUEST_EXPIRED) {
        if (Date.now() < until_ms - UPDATE_CATCH_UP_DELAY_MS) {
          await delay(UPDATE_CATCH_UP_DELAY_MS);
          continue;
        }
        throw new ServiceError(
          'TEMPORARILY_UNAVAILABLE',
          `No worker took the ${name} step in time; nothing changed. Send the same request again later.`,
          {},
          { retry_after_seconds: STEP_RETRY_AFTER_SECONDS },
        );
      }
      // The row says waiting once the checkpoint activity committed; a worker that restarts in between delivers this
      // Update before it applies that activity's result, so the workflow still says drafting (STEP_BUSY) for one task.
      // A refused Update leaves nothing in history, so asking again (same update id) is safe; bounded.
      if (code === STEP_BUSY && session.status === 'waiting' && attempt < UPDATE_CATCH_UP_ATTEMPTS_MAX) {
        await delay(UPDATE_CATCH_UP_DELAY_MS);
        continue;
      }
      throw stepError(error, name);
    }
  }
}

/** The 503 of a step no worker took in time (declared on answers, revise and approve). */
export const STEP_UNAVAILABLE =
  'TEMPORARILY_UNAVAILABLE: no worker accepted the step within CRUCIBLE_AUTHORING_UPDATE_ACCEPT_SECONDS; nothing changed; send it again';

/** How often a step refused only because the workflow has not caught up with its stored checkpoint is asked again. */
const UPDATE_CATCH_UP_ATTEMPTS_MAX = 50;
const UPDATE_CATCH_UP_DELAY_MS = 100;

/**
 * The API code a step's typed failure answers with: the job's code (domain/jobs.ts: jobFailureCode) where it is an API
 * error code; a key the provider refused is a provider's failure (502 PROVIDER_ERROR, the cause says PROVIDER_KEY_REJECTED);
 * a missing key is the request's (422); a busy or refused step and anything else 409.
 */
function stepErrorCode(failure: TypedFailure): ErrorCode {
  if (failure.type === AI_CALL_FAILURE_TYPES.key_missing) return 'VALIDATION_FAILED';
  const code = jobFailureCode(failure.type);
  if (code === 'PROVIDER_KEY_REJECTED') return 'PROVIDER_ERROR';
  return code in ERROR_STATUS ? (code as ErrorCode) : 'CONFLICT';
}

/**
 * A refused Update answers with its typed code and the workflow's reason (a validator's CONFLICT is 409, the offline
 * provider refusing instructions 422); a step that failed answers with its innermost cause (402 INSUFFICIENT_CREDITS, …);
 * a session whose workflow ended is 409.
 */
function stepError(error: unknown, name: string): unknown {
  const failure = typedFailureOf(error);
  if (failure) return new ServiceError(stepErrorCode(failure), failure.message, [{ path: '/', message: failure.message, cause: jobFailureCode(failure.type) }]);
  if (error instanceof WorkflowUpdateFailedError)
    return new ServiceError('CONFLICT', `The authoring session refused ${name}.`, [{ path: '/', message: 'refused' }]);
  if (error instanceof WorkflowNotFoundError) return new ServiceError('CONFLICT', `The authoring session no longer runs; it accepts no ${name}.`);
  return error;
}
