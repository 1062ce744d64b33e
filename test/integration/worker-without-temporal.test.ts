// A worker started while Temporal is unreachable: the process starts instead of failing, tries again with backoff and
// says each kind of failure once (not once per attempt); when Temporal comes up on its address the worker polls and
// runs workflows, without a restart. Run in-process (PGlite), as `crucible-server worker` runs it.
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../runtime/config.ts';
import { createLogger } from '../../runtime/logger.ts';
import { startService, type ServiceHandle } from '../../runtime/service.ts';
import { type DevServer, freePort, startDevServer } from '../../runtime/temporal.ts';
import type { maintenanceWorkflow as MaintenanceWorkflow } from '../../workflows/maintenance.ts';
import { eventually } from '../support/harness.ts';

let service: ServiceHandle | undefined;
let server: DevServer | undefined;
afterAll(async () => {
  await service?.stop();
  await server?.stop();
});

describe('a worker started without Temporal', () => {
  it('starts, waits with backoff saying why once, and polls once Temporal answers', async () => {
    const lines: any[] = [];
    const destination = new Writable({
      write(chunk, _encoding, callback) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        callback();
      },
    });
    const port = await freePort();
    const task_queue = `test-${randomBytes(6).toString('hex')}`;
    const config = loadConfig({
      CRUCIBLE_TASK_QUEUE: task_queue,
      SERVICE_MASTER_KEY: randomBytes(32).toString('base64'),
      CRUCIBLE_SESSION_SECRET: randomBytes(32).toString('base64'),
    });
    // Nothing listens on the port yet: the start must not wait for Temporal.
    const started = await startService({
      config,
      logger: createLogger({ level: 'info', destination }),
      mode: 'worker',
      temporal_address: `127.0.0.1:${port}`,
      bundle: { codePath: inject('workflow_bundle_path') },
      pglite_dir: 'memory://',
    });
    service = started;
    let polls: boolean | 'pending' = 'pending';
    void started.worker_ready.then((ready) => (polls = ready));
    const waits = () => lines.filter((line) => /the worker cannot start polling/.test(line.msg));
    await eventually(async () => waits().length > 0, 30_000, 'the worker to say it waits');
    expect(polls).toBe('pending');

    // Temporal comes up on that address some attempts later.
    server = await startDevServer({ cli: inject('temporal_cli'), port, ui_port: null });
    expect(await started.worker_ready).toBe(true);
    // Several attempts failed the same way; the log said so once.
    expect(waits()).toHaveLength(1);
    expect(waits()[0]).toMatchObject({ level: 40, attempt_class: 'unreachable', temporal_address: `127.0.0.1:${port}`, task_queue });
    const reached = lines.filter((line) => /the worker reached Temporal and is polling/.test(line.msg));
    expect(reached).toHaveLength(1);
    expect(reached[0].attempts).toBeGreaterThan(1);

    // It polls: a workflow on its task queue runs to the end.
    const result = await started.client.workflow.execute<typeof MaintenanceWorkflow>('maintenanceWorkflow', {
      taskQueue: task_queue,
      workflowId: `maintenance-${task_queue}-check`,
      args: [{}],
    });
    expect(result).toEqual({
      idempotency_records_purged: 0,
      sign_in_attempts_purged: 0,
      intake_drafts_started: 0,
      reviews_started: 0,
      runs_started: 0,
      quarantined_sources_purged: 0,
      staged_reads_purged: 0,
      jobs_ended: 0,
    });
  }, 240_000);
});
