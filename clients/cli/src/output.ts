// Output: JSON for scripts (--json), human tables otherwise. Results go to stdout, progress and messages to stderr.
// Nothing the service stores reaches the terminal raw: a name stored before names were checked may hold ESC or OSC
// sequences, CR, LF or bidirectional overrides that would forge a table line or a prompt. Human output strips them
// (`printable`); JSON output escapes every such character as \uXXXX, so scripts still read the value as stored.
import { stripVTControlCharacters } from 'node:util';

export type Column<T> = { header: string; value: (row: T) => unknown };

/** C0 and C1 controls, DEL, and the bidirectional overrides and isolates U+202A–U+202E, U+2066–U+2069. */
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
/** The same but keeping LF and TAB, for text of several lines. */
const UNPRINTABLE_IN_TEXT = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
/** What JSON.stringify leaves raw but a terminal acts on: C1 controls, DEL, bidirectional controls, line separators. */
const RAW_IN_JSON = /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * Text safe to print: escape sequences (CSI, OSC) removed whole, then every other control character and bidirectional
 * override; in a single line (`multiline` false) CR, LF and TAB become spaces. The one function every printer uses.
 */
export function printable(text: string, multiline = false): string {
  const stripped = stripVTControlCharacters(text);
  return multiline ? stripped.replace(UNPRINTABLE_IN_TEXT, '') : stripped.replace(/[\r\n\t]/g, ' ').replace(UNPRINTABLE, '');
}

/** JSON text with no character a terminal acts on left raw (JSON.stringify already escapes C0). */
export function safeJson(value: unknown): string {
  return JSON.stringify(value).replace(RAW_IN_JSON, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A JSON value with `printable` applied to every string in it (keys too), keeping line breaks and tabs of text. */
export function printableDeep<T>(value: T): T {
  if (typeof value === 'string') return printable(value, true) as T;
  if (Array.isArray(value)) return value.map((item) => printableDeep(item)) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [printable(key), printableDeep(item)])) as T;
  }
  return value;
}

function cell(value: unknown): string {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'object') return printable(safeJson(value));
  return printable(String(value));
}

/** A plain text table with a header row and a rule under it. */
export function table<T>(rows: T[], columns: Column<T>[]): string {
  const cells = rows.map((row) => columns.map((c) => cell(c.value(row))));
  const widths = columns.map((c, i) => Math.max(c.header.length, ...cells.map((r) => r[i]!.length)));
  const line = (values: string[]) =>
    values
      .map((v, i) => v.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(columns.map((c) => c.header.toUpperCase())), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n');
}

/** Key/value lines for one object. */
export function fields(pairs: [string, unknown][]): string {
  const width = Math.max(...pairs.map(([k]) => k.length));
  return pairs.map(([k, v]) => `${k.padEnd(width)}  ${cell(v)}`).join('\n');
}

/** A job's failure as one line, `CODE: message` (the job's `failure`; older services sent it as `error`), or null. */
export function failureLine(job: { failure?: { code: string; message: string } | null; error?: { code: string; message: string } | null }): string | null {
  const failure = job.failure ?? job.error ?? null;
  return failure ? `${failure.code}: ${failure.message}` : null;
}

/** Key/value lines for one object, leaving out the pairs whose value is null (a failure a job does not have). */
export function fieldsPresent(pairs: [string, unknown][]): string {
  return fields(pairs.filter(([, value]) => value !== null && value !== undefined));
}

/** A number as a person reads it in a table: up to 4 significant digits, no exponent for ordinary sizes. */
export function figure(value: unknown): string {
  if (typeof value !== 'number' || !Number.isFinite(value)) return '—';
  return Number.isInteger(value) ? String(value) : String(Number(value.toPrecision(4)));
}

/**
 * A 409 in one plain line: what the service said, that nothing changed, and the code and request id for support (the
 * envelope itself stays for --json and for details a script reads).
 */
export function conflictLine(error: { code: string; message: string; request_id?: string | null }): string {
  const message = error.message.trim().replace(/[.;]?$/, '.');
  return `${message} Nothing changed. (${error.code}${error.request_id ? `, request ${error.request_id}` : ''})`;
}

export type Printer = { json: boolean; result(value: unknown, human: () => string): void; note(text: string): void };

export function printer(json: boolean, out: NodeJS.WritableStream = process.stdout, err: NodeJS.WritableStream = process.stderr): Printer {
  return {
    json,
    result(value, human) {
      out.write(json ? `${safeJson(value)}\n` : `${printable(human(), true)}\n`);
    },
    note(text) {
      if (!json) err.write(`${printable(text, true)}\n`);
    },
  };
}
