// Schema problems with one message per real mistake: unions are matched by their literal discriminators
// (kind, dist, by) before descending, so a wrong field reports itself rather than every union branch.
import { Value } from 'typebox/value';

export type Problem = { pointer: string; message: string };

type Json = Record<string, unknown>;

export function escapePointer(segment: string | number): string {
  return String(segment).replaceAll('~', '~0').replaceAll('/', '~1');
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function literalProperties(schema: Json): [string, unknown][] {
  const properties = schema.properties;
  if (!isObject(properties)) return [];
  const out: [string, unknown][] = [];
  for (const [key, sub] of Object.entries(properties)) if (isObject(sub) && 'const' in sub) out.push([key, sub.const]);
  return out;
}

/** Unknown fields past this many problems are counted in `not_built` instead of being written out. */
export const SCHEMA_PROBLEMS_BUILT_MAX = 1_000;

/** Problems with their pointers; `not_built` counts the unknown fields found after SCHEMA_PROBLEMS_BUILT_MAX problems. */
type Found = Problem[] & { not_built?: number };

export function schemaProblems(schema: unknown, value: unknown, pointer = ''): { problems: Problem[]; not_built: number } {
  const problems: Found = [];
  walk(schema as Json, value, pointer, problems);
  return { problems, not_built: problems.not_built ?? 0 };
}

function walk(schema: Json, value: unknown, pointer: string, problems: Problem[]): void {
  if (Array.isArray(schema.anyOf)) {
    walkUnion(schema, schema.anyOf as Json[], value, pointer, problems);
    return;
  }
  if (schema.type === 'object' && isObject(value)) {
    walkObject(schema, value, pointer, problems);
    return;
  }
  if (schema.type === 'array' && Array.isArray(value)) {
    if (typeof schema.minItems === 'number' && value.length < schema.minItems)
      problems.push({ pointer, message: `must have at least ${schema.minItems} items` });
    if (typeof schema.maxItems === 'number' && value.length > schema.maxItems)
      problems.push({ pointer, message: `must have at most ${schema.maxItems} items` });
    if (isObject(schema.items)) {
      for (const [index, item] of value.entries()) walk(schema.items as Json, item, `${pointer}/${index}`, problems);
    }
    return;
  }
  for (const error of Value.Errors(schema as never, value)) problems.push({ pointer: pointer + error.instancePath, message: error.message });
}

function walkObject(schema: Json, value: Json, pointer: string, problems: Problem[]): void {
  const properties = isObject(schema.properties) ? (schema.properties as Record<string, Json>) : {};
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  for (const key of required) if (!(key in value)) problems.push({ pointer: `${pointer}/${escapePointer(key)}`, message: `is required` });
  const patterns = isObject(schema.patternProperties) ? Object.entries(schema.patternProperties as Record<string, Json>) : [];
  // What is allowed is said once per object, at its first unknown field; later ones point there (a body of 90,000 unknown
  // fields would otherwise repeat the list 90,000 times).
  let said_at: string | null = null;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    const sub = value[key];
    if (Object.hasOwn(properties, key)) {
      walk(properties[key]!, sub, `${pointer}/${escapePointer(key)}`, problems);
      continue;
    }
    const pattern = patterns.find(([source]) => new RegExp(source).test(key));
    if (pattern) walk(pattern[1], sub, `${pointer}/${escapePointer(key)}`, problems);
    else if (patterns.length > 0 || schema.additionalProperties === false) {
      if (problems.length >= SCHEMA_PROBLEMS_BUILT_MAX) {
        (problems as Found).not_built = ((problems as Found).not_built ?? 0) + 1;
        continue;
      }
      const child = `${pointer}/${escapePointer(key)}`;
      if (said_at !== null) {
        const short = patterns.length > 0 ? `name '${key}' does not match the allowed names` : 'is not a known field here';
        problems.push({ pointer: child, message: `${short} (see ${said_at} for what is allowed)` });
        continue;
      }
      const rule =
        patterns.length > 0
          ? `name '${key}' must match ${patterns.map(([source]) => source).join(' or ')}`
          : `is not a known field here (allowed: ${Object.keys(properties).join(', ')})`;
      problems.push({ pointer: child, message: rule });
      said_at = child;
    }
  }
}

function walkUnion(schema: Json, branches: Json[], value: unknown, pointer: string, problems: Problem[]): void {
  if (Value.Check(schema as never, value)) return;
  const discriminated = branches.every((branch) => literalProperties(branch).length > 0);
  if (!discriminated || !isObject(value)) {
    if (branches.every((branch) => 'const' in branch)) {
      problems.push({ pointer, message: `must be one of: ${branches.map((branch) => JSON.stringify(branch.const)).join(', ')}` });
      return;
    }
    const forms = branches.map((branch) => (typeof branch.type === 'string' ? branch.type : 'object')).join(' or ');
    problems.push({ pointer, message: typeof schema.description === 'string' ? `must be ${schema.description}` : `must be ${forms}` });
    return;
  }
  let candidates = branches;
  for (const [key] of literalProperties(branches[0]!)) {
    const matching = candidates.filter((branch) => literalProperties(branch).every(([k, v]) => k !== key || value[k] === v));
    if (matching.length === 0) {
      const allowed = [...new Set(candidates.map((branch) => literalProperties(branch).find(([k]) => k === key)?.[1]))];
      problems.push({ pointer: `${pointer}/${escapePointer(key)}`, message: `must be one of: ${allowed.map((v) => JSON.stringify(v)).join(', ')}` });
      return;
    }
    candidates = matching;
  }
  // Further discriminators (branch steps: kind, then by) pick the exact branch.
  const exact = candidates.filter((branch) => literalProperties(branch).every(([k, v]) => value[k] === v));
  if (exact.length === 0) {
    const keys = [...new Set(candidates.flatMap((branch) => literalProperties(branch).map(([k]) => k)))];
    const bad = keys.find((key) => !candidates.some((branch) => literalProperties(branch).some(([k, v]) => k === key && value[k] === v))) ?? keys[0]!;
    const allowed = [...new Set(candidates.map((branch) => literalProperties(branch).find(([k]) => k === bad)?.[1]).filter((v) => v !== undefined))];
    problems.push({ pointer: `${pointer}/${escapePointer(bad)}`, message: `must be one of: ${allowed.map((v) => JSON.stringify(v)).join(', ')}` });
    return;
  }
  walk(exact[0]!, value, pointer, problems);
}
