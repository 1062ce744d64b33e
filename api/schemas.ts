// Shared request/response pieces.
import { Type } from 'typebox';

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
export const Timestamp = Type.String({ format: 'date-time' });
/** spec: Limits — credit integers at most 9007199254740991 in JSON. */
export const CREDITS_MAX = 9007199254740991;
export const Credits = Type.Integer({ minimum: 0, maximum: CREDITS_MAX });

export const PageQuery = {
  offset: { schema: Type.Integer({ minimum: 0 }), description: 'rows to skip' },
  limit: { schema: Type.Integer({ minimum: 1, maximum: 200 }), description: '1 to 200, default 50' },
};

export function Page<T extends ReturnType<typeof Type.Object>>(item: T) {
  return Type.Object({ data: Type.Array(item), next_offset: Type.Union([Type.Integer(), Type.Null()]) });
}
