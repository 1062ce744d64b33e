// A Temporal worker as a process of its own, for tests that kill it (SIGKILL) mid-activity: the production worker
// (runtime/worker.ts createWorker, every workflow and activity) on the test run's shared workflow bundle, so a start
// takes seconds instead of a bundling. Configured by the environment like `crucible-server worker` (DATABASE_URL,
// TEMPORAL_ADDRESS, CRUCIBLE_TASK_QUEUE, providers), plus CRUCIBLE_TEST_WORKFLOW_BUNDLE (the bundle's path).
import { loadConfig } from '../../runtime/config.ts';
import { createLogger } from '../../runtime/logger.ts';
import { installTemporalRuntime } from '../../runtime/service.ts';
import { createWorker } from '../../runtime/worker.ts';
import { openDatabase } from '../../store/db.ts';

const config = loadConfig(process.env);
const bundle_path = process.env.CRUCIBLE_TEST_WORKFLOW_BUNDLE;
if (!config.database_url || !config.temporal_address || !bundle_path) {
  throw new Error('worker-process needs DATABASE_URL, TEMPORAL_ADDRESS and CRUCIBLE_TEST_WORKFLOW_BUNDLE');
}
const logger = createLogger({ level: 'warn' });
installTemporalRuntime(logger);
const db = await openDatabase({ database_url: config.database_url, pglite_dir: '' });
const { worker } = await createWorker({ config, db, logger, address: config.temporal_address, bundle: { codePath: bundle_path } });
process.stdout.write(`worker polling task queue ${config.temporal_task_queue}\n`);
await worker.run();
