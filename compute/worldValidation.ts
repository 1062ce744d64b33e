// The public world validator's work (POST /v1/world-specs/validate): parse the body, the checks every body gets
// (domain/jsonBody.ts), then the world's own validation. A small body is checked where it arrives; a large one on the
// compute pool, so a 1 MiB body of 90,000 unknown fields is parsed, walked and answered on a pool thread and never holds
// the API's event loop (docs/decisions.md, "Large bodies off the event loop").
import { type ErrorCode, type ErrorDetail, ServiceError } from '../domain/errors.ts';
import { parseJsonBody, refuseUnstorable } from '../domain/jsonBody.ts';
import { type ValidationResult, validateWorld } from '../domain/simulation/validate.ts';

/** A body of at most this many characters is checked on the event loop (a few milliseconds); a larger one on the pool. */
export const WORLD_TEXT_INLINE_MAX = 64 * 1024;

export type WorldTextOutcome =
  | { ok: true; validation: ValidationResult }
  | { ok: false; error: { code: ErrorCode; message: string; details: ErrorDetail[] | Record<string, unknown> } };

/** Parses and validates a world's text; a body refused before validation (422) comes back as its error. */
export function checkWorldText(text: string): WorldTextOutcome {
  try {
    const value = parseJsonBody(text);
    refuseUnstorable(value, 'request body');
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      throw new ServiceError('VALIDATION_FAILED', 'The request body is invalid: / must be object.', [{ path: '/', message: 'must be object' }]);
    }
    return { ok: true, validation: validateWorld(value) };
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    return { ok: false, error: { code: error.code, message: error.message, details: error.details } };
  }
}

/** The validation of a world's text, checked on the pool when it is large; a refused body throws its ServiceError. */
export async function validateWorldText(text: string): Promise<ValidationResult> {
  let outcome: WorldTextOutcome;
  if (text.length <= WORLD_TEXT_INLINE_MAX) outcome = checkWorldText(text);
  else {
    const { runComputeTask } = await import('./pool.ts');
    outcome = await runComputeTask<WorldTextOutcome>({ kind: 'world_validation', text });
  }
  if (!outcome.ok) throw new ServiceError(outcome.error.code, outcome.error.message, outcome.error.details);
  return outcome.validation;
}
