// Every activity the worker registers, and the one boundary from errors to Temporal failures (ARCHITECTURE.md: Layout,
// activities): each group is wrapped once here, so no activity maps errors by hand.
//   ServiceError (a rule said no: INSUFFICIENT_CREDITS, NOT_FOUND, a limit) → non-retryable ApplicationFailure of its code
//   a broken invariant (ServiceError INTERNAL, an assertion)                → non-retryable INTERNAL
//   an ApplicationFailure or a cancellation the activity threw itself      → as thrown (already typed)
//   anything else (the database or a provider away)                         → retried by the activity's profile
import { AssertionError } from 'node:assert';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { isServiceError } from '../domain/errors.ts';
import { aiActivities } from './aiCall.ts';
import { billingActivities } from './billing.ts';
import { authoringActivities } from './authoring.ts';
import type { ActivityDeps } from './deps.ts';
import { intakeActivities } from './intake.ts';
import { intakeReadActivities } from './intakeRead.ts';
import { ledgerActivities } from './ledger.ts';
import { maintenanceActivities } from './maintenance.ts';
import { reviewActivities } from './reviews.ts';
import { runActivities } from './runs.ts';

/** The failure Temporal records for an error an activity threw. */
export function failureFor(error: unknown): unknown {
  if (error instanceof ApplicationFailure || error instanceof CancelledFailure) return error;
  if (isServiceError(error)) {
    const details = Array.isArray(error.details) ? error.details : [error.details];
    return ApplicationFailure.create({ type: error.code, message: error.message, nonRetryable: true, details });
  }
  if (error instanceof AssertionError)
    return ApplicationFailure.create({ type: 'INTERNAL', message: `invariant violated: ${error.message}`, nonRetryable: true });
  return error;
}

type ActivityGroup = Record<string, (...args: never[]) => Promise<unknown>>;

/** Wraps every activity of a group in the boundary; names and types are unchanged. */
export function withFailureBoundary<G extends ActivityGroup>(group: G): G {
  const wrapped: Record<string, unknown> = {};
  for (const [name, activity] of Object.entries(group)) {
    wrapped[name] = async (...args: never[]) => {
      try {
        return await activity(...args);
      } catch (error) {
        throw failureFor(error);
      }
    };
  }
  return wrapped as G;
}

export function createActivities(deps: ActivityDeps) {
  return withFailureBoundary({
    ...maintenanceActivities(deps),
    ...ledgerActivities(deps),
    ...aiActivities(deps),
    ...runActivities(deps),
    ...intakeActivities(deps),
    ...intakeReadActivities(deps),
    ...reviewActivities(deps),
    ...billingActivities(deps),
    ...authoringActivities(deps),
  });
}

export type Activities = ReturnType<typeof createActivities>;
