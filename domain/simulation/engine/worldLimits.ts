// The limits' errors of a replication: what the world made the run exceed.
import { ServiceError } from '../../errors.ts';
import { ENTITIES_IN_SYSTEM_MAX, EVENTS_PER_REPLICATION_MAX } from '../limits.ts';

/** An engine limit the world made the run exceed: the world, not the service, caused the failure (spec: Credits). */
function worldLimit(message: string, path: string, detail: string): ServiceError {
  return new ServiceError('WORLD_LIMIT_EXCEEDED', `the world caused this failure, not the service: ${message}`, [{ path, message: detail }]);
}

// The limits' errors are built out of line: the hot functions that throw them stay small enough to inline.
export function eventLimit(): ServiceError {
  return worldLimit(
    `replication exceeded EVENTS_PER_REPLICATION_MAX (${EVENTS_PER_REPLICATION_MAX}); shorten the horizon or lower the arrival rates`,
    '/horizon',
    `more than ${EVENTS_PER_REPLICATION_MAX} events in one replication`,
  );
}

export function entityLimit(): ServiceError {
  return worldLimit(
    `more than ENTITIES_IN_SYSTEM_MAX (${ENTITIES_IN_SYSTEM_MAX}) entities were in the system at once; the pathway cannot keep up with its arrivals`,
    '/arrivals',
    `more than ${ENTITIES_IN_SYSTEM_MAX} entities at once`,
  );
}
