// A PDF request read on a worker answers what a request read in the API process answers: the activity's ServiceError
// (made an ApplicationFailure of its code and details by the activities' failure boundary) comes back as the same
// ServiceError through the workflow's failure; a read that timed out is the document reader's 503.
import { WorkflowFailedError } from '@temporalio/client';
import { ActivityFailure, type ApplicationFailure, RetryState, TimeoutFailure, TimeoutType } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { failureFor } from '../../activities/index.ts';
import { readFailure } from '../../api/routes/intake/readOnWorker.ts';
import { ServiceError } from '../../domain/errors.ts';

function throughWorkflow(cause: Error): WorkflowFailedError {
  const activity = new ActivityFailure('Activity task failed', 'readStagedIntakeSources', '1', RetryState.NON_RETRYABLE_FAILURE, 'worker', cause);
  return new WorkflowFailedError('Workflow execution failed', activity, RetryState.NON_RETRYABLE_FAILURE);
}

describe('the answer of a read that failed on a worker', () => {
  it("is the activity's ServiceError, code, message and details as thrown", () => {
    const thrown = new ServiceError('PAYLOAD_TOO_LARGE', 'source 1 is larger than BYTES_PER_SOURCE_MAX (10485760 bytes); split or shorten it', [
      { path: '/sources/0', message: 'at most 10485760', limit: 'BYTES_PER_SOURCE_MAX', limit_value: 10485760 },
    ]);
    const answered = readFailure(throughWorkflow(failureFor(thrown) as ApplicationFailure), 90);
    expect(answered).toBeInstanceOf(ServiceError);
    expect(answered).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', status: 413, message: thrown.message, details: thrown.details });
  });

  it('is 503, the document reader unavailable, when the read timed out', () => {
    const answered = readFailure(
      new WorkflowFailedError('Workflow execution timed out', new TimeoutFailure('timed out', undefined, TimeoutType.START_TO_CLOSE), RetryState.TIMEOUT),
      90,
    );
    expect(answered).toMatchObject({ code: 'TEMPORARILY_UNAVAILABLE', status: 503, retry_after_seconds: expect.any(Number) });
    expect((answered as ServiceError).message).toMatch(/document reader is unavailable.*90 seconds/);
  });

  it('is 500 when the read failed untyped', () => {
    expect(readFailure(throughWorkflow(new Error('the database went away')), 90)).toMatchObject({ code: 'INTERNAL', status: 500 });
  });
});
