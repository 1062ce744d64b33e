// Housekeeping run by the maintenance schedule: idempotency records past retention.
import { purgeIdempotencyRecords } from '../store/idempotency.ts';
import type { ActivityDeps } from './deps.ts';

export function maintenanceActivities(deps: ActivityDeps) {
  return {
    async purgeExpiredIdempotencyRecords(): Promise<{ purged: number }> {
      return { purged: await purgeIdempotencyRecords(deps.db) };
    },
  };
}
