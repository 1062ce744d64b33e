// Names and titles a person gives (project titles, file names, world names, token, key, program and organization names):
// no control characters and no bidirectional overrides or isolates, so a stored name cannot rewrite a terminal line
// (ESC and OSC sequences, CR, LF) or show its characters in another order than they are stored (U+202E). Checked at the
// edge (the schemas' pattern, domain/contracts/common.ts `Name`) and by the operator commands; clients strip them from
// what they print for names stored before (clients/cli/src/output.ts). docs/decisions.md "Characters in names".
import { System } from 'typebox/system';
import { ServiceError } from './errors.ts';

/** C0 and C1 controls (TAB, LF, CR, ESC, DEL and U+0080–U+009F) and U+202A–U+202E, U+2066–U+2069. */
const FORBIDDEN = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

/** The same set as a JSON Schema pattern (the published documents say it). */
export const NAME_PATTERN = '^[^\\u0000-\\u001F\\u007F-\\u009F\\u202A-\\u202E\\u2066-\\u2069]*$';

/** What a refused name's answer says to remove. */
export const NAME_CHARACTERS_MESSAGE =
  'must not contain control characters (such as ESC, CR, LF or TAB) or bidirectional overrides and isolates (U+202A to U+202E, U+2066 to U+2069); remove them';

export function hasForbiddenNameCharacter(value: string): boolean {
  return FORBIDDEN.test(value);
}

/** Refuses a name holding a forbidden character with 422 VALIDATION_FAILED naming the field (`path`, a JSON pointer). */
export function checkNameCharacters(value: string, path: string): void {
  if (!hasForbiddenNameCharacter(value)) return;
  throw new ServiceError('VALIDATION_FAILED', `${path.replace(/^\//, '')} ${NAME_CHARACTERS_MESSAGE}.`, [{ path, message: NAME_CHARACTERS_MESSAGE }]);
}

type SchemaError = { keyword: string; params: Record<string, unknown> };

// Every validator (the router's, WorldSpec's problems, IntakeSpec's) words its errors through TypeBox's locale: a name
// refused for its characters says which characters to remove instead of quoting the pattern.
System.Locale.Set((error: SchemaError) =>
  error.keyword === 'pattern' && error.params.pattern === NAME_PATTERN ? NAME_CHARACTERS_MESSAGE : System.Locale.en_US(error as never),
);
