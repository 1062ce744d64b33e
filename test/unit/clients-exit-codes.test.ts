// crucible's exit codes (spec: Versioning — 4 while an authoring session waits for answers), as pure functions.
import { describe, expect, it } from 'vitest';
import { EXIT, errorExitCode, openQuestions, sessionExitCode, UsageError, WaitTimeoutError } from '../../clients/cli/src/exit.ts';
import { CrucibleApiError, CrucibleNetworkError } from '../../clients/sdk/src/index.ts';

const envelope = (code: string) => ({ code, message: code, details: {}, request_id: 'req_1' });

describe('sessionExitCode', () => {
  it('is 4 while a session waits for answers or approval', () => {
    expect(sessionExitCode({ status: 'waiting', checkpoint: { questions: [{ id: 'q1', text: 'How many clinicians?' }] } })).toBe(4);
    // Every question answered: the session still waits, for an approval (or a revision).
    expect(sessionExitCode({ status: 'waiting', checkpoint: { questions: [] } })).toBe(4);
  });

  it('is 0 while it drafts and once it has ended (approved, expired, failed)', () => {
    expect(sessionExitCode({ status: 'drafting', checkpoint: null })).toBe(0);
    expect(sessionExitCode({ status: 'drafting', checkpoint: { questions: [{ id: 'q1' }] } })).toBe(0);
    expect(sessionExitCode({ status: 'approved' })).toBe(0);
    expect(sessionExitCode({ status: 'expired', checkpoint: { questions: [{ id: 'q1' }] } })).toBe(0);
    expect(sessionExitCode({ status: 'failed' })).toBe(0);
  });

  it("lists the latest checkpoint's questions as open, and only unanswered ones", () => {
    expect(openQuestions({ checkpoint: { questions: [{ id: 'q1' }, { id: 'q2' }] } }).map((q) => q.id)).toEqual(['q1', 'q2']);
    expect(openQuestions({ questions: [{ id: 'a', answer: 'x' }, { id: 'b' }, { id: 'c', status: 'answered' }] }).map((q) => q.id)).toEqual(['b']);
    expect(openQuestions({ questions: 'nonsense' })).toEqual([]);
    expect(openQuestions({ checkpoint: null })).toEqual([]);
  });
});

describe('errorExitCode', () => {
  it('separates API errors, authentication, temporary failures and usage', () => {
    expect(errorExitCode(new CrucibleApiError(404, envelope('NOT_FOUND')))).toBe(EXIT.api_error);
    expect(errorExitCode(new CrucibleApiError(422, envelope('VALIDATION_FAILED')))).toBe(1);
    expect(errorExitCode(new CrucibleApiError(401, envelope('UNAUTHENTICATED')))).toBe(3);
    expect(errorExitCode(new CrucibleApiError(403, envelope('FORBIDDEN')))).toBe(3);
    expect(errorExitCode(new CrucibleApiError(503, envelope('SPONSOR_NOT_CONFIGURED')))).toBe(1);
    expect(errorExitCode(new CrucibleApiError(429, envelope('RATE_LIMITED')))).toBe(5);
    expect(errorExitCode(new CrucibleApiError(502, envelope('PROVIDER_ERROR')))).toBe(5);
    expect(errorExitCode(new CrucibleNetworkError('GET', 'http://127.0.0.1:9/v1/models', new Error('ECONNREFUSED')))).toBe(5);
    expect(errorExitCode(new UsageError('--budget must be a whole number'))).toBe(2);
    // a --wait that reached its --timeout: the job goes on, the command was fine; read it again later
    expect(errorExitCode(new WaitTimeoutError('Run run_1 did not end within 60 s (--timeout)'))).toBe(5);
  });
});
