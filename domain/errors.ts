// The error codes and their HTTP statuses (spec: Errors; ARCHITECTURE.md: Error codes and statuses).
// Errors are typed values thrown from the rule that knows; api/ translates them to HTTP in one place.

export const ERROR_STATUS = {
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  VALIDATION_FAILED: 422,
  // A run the world itself made exceed an engine limit mid-way (not the service's fault); see docs/decisions.md.
  WORLD_LIMIT_EXCEEDED: 422,
  CONFLICT: 409,
  APPROVAL_REQUIRED: 409,
  QUOTA_EXCEEDED: 409,
  IDEMPOTENCY_KEY_REUSED: 422,
  IDEMPOTENCY_KEY_IN_USE: 409,
  INSUFFICIENT_CREDITS: 402,
  PAYLOAD_TOO_LARGE: 413,
  // A request whose headers and body did not all arrive within CRUCIBLE_REQUEST_TIMEOUT_SECONDS (docs/decisions.md).
  REQUEST_TIMEOUT: 408,
  RATE_LIMITED: 429,
  SPONSOR_NOT_CONFIGURED: 503,
  BILLING_NOT_CONFIGURED: 503,
  PROVIDER_NOT_CONFIGURED: 503,
  PAYMENT_PROVIDER_ERROR: 502,
  PROVIDER_ERROR: 502,
  // A step that needs a workflow worker and none accepted it in time, or a job start while Temporal is unreachable
  // (docs/decisions.md; docs/operators.md: When Temporal is down): nothing changed or charged; retry after Retry-After.
  TEMPORARILY_UNAVAILABLE: 503,
  INTERNAL: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** Problems listed in a validation answer (a request body's, a WorldSpec's); the rest are counted, not listed. */
export const PROBLEMS_LISTED_MAX = 100;

export type ErrorDetail = { path?: string; message: string; [key: string]: unknown };

export class ServiceError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetail[] | Record<string, unknown>;
  /** answered as the `Retry-After` header (429 and 503) */
  readonly retry_after_seconds: number | undefined;
  constructor(code: ErrorCode, message: string, details: ErrorDetail[] | Record<string, unknown> = [], options: { retry_after_seconds?: number } = {}) {
    super(message);
    this.name = 'ServiceError';
    this.code = code;
    this.details = details;
    this.retry_after_seconds = options.retry_after_seconds;
  }
  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

export function isServiceError(value: unknown): value is ServiceError {
  return (
    value instanceof ServiceError ||
    (typeof value === 'object' &&
      value !== null &&
      (value as { name?: string }).name === 'ServiceError' &&
      typeof (value as { code?: unknown }).code === 'string')
  );
}

/** An assertion failure is a bug: reported as INTERNAL, never swallowed (STYLE.md). */
export function invariant(condition: unknown, message: string): asserts condition {
  if (!condition) throw new ServiceError('INTERNAL', `invariant violated: ${message}`);
}
