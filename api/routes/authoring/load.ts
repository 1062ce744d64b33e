// Reading a session for the room's operations: checked for the caller, with its latest checkpoint, rendered once per
// version for polls.
import type { Context } from 'koa';
import { findSession, latestCheckpoint, type SessionRow } from '../../../store/authoring/sessions.ts';
import { cachedRow } from '../../../store/rowCache.ts';
import { authorizeOwned } from '../../auth.ts';
import type { AppDeps } from '../../context.ts';
import { type Rendered, rendered } from '../../poll.ts';
import { presentSession } from './present.ts';

/** The session's body with its latest checkpoint (or without it, for a listing). */
export async function sessionBody(deps: AppDeps, session: SessionRow, withCheckpoint = true) {
  return presentSession(session, await latestCheckpoint(deps.db, session.id), withCheckpoint);
}

/**
 * A session's answer rendered once per version: its row, its JSON text and ETag, kept beside the row in the row cache
 * (dropped with it when the session or a new checkpoint is announced: 0013), so a poll neither parses the checkpoint
 * nor serialises and hashes the body again. The body is the same for every caller; access is checked on the row.
 */
export async function sessionView(deps: AppDeps, session_id: string): Promise<{ session: SessionRow; body: Rendered } | undefined> {
  return cachedRow(deps.db, session_id, 'answer', async () => {
    const session = await findSession(deps.db, session_id);
    return session && { session, body: rendered(await sessionBody(deps, session)) };
  });
}

export async function loadSession(deps: AppDeps, ctx: Context, session_id: string): Promise<SessionRow> {
  return authorizeOwned(deps, ctx, `Authoring session ${session_id}`, await findSession(deps.db, session_id));
}

/** The session as it is after a step, read again from the database. */
export async function sessionAfterStep(deps: AppDeps, session_id: string) {
  return sessionBody(deps, (await findSession(deps.db, session_id))!);
}
