// Temporal with mutual TLS, as a secured cluster or Temporal Cloud runs it: a real temporal-server (built from
// go.temporal.io/server like `crucible-server temporal-server`, here on an in-memory store) whose frontend accepts only
// client certificates of a throwaway CA made here with openssl. The service configured with TEMPORAL_TLS_CERT / _KEY /
// _CA and TEMPORAL_TLS_SERVER_NAME (the server's certificate names localhost only; the service dials 127.0.0.1) starts
// jobs and its worker runs them; a worker without a client certificate is refused and says why, without exiting.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../runtime/config.ts';
import { createLogger } from '../../runtime/logger.ts';
import { startService } from '../../runtime/service.ts';
import { findTemporalServer, startTemporalServer, type TemporalServer } from '../../runtime/temporalServer.ts';
import type { maintenanceWorkflow as MaintenanceWorkflow } from '../../workflows/maintenance.ts';
import { CLIENT_EXTENSIONS, SERVER_EXTENSIONS, testCa, testCertificate } from '../support/certificates.ts';
import { eventually, http, startTestService, type TestService } from '../support/harness.ts';

const dir = mkdtempSync(join(tmpdir(), 'crucible-mtls-'));
const file = (name: string) => join(dir, name);
let server: TemporalServer | undefined;
const stops: (() => Promise<void>)[] = [];

beforeAll(async () => {
  const tools = await findTemporalServer({ say: (line) => process.stderr.write(`${line}\n`) });
  if (!tools) throw new Error('temporal-server is not built and Go is not available to build it');
  testCa(dir);
  testCertificate(dir, 'server', SERVER_EXTENSIONS);
  testCertificate(dir, 'client', CLIENT_EXTENSIONS);
  const tls = { cert_file: file('server.pem'), key_file: file('server.key'), ca_file: file('ca.pem'), server_name: 'localhost' };
  server = await startTemporalServer({ tools, databases: 'memory', dir: join(dir, 'server'), tls });
}, 900_000);

afterAll(async () => {
  for (const stop of stops.reverse()) await stop();
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const mtls = () => ({
  TEMPORAL_TLS_CERT: file('client.pem'),
  TEMPORAL_TLS_KEY: file('client.key'),
  TEMPORAL_TLS_CA: file('ca.pem'),
  TEMPORAL_TLS_SERVER_NAME: 'localhost',
});

describe('a Temporal cluster that requires client certificates', () => {
  it('serves the API and the worker configured with the client certificate, the CA and the server name', async () => {
    const service: TestService = await startTestService({ env: mtls(), temporal_address: server!.address });
    stops.push(() => service.stop());
    const health = await eventually(
      async () => {
        const read = await http(service, 'GET', '/v1/health');
        return read.status === 200 ? read.body : null;
      },
      60_000,
      'readiness over mTLS',
    );
    expect(health.checks.temporal.ok).toBe(true);
    expect(health.checks.worker.ok).toBe(true);
    const result = await service.service.client.workflow.execute<typeof MaintenanceWorkflow>('maintenanceWorkflow', {
      taskQueue: service.task_queue,
      workflowId: `maintenance-mtls-${randomBytes(4).toString('hex')}`,
      args: [{}],
    });
    expect(result.runs_started).toBe(0);
  });

  it('refuses a worker without a client certificate; the worker says why once and keeps trying', async () => {
    const lines: any[] = [];
    const destination = new Writable({
      write(chunk, _encoding, callback) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        callback();
      },
    });
    const config = loadConfig({
      TEMPORAL_TLS_CA: file('ca.pem'),
      TEMPORAL_TLS_SERVER_NAME: 'localhost',
      CRUCIBLE_TASK_QUEUE: `mtls-${randomBytes(4).toString('hex')}`,
      SERVICE_MASTER_KEY: randomBytes(32).toString('base64'),
      CRUCIBLE_SESSION_SECRET: randomBytes(32).toString('base64'),
    });
    const worker = await startService({
      config,
      logger: createLogger({ level: 'info', destination }),
      mode: 'worker',
      temporal_address: server!.address,
      bundle: { codePath: inject('workflow_bundle_path') },
      pglite_dir: 'memory://',
    });
    stops.push(() => worker.stop());
    // on a busy machine a first attempt may time out before the handshake is refused ('unreachable', said once too)
    const refusal = (line: any) => /the worker cannot start polling/.test(line.msg) && ['TLS failed', 'credentials refused'].includes(line.attempt_class);
    const refused = await eventually(async () => lines.find(refusal), 60_000, 'the refusal');
    expect(lines.filter((line) => /the worker cannot start polling/.test(line.msg) && line.attempt_class === refused.attempt_class)).toHaveLength(1);
    let polls: boolean | 'pending' = 'pending';
    void worker.worker_ready.then((ready) => (polls = ready));
    expect(polls).toBe('pending');
  });
});
