// The pieces every API body shares (spec: Versioning, Limits; STYLE.md: one voice for every endpoint): the error
// envelope, prefixed ids, ISO 8601 timestamps, credit integers and the one paging shape.
import { type Static, type TLiteral, type TNull, type TSchema, type TSchemaOptions, type TString, type TUnion, Type } from 'typebox';
import { NAME_PATTERN } from '../names.ts';

export const ErrorEnvelope = Type.Object(
  {
    code: Type.String(),
    message: Type.String(),
    details: Type.Union([Type.Array(Type.Object({ path: Type.Optional(Type.String()), message: Type.String() })), Type.Object({})]),
    request_id: Type.String(),
  },
  { title: 'Error' },
);

export const Id = (prefix: string) => Type.String({ pattern: `^${prefix}_[0-9a-z]{1,60}$`, description: `id with prefix ${prefix}_` });
/**
 * A name or title a person gives (a project's title, a world's name, a token's name, a key's label, a program's name):
 * no control characters and no bidirectional overrides or isolates (domain/names.ts); 422 names the field otherwise.
 */
export function Name(options: { minLength?: number; maxLength: number; description?: string }): TString {
  return Type.String({ ...options, pattern: NAME_PATTERN });
}
export const Timestamp = Type.String({ format: 'date-time' });
/** spec: Limits — credit integers at most 9007199254740991 in JSON. */
export const CREDITS_MAX = 9007199254740991;
export const Credits = Type.Integer({ minimum: 0, maximum: CREDITS_MAX });

/** spec: Limits — list pages hold 1 to 200 items. */
export const PAGE_LIMIT_MAX = 200;
export const PAGE_LIMIT_DEFAULT = 50;
/** Offsets beyond this are refused: deep paging stays bounded. */
export const PAGE_OFFSET_MAX = 1_000_000;

/** One page of a list: its items and the offset of the next page (null on the last). */
export function Page<T extends ReturnType<typeof Type.Object>>(item: T) {
  return Type.Object({ data: Type.Array(item), next_offset: Type.Union([Type.Integer(), Type.Null()]) });
}

/** A union of string literals from a constant list, typed as that list's members (the document is the same `anyOf`). */
export function LiteralUnion<const T extends readonly string[]>(values: T, options?: TSchemaOptions) {
  return Type.Union(
    values.map((value) => Type.Literal(value)),
    options,
  ) as unknown as TUnion<{ -readonly [K in keyof T]: TLiteral<T[K]> }>;
}

/** The same with null as one more member of the one `anyOf`. */
export function NullableLiteralUnion<const T extends readonly string[]>(values: T, options?: TSchemaOptions) {
  return Type.Union([...values.map((value) => Type.Literal(value)), Type.Null()], options) as unknown as TUnion<
    [...{ -readonly [K in keyof T]: TLiteral<T[K]> }, TNull]
  >;
}

/**
 * A named contract (a schema with `$id`) where a body embeds it, with a description of that use: validated and typed as
 * the contract itself. TypeBox has no way to add a keyword to an existing schema, so this is the documented escape hatch.
 */
export function Described<T extends TSchema>(contract: T, description: string) {
  return Type.Unsafe<Static<T>>({ ...contract, description });
}
