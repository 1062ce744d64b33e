// Awaiting an activity-style call that must fail with a Temporal ApplicationFailure.
import { ApplicationFailure } from '@temporalio/common';
import { expect } from 'vitest';

export async function applicationFailureOf(promise: Promise<unknown>): Promise<ApplicationFailure> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ApplicationFailure);
    return error as ApplicationFailure;
  }
  throw new Error('expected the call to fail');
}
