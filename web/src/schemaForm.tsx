// A form over a JSON Schema (the published contract, GET /v1/schemas/{name}): objects are fieldsets, arrays are lists
// with Add and Remove, `const` values are shown read-only, enums and unions of literals are selects, `X | null` is a
// "not stated" checkbox, strings, numbers and booleans are inputs. The value edited is the document itself, so the JSON
// view and the form are two views of one value. Problems the API reported (details with JSON pointers) are shown at the
// field they name.
import { type ReactNode, useId } from 'react';

export type JsonSchema = {
  type?: string | string[];
  const?: unknown;
  enum?: unknown[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  description?: string;
  title?: string;
  minimum?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
};

/** Long texts get a text area; identifiers and short names a one-line input. */
const LONG_TEXT_CHARS = 400;

const variants = (schema: JsonSchema): JsonSchema[] | undefined => schema.anyOf ?? schema.oneOf;
const isNull = (schema: JsonSchema) => schema.type === 'null' || schema.const === null;
const literals = (schema: JsonSchema): unknown[] | null => {
  if (schema.enum) return schema.enum;
  const options = variants(schema);
  if (options?.every((o) => 'const' in o || o.enum)) return options.flatMap((o) => o.enum ?? [o.const]);
  return null;
};

/** The value a new item or a newly stated field starts with: the smallest valid-looking value of its schema. */
export function initialValue(schema: JsonSchema): unknown {
  if ('const' in schema) return schema.const;
  const choices = literals(schema);
  if (choices) return choices.find((c) => c !== null) ?? null;
  const options = variants(schema);
  if (options) return initialValue(options.find((o) => !isNull(o)) ?? options[0]!);
  switch (schema.type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const key of schema.required ?? []) out[key] = initialValue(schema.properties?.[key] ?? {});
      return out;
    }
    case 'array':
      return [];
    case 'integer':
    case 'number':
      return schema.minimum ?? 0;
    case 'boolean':
      return false;
    case 'null':
      return null;
    default:
      return '';
  }
}

const labelOf = (name: string) => name.replaceAll('_', ' ');

type Props = {
  schema: JsonSchema;
  value: unknown;
  onChange(value: unknown): void;
  label: string;
  /** JSON pointer of this value in the document. */
  path: string;
  problems: Map<string, string[]>;
};

function Problems({ path, problems }: { path: string; problems: Map<string, string[]> }) {
  const messages = problems.get(path);
  if (!messages) return null;
  return (
    <p className="field-problem" role="alert">
      {messages.join('; ')}
    </p>
  );
}

function Hint({ schema }: { schema: JsonSchema }) {
  return schema.description ? <span className="muted small">{schema.description}</span> : null;
}

/** One field for one schema: the control is chosen from the schema's shape, in the order the file's header lists. */
export function SchemaField(props: Props): ReactNode {
  const { schema } = props;
  if ('const' in schema) return <ConstField {...props} />;
  const choices = literals(schema);
  if (choices) return <ChoiceField {...props} choices={choices} />;
  const options = variants(schema);
  if (options) {
    const nonNull = options.filter((o) => !isNull(o));
    if (nonNull.length === 1 && nonNull.length < options.length) return <NullableField {...props} inner={nonNull[0]!} />;
    // A union the form cannot offer as one control: edited as JSON in place.
    return <JsonValue {...props} />;
  }
  switch (schema.type) {
    case 'object':
      return <ObjectFields {...props} />;
    case 'array':
      return <ArrayFields {...props} />;
    case 'integer':
    case 'number':
      return <NumberField {...props} />;
    case 'boolean':
      return <BooleanField {...props} />;
    case 'string':
      return <StringField {...props} />;
    default:
      return <JsonValue {...props} />;
  }
}

function ConstField({ schema, label, path, problems }: Props) {
  return (
    <div className="field readonly">
      <span>{label}</span>
      <output aria-label={label}>{String(schema.const)}</output>
      <Problems path={path} problems={problems} />
    </div>
  );
}

function ChoiceField({ schema, value, onChange, label, path, problems, choices }: Props & { choices: unknown[] }) {
  const id = useId();
  const nullable = choices.includes(null);
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select
        id={id}
        value={value === null ? '' : String(value)}
        onChange={(e) => onChange(e.target.value === '' && nullable ? null : choices.find((c) => String(c) === e.target.value))}
      >
        {nullable && <option value="">not stated</option>}
        {choices
          .filter((c) => c !== null)
          .map((c) => (
            <option key={String(c)} value={String(c)}>
              {labelOf(String(c))}
            </option>
          ))}
      </select>
      <Hint schema={schema} />
      <Problems path={path} problems={problems} />
    </div>
  );
}

/** `X | null`: a "not stated" checkbox, and the field of `X` while it is stated. */
function NullableField(props: Props & { inner: JsonSchema }) {
  const { schema, value, onChange, label, path, problems, inner } = props;
  const stated = value !== null && value !== undefined;
  return (
    <div className="nullable">
      <label className="check">
        <input type="checkbox" checked={!stated} onChange={(e) => onChange(e.target.checked ? null : initialValue(inner))} />
        {label}: not stated (unknown)
      </label>
      {stated ? (
        <SchemaField
          value={value}
          onChange={onChange}
          label={label}
          path={path}
          schema={{ ...inner, description: inner.description ?? schema.description }}
          problems={withoutNullAlternative(problems, path)}
        />
      ) : (
        <Hint schema={schema} />
      )}
      {!stated && <Problems path={path} problems={problems} />}
    </div>
  );
}

