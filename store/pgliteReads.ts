// The PGlite read path (docs/performance.md): a `select` outside a transaction runs as a named prepared statement in
// one protocol exchange (Bind, Execute, Sync), where PGlite's own `query` makes six (Parse, Describe, Bind, Describe,
// Execute, Sync) and re-plans every time. PGlite runs on the API's event loop, so each exchange saved is time every
// other request gets back. The rows are parsed by PGlite's own type parsers, so they equal what `query` returns.
// Anything unusual (an error, a full statement cache) goes the ordinary way, which gives the ordinary error.

/** Prepared statements kept per database; beyond this a new statement text runs unprepared. */
export const PREPARED_STATEMENTS_MAX = 512;

type BackendMessage = { name: string; dataTypeIDs?: number[]; fields?: Array<{ name: string; dataTypeID: number } | string | null> };
type Native = {
  parsers: Record<number, (value: string, type: number) => unknown>;
  serializers: Record<number, (value: unknown) => string>;
  execProtocol(message: Uint8Array, options?: { syncToFs?: boolean }): Promise<{ messages: BackendMessage[] }>;
  _runExclusiveTransaction<T>(fn: () => Promise<T>): Promise<T>;
  _runExclusiveQuery<T>(fn: () => Promise<T>): Promise<T>;
  isInTransaction(): boolean;
};
type Prepared = { name: string; param_types: number[]; fields: Array<{ name: string; dataTypeID: number }> };

const encoder = new TextEncoder();

/** Frontend protocol messages, built by hand (PGlite bundles its serializer without exporting it). */
class Writer {
  private parts: Uint8Array[] = [];
  private size = 0;
  private body_parts: Uint8Array[] = [];
  private body_size = 0;
  start(): this {
    this.body_parts = [];
    this.body_size = 0;
    return this;
  }
  private push(bytes: Uint8Array): void {
    this.body_parts.push(bytes);
    this.body_size += bytes.byteLength;
  }
  int16(value: number): this {
    const bytes = new Uint8Array(2);
    new DataView(bytes.buffer).setInt16(0, value);
    this.push(bytes);
    return this;
  }
  int32(value: number): this {
    const bytes = new Uint8Array(4);
    new DataView(bytes.buffer).setInt32(0, value);
    this.push(bytes);
    return this;
  }
  cstring(value: string): this {
    this.push(encoder.encode(value));
    this.push(new Uint8Array(1));
    return this;
  }
  bytes(value: Uint8Array): this {
    this.push(value);
    return this;
  }
  byte(value: string): this {
    this.push(new Uint8Array([value.charCodeAt(0)]));
    return this;
  }
  end(code: string): this {
    const header = new Uint8Array(5);
    header[0] = code.charCodeAt(0);
    new DataView(header.buffer).setInt32(1, this.body_size + 4);
    this.parts.push(header, ...this.body_parts);
    this.size += 5 + this.body_size;
    return this;
  }
  done(): Uint8Array {
    const out = new Uint8Array(this.size);
    let offset = 0;
    for (const part of this.parts) {
      out.set(part, offset);
      offset += part.byteLength;
    }
    return out;
  }
}

/**
 * `?` placeholders as `$n`, outside single-quoted literals; undefined for text this small scanner does not claim to
 * read (`??`, backslashes, double quotes, dollar quoting), which takes the ordinary path.
 */
