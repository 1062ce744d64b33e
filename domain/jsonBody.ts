// What every JSON body must be before anything else reads it: text a database can store, nested at most JSON_DEPTH_MAX
// levels, at most JSON_NODES_MAX values. Shared by the API's router and the compute pool's threads (a large world is
// parsed and checked there, off the event loop: compute/worldValidation.ts).
import { ServiceError } from './errors.ts';

/** NUL cannot be stored in PostgreSQL text; a lone UTF-16 surrogate cannot be encoded as UTF-8. */
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export function isStorableString(value: string): boolean {
  return !UNSTORABLE.test(value);
}

/** The value of a JSON body's text; a syntax error is a 422 that says so. */
export function parseJsonBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ServiceError('VALIDATION_FAILED', 'The request body is not valid JSON; fix the syntax and resend.', [
      { path: '', message: (error as Error).message },
    ]);
  }
}

/** JSON nesting deeper than this is refused before validation walks it. */
export const JSON_DEPTH_MAX = 64;

/**
 * JSON values (objects, arrays, strings, numbers, booleans, nulls) a request body may hold. A body with more is refused
 * (422) while it is being counted, before any validation walks it: a 1 MiB body of `[{},{},…]` holds about 350,000.
 */
export const JSON_NODES_MAX = 100_000;

/** A value still to look at, with where it sits: its pointer is built only if it is reported. */
type Pending = { value: unknown; parent: Pending | null; key: string | number; depth: number };

function pointerOf(entry: Pending): string {
  const segments: string[] = [];
  for (let at: Pending | null = entry; at?.parent; at = at.parent) segments.push(String(at.key).replace(/~/g, '~0').replace(/\//g, '~1'));
  return segments.length === 0 ? '' : `/${segments.reverse().join('/')}`;
}

/**
 * JSON pointers of strings (values or keys) a database cannot store, whether nesting exceeds JSON_DEPTH_MAX, and
 * whether the value holds more than `nodes_max` JSON values (the walk stops there).
 */
export function unstorableStrings(value: unknown, nodes_max = JSON_NODES_MAX): { paths: string[]; too_deep: boolean; too_many: boolean } {
  const paths: string[] = [];
  let too_deep = false;
  let nodes = 0;
  const stack: Pending[] = [{ value, parent: null, key: '', depth: 0 }];
  while (stack.length > 0 && paths.length < 20) {
    if (++nodes > nodes_max) return { paths, too_deep, too_many: true };
    const entry = stack.pop()!;
    const current = entry.value;
    if (typeof current === 'string') {
      if (!isStorableString(current)) paths.push(pointerOf(entry) || '/');
      continue;
    }
    if (current === null || typeof current !== 'object') continue;
    if (entry.depth >= JSON_DEPTH_MAX) {
      too_deep = true;
      break;
    }
    const depth = entry.depth + 1;
    if (Array.isArray(current)) {
      for (let index = 0; index < current.length; index++) stack.push({ value: current[index], parent: entry, key: index, depth });
      continue;
    }
    for (const key in current) {
      if (!Object.hasOwn(current, key)) continue;
      if (!isStorableString(key)) {
        paths.push(`${pointerOf(entry)}/(a key)`);
        continue;
      }
      stack.push({ value: (current as Record<string, unknown>)[key], parent: entry, key, depth });
    }
  }
  return { paths, too_deep, too_many: false };
}

export function refuseUnstorable(value: unknown, where: string): void {
  const found = unstorableStrings(value);
  if (found.too_many) {
    throw new ServiceError('VALIDATION_FAILED', `The ${where} holds more than JSON_NODES_MAX (${JSON_NODES_MAX}) JSON values; send a smaller document.`, [
      { path: '/', message: `more than ${JSON_NODES_MAX} JSON values`, limit: 'JSON_NODES_MAX', limit_value: JSON_NODES_MAX },
    ]);
  }
  if (found.too_deep) {
    throw new ServiceError('VALIDATION_FAILED', `The ${where} is nested more than ${JSON_DEPTH_MAX} levels deep; flatten it.`, [
      { path: '/', message: `nesting deeper than ${JSON_DEPTH_MAX} levels` },
    ]);
  }
  if (found.paths.length > 0) {
    throw new ServiceError(
      'VALIDATION_FAILED',
      `The ${where} holds a NUL character or a lone UTF-16 surrogate at ${found.paths[0]}; remove it (such text cannot be stored).`,
      found.paths.map((path) => ({ path, message: 'contains a NUL character or a lone surrogate' })),
    );
  }
}
