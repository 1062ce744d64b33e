// How every job (a run, a concept review, an intake draft, an authoring session) says it failed or was canceled: one
// `failure` body `{code, message}` on each job's contract. The code is one of the API's error codes (spec: Errors;
// domain/errors.ts) or one of the three codes only a job records: CANCELED, PROVIDER_KEY_REJECTED and
// LITERATURE_UNAVAILABLE. The typed failures activities and integrations throw are mapped to these in one place
// (domain/jobs.ts: jobFailureCode; docs/decisions.md "Job failure codes").
import type { Static } from 'typebox';
import { Type } from 'typebox';
import { ERROR_STATUS, type ErrorCode } from '../errors.ts';
import { LiteralUnion } from './common.ts';

/** The codes only a job's failure carries (an API answer never does). */
export const JOB_ONLY_FAILURE_CODES = [
  /** The job was stopped (a cancel request) before it finished; only what it used was charged. */
  'CANCELED',
  /** The AI provider refused the key, the organization has no key for it, or the stored key cannot be read: check the key. */
  'PROVIDER_KEY_REJECTED',
  /** The literature service could not be reached or refused the search, past its retries. */
  'LITERATURE_UNAVAILABLE',
] as const;

/** Every code a job's `failure` carries. PROVIDER_ERROR is a provider that could not be reached, was busy or answered badly. */
export const JOB_FAILURE_CODES = [...(Object.keys(ERROR_STATUS) as ErrorCode[]), ...JOB_ONLY_FAILURE_CODES] as const;
export type JobFailureCode = ErrorCode | (typeof JOB_ONLY_FAILURE_CODES)[number];

export const JobFailure = Type.Object(
  {
    // A union of literals (the document's `anyOf` of consts), typed as JobFailureCode.
    code: Type.Unsafe<JobFailureCode>(
      LiteralUnion(JOB_FAILURE_CODES, {
        description:
          'what stopped the job: CANCELED (stopped on request), PROVIDER_KEY_REJECTED (check the provider key), PROVIDER_ERROR (the AI provider could not be reached, was busy or answered badly), PROVIDER_NOT_CONFIGURED, LITERATURE_UNAVAILABLE, INSUFFICIENT_CREDITS, INTERNAL, or another of the API error codes',
      }),
    ),
    message: Type.String({ description: 'what happened, in plain words; never a stack' }),
  },
  { title: 'JobFailure', description: 'how a job failed or was canceled; null while it runs and when it succeeded' },
);
export type JobFailure = Static<typeof JobFailure>;

/** A job's `failure` field: the failure, or null. */
export const JobFailureField = Type.Union([JobFailure, Type.Null()]);

/** The deprecated `error` field a run, an intake draft and an authoring session still carry beside `failure`. */
export const DeprecatedJobError = Type.Union([JobFailure, Type.Null()], {
  deprecated: true,
  description: 'Deprecated: the same value as `failure`; read `failure`. Removed in the next release.',
});