export function numberedPlaceholders(sql: string): string | undefined {
  if (/\?\?|[\\"$]/.test(sql)) return undefined;
  let out = '';
  let index = 0;
  let quoted = false;
  for (const char of sql) {
    if (char === "'") quoted = !quoted;
    out += char === '?' && !quoted ? `$${++index}` : char;
  }
  return quoted ? undefined : out;
}

export type FastReader = (sql: string, params: readonly unknown[]) => Promise<Record<string, unknown>[] | undefined>;

/** Bind (the parameters serialized by PGlite's own serializers), Execute and Sync of a prepared statement. */
function executeMessage(db: Native, statement: Prepared, params: readonly unknown[]): Uint8Array {
  const writer = new Writer().start().cstring('').cstring(statement.name).int16(0).int16(params.length);
  params.forEach((param, index) => {
    if (param === null || param === undefined) {
      writer.int32(-1);
      return;
    }
    const serialize = db.serializers[statement.param_types[index]!];
    const value = encoder.encode(serialize ? serialize(param) : String(param));
    writer.int32(value.byteLength).bytes(value);
  });
  return writer.int16(0).end('B').start().cstring('').int32(0).end('E').start().end('S').done();
}

/** The data rows of an answer, parsed by PGlite's own type parsers (so they equal what `query` returns). */
function rowsOf(db: Native, statement: Prepared, messages: BackendMessage[]): Record<string, unknown>[] {
  const rows: Record<string, unknown>[] = [];
  const fields = statement.fields;
  for (const message of messages) {
    if (message.name !== 'dataRow') continue;
    const row: Record<string, unknown> = {};
    const values = message.fields as Array<string | null>;
    for (let index = 0; index < fields.length; index++) {
      const value = values[index] ?? null;
      const field = fields[index]!;
      const parse = db.parsers[field.dataTypeID];
      row[field.name] = value === null ? null : parse ? parse(value, field.dataTypeID) : value;
    }
    rows.push(row);
  }
  return rows;
}

/** Closes a prepared statement on the server; a failure to close leaves it for the database's end. */
async function closeStatement(db: Native, statement: Prepared): Promise<void> {
  const close = new Writer().start().byte('S').cstring(statement.name).end('C').start().end('S').done();
  await db._runExclusiveTransaction(() => db._runExclusiveQuery(() => db.execProtocol(close, { syncToFs: false }))).catch(() => {});
}

/** A reader for `select`s outside transactions; answers undefined when the caller should take the ordinary path. */
export function pgliteReader(native_of: () => Promise<unknown>): FastReader {
  const prepared = new Map<string, Prepared>();
  let native: Native | null = null;
  let counter = 0;

  const prepare = async (sql: string, text: string): Promise<Prepared | undefined> => {
    const found = prepared.get(sql);
    if (found) return found;
    if (prepared.size >= PREPARED_STATEMENTS_MAX) return undefined;
    const name = `crucible_read_${++counter}`;
    const message = new Writer().start().cstring(name).cstring(text).int16(0).end('P').start().byte('S').cstring(name).end('D').start().end('S').done();
    const { messages } = await native!.execProtocol(message, { syncToFs: false });
    const params = messages.find((m) => m.name === 'parameterDescription');
    const rows = messages.find((m) => m.name === 'rowDescription');
    const statement: Prepared = {
      name,
      param_types: params?.dataTypeIDs ?? [],
      fields: ((rows?.fields ?? []) as Array<{ name: string; dataTypeID: number }>).map((f) => ({ name: f.name, dataTypeID: f.dataTypeID })),
    };
    prepared.set(sql, statement);
    return statement;
  };

  return async (sql, params) => {
    if (!/^\s*select\s/i.test(sql)) return undefined;
    const text = numberedPlaceholders(sql);
    if (text === undefined) return undefined;
    native ??= (await native_of()) as Native;
    const db = native;
    // While a transaction is open the ordinary path decides, as before (it queues behind the transaction).
    if (db.isInTransaction()) return undefined;
    try {
      return await db._runExclusiveTransaction(() =>
        db._runExclusiveQuery(async () => {
          const statement = await prepare(sql, text);
          if (!statement || statement.param_types.length !== params.length) return undefined;
          const { messages } = await db.execProtocol(executeMessage(db, statement, params), { syncToFs: false });
          return rowsOf(db, statement, messages);
        }),
      );
    } catch {
      // A plan the schema invalidated, or an error the ordinary path reports in its own words.
      const statement = prepared.get(sql);
      prepared.delete(sql);
      if (statement) await closeStatement(db, statement);
      return undefined;
    }
  };
}
