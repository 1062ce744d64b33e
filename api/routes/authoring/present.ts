// An authoring session as the API shows it: the row without its starting world, the calls it accepts now and, when
// asked for, its latest checkpoint.
import type { Static } from 'typebox';
import { acceptedCalls } from '../../../domain/authoring/session.ts';
import type { Checkpoint } from '../../../domain/authoring/checkpoint.ts';
import type { AuthoringSession } from '../../../domain/contracts/authoring.ts';
import type { SessionRow } from '../../../store/authoring/sessions.ts';

export function presentSession(session: SessionRow, checkpoint: Checkpoint | null, withCheckpoint = true): Static<typeof AuthoringSession> {
  const { starting_world: _starting, ...rest } = session;
  return { ...rest, error: session.failure, accepts: acceptedCalls(session.status, checkpoint), checkpoint: withCheckpoint ? checkpoint : null };
}
