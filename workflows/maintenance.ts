// The periodic maintenance workflow, started by a Temporal schedule: purge idempotency records past retention,
// then let each room reconcile rows whose workflow never started.
import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';

const { purgeExpiredIdempotencyRecords } = proxyActivities<Activities>({ startToCloseTimeout: '1 minute', retry: { maximumAttempts: 5 } });

export async function maintenanceWorkflow(): Promise<{ idempotency_records_purged: number }> {
  const { purged } = await purgeExpiredIdempotencyRecords();
  return { idempotency_records_purged: purged };
}
