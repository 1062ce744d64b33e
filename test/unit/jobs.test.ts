// The jobs named in one place (domain/jobs.ts) match what the production worker registers and what the dev server is
// told to index; test-only workflows stay out of the production bundle.
import { readFileSync } from 'node:fs';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { ActivityFailure, ApplicationFailure, RetryState } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { ServiceError } from '../../domain/errors.ts';
import { AI_CALL_FAILURE_TYPES, AI_FAILURE_TYPES } from '../../domain/ai/call.ts';
import { JobFailure } from '../../domain/contracts/jobFailure.ts';
import { LITERATURE_FAILURE_TYPES } from '../../domain/reviews/literature.ts';
import { jobFailureCode, jobFailureFromStored, jobFailureOf, STEP_BUSY, TYPED_FAILURE_TYPES, typedFailureOf } from '../../domain/jobs.ts';
import { Value } from 'typebox/value';
import {
  INTAKE_READ_ID_PREFIX,
  INTAKE_READ_WORKFLOW_TYPE,
  JOB_ID_PREFIXES,
  JOB_KINDS,
  JOB_SEARCH_ATTRIBUTES,
  JOB_WORKFLOW_TYPES,
  MAINTENANCE_WORKFLOW_TYPE,
  jobWorkflowId,
} from '../../domain/jobs.ts';
import { searchAttributeFlags } from '../../runtime/temporal.ts';
import * as productionWorkflows from '../../workflows/index.ts';

describe('the long jobs', () => {
  it('names each job by a workflow the production worker registers, and nothing test-only is registered', () => {
    const registered = Object.keys(productionWorkflows).sort();
    expect(registered).toEqual([...Object.values(JOB_WORKFLOW_TYPES), MAINTENANCE_WORKFLOW_TYPE, INTAKE_READ_WORKFLOW_TYPE].sort());
  });

  it('derives every workflow id from the resource id under a prefix of its own', () => {
    const prefixes = [...JOB_KINDS.map((kind) => JOB_ID_PREFIXES[kind]), INTAKE_READ_ID_PREFIX];
    expect(new Set(prefixes).size).toBe(JOB_KINDS.length + 1);
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

  it('reads a refused step by its typed failure, and records it under the API code', () => {
    const refused = new WorkflowUpdateFailedError('refused', ApplicationFailure.create({ type: STEP_BUSY, message: 'the session is drafting' }));
    expect(typedFailureOf(refused)).toEqual({ type: STEP_BUSY, message: 'the session is drafting' });
    expect(jobFailureOf(refused)).toEqual({ code: 'CONFLICT', message: 'the session is drafting' });
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

describe('the job failure codes (one mapping from a thrown failure to the code a job records)', () => {
  it('maps every typed failure to a code the JobFailure contract accepts', () => {
    for (const type of TYPED_FAILURE_TYPES) expect(Value.Check(JobFailure, { code: jobFailureCode(type), message: type }), type).toBe(true);
  });

  it('keeps a key the provider refused apart from a provider that could not be reached or was busy', () => {
    expect(jobFailureCode(AI_FAILURE_TYPES.auth_rejected)).toBe('PROVIDER_KEY_REJECTED');
    expect(jobFailureCode(AI_CALL_FAILURE_TYPES.key_missing)).toBe('PROVIDER_KEY_REJECTED');
    expect(jobFailureCode(AI_CALL_FAILURE_TYPES.key_undecryptable)).toBe('PROVIDER_KEY_REJECTED');
    expect(jobFailureCode(AI_FAILURE_TYPES.unavailable)).toBe('PROVIDER_ERROR');
    expect(jobFailureCode(AI_CALL_FAILURE_TYPES.call_failed)).toBe('PROVIDER_ERROR');
    expect(jobFailureCode(AI_FAILURE_TYPES.not_configured)).toBe('PROVIDER_NOT_CONFIGURED');
    expect(jobFailureCode(LITERATURE_FAILURE_TYPES.unavailable)).toBe('LITERATURE_UNAVAILABLE');
  });

  it('reads a failure an older release stored under its thrown type as the API code, and an unknown code as INTERNAL', () => {
    expect(jobFailureFromStored({ code: 'ProviderUnavailable', message: 'no answer' })).toEqual({ code: 'PROVIDER_ERROR', message: 'no answer' });
    expect(jobFailureFromStored({ code: 'CANCELED', message: 'stopped' })).toEqual({ code: 'CANCELED', message: 'stopped' });
    expect(jobFailureFromStored({ code: 'TypeError', message: 'x' })).toEqual({ code: 'INTERNAL', message: 'x' });
    expect(jobFailureFromStored(null)).toBeNull();
  });

  it('refuses a code outside the list in the contract', () => {
    expect(Value.Check(JobFailure, { code: 'ProviderUnavailable', message: 'x' })).toBe(false);
  });
});

describe("the clients' job facts (generated from the served document)", () => {
  it("give each job kind's ended statuses and the failure codes as the service has them", async () => {
    const { ENDED_STATUSES, JOB_FAILURE_CODES: CLIENT_CODES, jobEnded } = await import('../../clients/sdk/src/index.ts');
    const { JOB_LIFECYCLES, JOB_FAILURE_CODES } = await import('../../domain/jobs.ts');
    for (const [kind, lifecycle] of Object.entries(JOB_LIFECYCLES)) expect(ENDED_STATUSES[kind as keyof typeof ENDED_STATUSES], kind).toEqual(lifecycle.ended);
    expect(CLIENT_CODES).toEqual(JOB_FAILURE_CODES);
    expect(jobEnded('run', 'timed_out')).toBe(true);
    expect(jobEnded('authoring', 'waiting')).toBe(false);
  });

  it('gives the Python client the same facts', () => {
    const python = readFileSync(new URL('../../clients/python/crucible/types_gen.py', import.meta.url), 'utf8');
    const ended = JSON.parse(/^ENDED_STATUSES: Dict\[str, List\[str\]\] = (.*)$/m.exec(python)![1]!);
    const codes = JSON.parse(/^JOB_FAILURE_CODES: List\[str\] = (.*)$/m.exec(python)![1]!);
    expect(ended.review).toEqual(['succeeded', 'failed', 'canceled']);
    expect(codes).toContain('PROVIDER_KEY_REJECTED');
  });
});
