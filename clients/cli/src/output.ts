// Output: JSON for scripts (--json), human tables otherwise. Results go to stdout, progress and messages to stderr.

export type Column<T> = { header: string; value: (row: T) => unknown };

function cell(value: unknown): string {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
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

export type Printer = { json: boolean; result(value: unknown, human: () => string): void; note(text: string): void };

export function printer(json: boolean, out: NodeJS.WritableStream = process.stdout, err: NodeJS.WritableStream = process.stderr): Printer {
  return {
    json,
    result(value, human) {
      out.write(json ? `${JSON.stringify(value)}\n` : `${human()}\n`);
    },
    note(text) {
      if (!json) err.write(`${text}\n`);
    },
  };
}