function NumberField({ schema, value, onChange, label, path, problems }: Props) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type="number"
        step={schema.type === 'integer' ? 1 : 'any'}
        min={schema.minimum}
        value={typeof value === 'number' ? value : ''}
        onChange={(e) => onChange(e.target.value === '' ? (schema.minimum ?? 0) : Number(e.target.value))}
      />
      <Hint schema={schema} />
      <Problems path={path} problems={problems} />
    </div>
  );
}

function BooleanField({ value, onChange, label, path, problems }: Props) {
  return (
    <div className="field">
      <label className="check">
        <input type="checkbox" checked={value === true} onChange={(e) => onChange(e.target.checked)} /> {label}
      </label>
      <Problems path={path} problems={problems} />
    </div>
  );
}

function StringField({ schema, value, onChange, label, path, problems }: Props) {
  const id = useId();
  const long = (schema.maxLength ?? Number.POSITIVE_INFINITY) > LONG_TEXT_CHARS;
  const text = typeof value === 'string' ? value : '';
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {long ? (
        <textarea id={id} rows={2} value={text} maxLength={schema.maxLength} onChange={(e) => onChange(e.target.value)} />
      ) : (
        <input id={id} type="text" value={text} maxLength={schema.maxLength} onChange={(e) => onChange(e.target.value)} />
      )}
      <Hint schema={schema} />
      <Problems path={path} problems={problems} />
    </div>
  );
}

function ObjectFields({ schema, value, onChange, label, path, problems }: Props) {
  const object = value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  const required = new Set(schema.required ?? []);
  return (
    <fieldset className="schema-object">
      <legend>{label}</legend>
      <Hint schema={schema} />
      <Problems path={path || '/'} problems={problems} />
      {Object.entries(schema.properties ?? {}).map(([key, child]) => {
        const childPath = `${path}/${key}`;
        const present = key in object;
        if (!present && !required.has(key)) {
          return (
            <p key={key} className="optional">
              <span className="muted">{labelOf(key)}: not given</span>{' '}
              <button type="button" className="button secondary" onClick={() => onChange({ ...object, [key]: initialValue(child) })}>
                Add {labelOf(key)}
              </button>
            </p>
          );
        }
        return (
          <div key={key} className="schema-property">
            <SchemaField
              schema={child}
              value={object[key]}
              onChange={(next) => onChange({ ...object, [key]: next })}
              label={labelOf(key)}
              path={childPath}
              problems={problems}
            />
            {!required.has(key) && (
              <button
                type="button"
                className="button secondary"
                onClick={() => {
                  const { [key]: _removed, ...rest } = object;
                  onChange(rest);
                }}
              >
                Remove {labelOf(key)}
              </button>
            )}
          </div>
        );
      })}
    </fieldset>
  );
}

function ArrayFields({ schema, value, onChange, label, path, problems }: Props) {
  const items = Array.isArray(value) ? value : [];
  const itemSchema = schema.items ?? {};
  const full = schema.maxItems !== undefined && items.length >= schema.maxItems;
  const singular = label.endsWith('s') && !label.endsWith('ss') ? label.slice(0, -1) : label;
  return (
    <fieldset className="schema-array">
      <legend>
        {label} <span className="muted small">({items.length})</span>
      </legend>
      <Hint schema={schema} />
      <Problems path={path} problems={problems} />
      {items.length === 0 && <p className="muted small">None.</p>}
      <ol>
        {items.map((item, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: items have no identity of their own; the position is the item's address (its JSON pointer)
          <li key={index}>
            <SchemaField
              schema={itemSchema}
              value={item}
              onChange={(next) => onChange(items.map((old, i) => (i === index ? next : old)))}
              label={`${singular} ${index + 1}`}
              path={`${path}/${index}`}
              problems={problems}
            />
            <button type="button" className="button danger" onClick={() => onChange(items.filter((_, i) => i !== index))}>
              Remove {singular} {index + 1}
            </button>
          </li>
        ))}
      </ol>
      <button type="button" className="button secondary" disabled={full} onClick={() => onChange([...items, initialValue(itemSchema)])}>
        Add {singular}
      </button>
    </fieldset>
  );
}

/** Fallback for a value the form has no control for: its JSON, edited in place and applied when it parses. */
function JsonValue({ value, onChange, label, path, problems }: Props) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label} (JSON)</label>
      <textarea
        id={id}
        className="code"
        rows={3}
        defaultValue={JSON.stringify(value ?? null, null, 2)}
        onBlur={(e) => {
          try {
            onChange(JSON.parse(e.target.value));
          } catch {
            // left as typed; the JSON view and the API's 422 say what is wrong
          }
        }}
      />
      <Problems path={path} problems={problems} />
    </div>
  );
}

/** A stated `X | null` value that fails also fails "must be null"; that half of the message says nothing to fix. */
function withoutNullAlternative(problems: Map<string, string[]>, path: string): Map<string, string[]> {
  const messages = problems.get(path);
  if (!messages) return problems;
  const kept = messages.flatMap((m) => m.split(/;\s*/)).filter((m) => !/^must be null$/.test(m.trim()) && !/does not match any allowed shape/.test(m));
  const out = new Map(problems);
  if (kept.length > 0) out.set(path, kept);
  else out.delete(path);
  return out;
}

/** The API's 422 details as a map from JSON pointer to messages. */
export function problemsByPath(details: unknown): Map<string, string[]> {
  const out = new Map<string, string[]>();
  if (!Array.isArray(details)) return out;
  for (const d of details as Array<{ path?: unknown; message?: unknown }>) {
    if (typeof d?.path !== 'string' || typeof d.message !== 'string') continue;
    const path = d.path.replace(/^\/spec(?=\/|$)/, '') || '/';
    out.set(path, [...(out.get(path) ?? []), d.message]);
  }
  return out;
}
