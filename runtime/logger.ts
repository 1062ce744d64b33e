// pino logs with redaction: authorization headers, cookies and any field named like api_key, password, token,
// secret or code are replaced wherever they appear. Query strings are logged without values.
import { pino, type Logger, type DestinationStream } from 'pino';

export const REDACTED_KEY = /(authorization|cookie|api[_-]?key|password|passwd|token|secret|code|signature)/i;
const NOT_SECRET_KEY = /^(status_?code|error_?code)$/i;

/** Whether a key's value is redacted, decided once per key name (log lines reuse a small set of names). */
const keyDecisions = new Map<string, boolean>();
const KEY_DECISIONS_MAX = 4096;
function redacts(key: string): boolean {
  let decision = keyDecisions.get(key);
  if (decision === undefined) {
    decision = REDACTED_KEY.test(key) && !NOT_SECRET_KEY.test(key);
    if (keyDecisions.size < KEY_DECISIONS_MAX) keyDecisions.set(key, decision);
  }
  return decision;
}

function scrub(value: unknown, depth: number): unknown {
  if (depth > 8 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => scrub(item, depth + 1));
  if (value instanceof Error) return { type: value.name, message: value.message, code: (value as { code?: unknown }).code };
  const object = value as Record<string, unknown>;
  const keys = Object.keys(object);
  // A flat object with no key to redact (every request's log line) is logged as it is, without a copy.
  if (keys.every((key) => !redacts(key) && (object[key] === null || typeof object[key] !== 'object'))) return object;
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    // A redemption code, a password or a key is redacted whatever it is nested in; our own error and status codes are not.
    out[key] = redacts(key) ? '[redacted]' : scrub(object[key], depth + 1);
  }
  return out;
}

/**
 * pino's `isoTime` (`,"time":"<ISO 8601>"`), formatted once per millisecond: under load many lines share one (the
 * request log writes tens of lines per millisecond). The text is the same.
 */
let time_ms = Number.NaN;
let time_text = '';
export function isoTime(): string {
  const now = Date.now();
  if (now !== time_ms) {
    time_ms = now;
    time_text = `,"time":"${new Date(now).toISOString()}"`;
  }
  return time_text;
}

export function createLogger(options: { level?: string; destination?: DestinationStream } = {}): Logger {
  return pino(
    {
      level: options.level ?? 'info',
      base: undefined,
      timestamp: isoTime,
      redact: { paths: ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]'], censor: '[redacted]' },
      formatters: { log: (object) => scrub(object, 0) as Record<string, unknown> },
    },
    options.destination,
  );
}
