// Account bodies (spec: Authentication): sign-in, the signed-in user, organization members and API tokens.
import { Type } from 'typebox';
import { EMAIL_LENGTH_MAX, NAME_LENGTH_MAX, PASSWORD_LENGTH_MAX, ROLES, SCOPES } from '../accounts/rules.ts';
import { Id, LiteralUnion, Name, Timestamp } from './common.ts';
import { OrgIdInput } from './projects.ts';

/** The shortest email the sign-in form accepts (a@b). */
export const EMAIL_LENGTH_MIN = 3;
/** A token carries at most every scope once. */
export const TOKEN_SCOPES_MAX = SCOPES.length;

/**
 * The sign-in body's limit: the longest email and password, every character written as a \uXXXX escape, with room for
 * the JSON around them. A larger body is refused (413) before it is parsed, and before the sign-in limits count it.
 */
export const SIGN_IN_BODY_LIMIT_BYTES = 8 * 1024;

export const SignInBody = Type.Object(
  { email: Type.String({ minLength: EMAIL_LENGTH_MIN, maxLength: EMAIL_LENGTH_MAX }), password: Type.String({ minLength: 1, maxLength: PASSWORD_LENGTH_MAX }) },
  { additionalProperties: false },
);
export const Session = Type.Object({ token: Type.String(), token_type: Type.Literal('Bearer'), expires_at: Timestamp, user_id: Id('usr') });

export const User = Type.Object({ id: Id('usr'), email: Type.String(), created_at: Timestamp });
export const Membership = Type.Object({ org_id: Id('org'), org_name: Type.String(), role: Type.String(), created_at: Timestamp });
export const Me = Type.Object({
  user: User,
  memberships: Type.Array(Membership),
  auth: Type.Object({ kind: Type.String(), scopes: Type.Array(Type.String()), org_id: Type.Optional(Type.String()) }),
});

export const CreateApiTokenBody = Type.Object(
  {
    name: Name({ minLength: 1, maxLength: NAME_LENGTH_MAX }),
    org_id: OrgIdInput,
    scopes: Type.Array(LiteralUnion(SCOPES), { minItems: 1, maxItems: TOKEN_SCOPES_MAX, uniqueItems: true }),
  },
  { additionalProperties: false },
);
export const ApiToken = Type.Object({
  id: Id('tok'),
  name: Type.String(),
  org_id: Id('org'),
  scopes: Type.Array(Type.String()),
  created_at: Timestamp,
  expires_at: Timestamp,
  revoked_at: Type.Union([Timestamp, Type.Null()]),
  last_used_at: Type.Union([Timestamp, Type.Null()]),
});
export const ApiTokenCreated = Type.Object({ token: ApiToken, secret: Type.String({ description: 'shown once; store it safely' }) });

export const Member = Type.Object({
  user_id: Id('usr'),
  email: Type.String(),
  role: LiteralUnion(ROLES),
  created_at: Timestamp,
});
