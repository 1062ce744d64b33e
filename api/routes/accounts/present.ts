// Accounts as the API shows them: a session's token once, the signed-in user with the memberships the credential sees.
import type { Static } from 'typebox';
import type { Me, Session } from '../../../domain/contracts/accounts.ts';
import type { MembershipView, UserRow } from '../../../store/accounts/accounts.ts';
import type { Auth } from '../../registry.ts';

export function presentSession(token: string, expires_at: string, user_id: string): Static<typeof Session> {
  return { token, token_type: 'Bearer', expires_at, user_id };
}

/** A token sees only its own organization's membership; a session sees all of them. */
export function presentMe(user: UserRow, memberships: MembershipView[], auth: Auth): Static<typeof Me> {
  const visible = auth.kind === 'token' ? memberships.filter((m) => m.org_id === auth.org_id) : memberships;
  return { user, memberships: visible, auth: { kind: auth.kind, scopes: auth.scopes, ...(auth.kind === 'token' ? { org_id: auth.org_id } : {}) } };
}
