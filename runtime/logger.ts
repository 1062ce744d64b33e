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

/**
 * Standard output in one write per turn of the event loop. pino's own stdout stream (SonicBoom, asynchronous) starts a
 * write for each line while none is running, so under load most request lines cost a write of their own (about 4 % of
 * the API's CPU in bench/service, through a pipe). This gathers the lines of one turn and hands them to that same stream
 * in one piece at the turn's end (setImmediate), so its handling of partial writes, EAGAIN, a closed pipe and the flush
 * at exit are unchanged; the lines and their order are the same, each written at most one turn later. Lines still
 * gathered when the process exits are handed over before pino's own exit flush (a listener put first).
 */
type FlushableStream = DestinationStream & { flush?(cb?: (error?: Error) => void): void; flushSync?(): void };

export class TurnBatchedStdout implements DestinationStream {
  private lines: string[] = [];
  private scheduled = false;
  private readonly handOver = () => {
    this.scheduled = false;
    if (this.lines.length === 0) return;
    const text = this.lines.length === 1 ? this.lines[0]! : this.lines.join('');
    this.lines = [];
    this.stream.write(text);
  };

  private readonly stream: FlushableStream;

  constructor(stream: FlushableStream) {
    this.stream = stream;
    process.prependListener('exit', this.handOver);
  }

  write(line: string): void {
    this.lines.push(line);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.handOver);
    }
  }

  /** pino's `logger.flush()`: what is gathered, then the stream's own flush. */
  flush(cb?: (error?: Error) => void): void {
    this.handOver();
    if (this.stream.flush) this.stream.flush(cb);
    else cb?.();
  }

  flushSync(): void {
    this.handOver();
    this.stream.flushSync?.();
  }
}

/** Standard output as pino would write it, batched per turn; pino's default when stdout was replaced (a test's capture). */
function stdoutDestination(): DestinationStream | undefined {
  const tampered = process.stdout.write !== process.stdout.constructor.prototype.write; // pino's own test
  if (tampered || typeof process.stdout.fd !== 'number') return undefined;
  return new TurnBatchedStdout(pino.destination({ dest: process.stdout.fd, sync: false }));
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
    options.destination ?? (options.level === 'silent' ? undefined : stdoutDestination()),
  );
}
