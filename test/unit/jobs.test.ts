// The jobs named in one place (domain/jobs.ts) match what the production worker registers and what the dev server is
// told to index; test-only workflows stay out of the production bundle.
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { ActivityFailure, ApplicationFailure, RetryState } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { ServiceError } from '../../domain/errors.ts';
import { jobFailureOf, STEP_BUSY } from '../../domain/jobs.ts';
import { JOB_ID_PREFIXES, JOB_KINDS, JOB_SEARCH_ATTRIBUTES, JOB_WORKFLOW_TYPES, MAINTENANCE_WORKFLOW_TYPE, jobWorkflowId } from '../../domain/jobs.ts';
import { searchAttributeFlags } from '../../runtime/temporal.ts';
import * as productionWorkflows from '../../workflows/index.ts';

describe('the long jobs', () => {
  it('names each job by a workflow the production worker registers, and nothing test-only is registered', () => {
    const registered = Object.keys(productionWorkflows).sort();
    expect(registered).toEqual([...Object.values(JOB_WORKFLOW_TYPES), MAINTENANCE_WORKFLOW_TYPE].sort());
  });

  it('derives every workflow id from the resource id under a prefix of its own', () => {
    const prefixes = JOB_KINDS.map((kind) => JOB_ID_PREFIXES[kind]);
    expect(new Set(prefixes).size).toBe(JOB_KINDS.length);
    for (const a of prefixes) for (const b of prefixes) if (a !== b) expect(a.startsWith(b)).toBe(false);
    expect(jobWorkflowId('run', 'run_1')).toBe('run-run_1');
    expect(jobWorkflowId('review', 'rev_1')).toBe('review-rev_1');
    expect(jobWorkflowId('intake_draft', 'drf_1')).toBe('intake-draft-drf_1');
  });

  it('registers every search attribute on the dev server as a Keyword', () => {
    const flags = searchAttributeFlags();
    for (const name of Object.values(JOB_SEARCH_ATTRIBUTES)) expect(flags).toContain(`${name}=Keyword`);
    expect(flags.filter((flag) => flag === '--search-attribute')).toHaveLength(Object.keys(JOB_SEARCH_ATTRIBUTES).length);
  });
});

describe('the one cause-chain reader (jobFailureOf)', () => {
  const credits = ApplicationFailure.create({
    type: 'INSUFFICIENT_CREDITS',
    message: 'Not enough credits: the organization has 0 available and this needs 10',
    nonRetryable: true,
  });

  it("reads the innermost typed cause under an activity's failure, not the outer untyped one", () => {
    const activity = new ActivityFailure('Activity task failed', 'reserveCredits', '1', RetryState.NON_RETRYABLE_FAILURE, 'worker', credits);
    expect(jobFailureOf(activity)).toEqual({ code: 'INSUFFICIENT_CREDITS', message: 'Not enough credits: the organization has 0 available and this needs 10' });
    const update = new WorkflowUpdateFailedError(
      'Workflow Update failed',
      ApplicationFailure.create({ type: 'CONFLICT', message: 'wrapper', cause: activity }),
    );
    expect(jobFailureOf(update)?.code).toBe('INSUFFICIENT_CREDITS');
  });

  it('reads a refused step and a ServiceError by their typed code', () => {
    expect(jobFailureOf(new WorkflowUpdateFailedError('refused', ApplicationFailure.create({ type: STEP_BUSY, message: 'the session is drafting' })))).toEqual({
      code: STEP_BUSY,
      message: 'the session is drafting',
    });
    expect(jobFailureOf(new ServiceError('PROVIDER_NOT_CONFIGURED', 'no model'))).toEqual({ code: 'PROVIDER_NOT_CONFIGURED', message: 'no model' });
  });

  it('finds nothing typed in a plain error Temporal wrapped (a bug of ours is INTERNAL to the caller)', () => {
    const wrapped = new ActivityFailure(
      'Activity task failed',
      'writeAuthoringCheckpoint',
      '2',
      RetryState.MAXIMUM_ATTEMPTS_REACHED,
      'worker',
      ApplicationFailure.create({ type: 'TypeError', message: 'x is undefined' }),
    );
    expect(jobFailureOf(wrapped)).toBeNull();
    expect(jobFailureOf(new Error('boom'))).toBeNull();
  });
});
