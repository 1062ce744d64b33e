// Starts the real service for a test file: PGlite in memory (or a fresh PostgreSQL database when DATABASE_URL is set),
// the shared Temporal dev server with a task queue of its own, a worker, and the API on a real port.
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';
import pg from 'pg';
import { inject } from 'vitest';
import { createLogger } from '../../runtime/logger.ts';
import { loadConfig, type Config } from '../../runtime/config.ts';
import { runOperator } from '../../runtime/operator.ts';
import { maintenanceScheduleId, startService, type ServiceHandle } from '../../runtime/service.ts';
import type { Db } from '../../store/db.ts';
import { testActivities } from './activities.ts';

export type TestService = {
  url: string;
  db: Db;
  config: Config;
  service: ServiceHandle;
  /** Every log line the service wrote, raw. */
  logs: string[];
  task_queue: string;
  stop(): Promise<void>;
};

/** A fresh PostgreSQL database next to DATABASE_URL, dropped at stop; null on PGlite. */
export async function freshPostgresDatabase(): Promise<{ url: string; drop(): Promise<void> } | null> {
  const base = process.env.DATABASE_URL;
  if (!base) return null;
  const name = `crucible_t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: base });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}

/** `temporal_address`: another Temporal than the shared dev server (one the test stops and starts). */
export async function startTestService(options: { env?: Record<string, string>; mode?: 'all' | 'api'; temporal_address?: string } = {}): Promise<TestService> {
  const logs: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, callback) {
      logs.push(...chunk.toString().split('\n').filter(Boolean));
      callback();
    },
  });
  const database = await freshPostgresDatabase();
  const task_queue = `test-${randomBytes(6).toString('hex')}`;
  const config = loadConfig({
    PORT: '0',
    LOG_LEVEL: 'info',
    CRUCIBLE_TASK_QUEUE: task_queue,
    SERVICE_MASTER_KEY: randomBytes(32).toString('base64'),
    CRUCIBLE_SESSION_SECRET: randomBytes(32).toString('base64'),
    // every test signs in from 127.0.0.1; the sign-in limits have tests of their own (hardening.test.ts)
    CRUCIBLE_SIGN_IN_ATTEMPTS_PER_ADDRESS_MAX: '1000000',
    CRUCIBLE_SIGN_IN_ATTEMPTS_PER_EMAIL_MAX: '10000',
    ...(database ? { DATABASE_URL: database.url } : {}),
    ...options.env,
  });
  const logger = createLogger({ level: 'info', destination });
  const service = await startService({
    config,
    logger,
    mode: options.mode ?? 'all',
    temporal_address: options.temporal_address ?? inject('temporal_address'),
    bundle: { codePath: inject('workflow_bundle_path') },
    extra_activities: testActivities,
    pglite_dir: 'memory://',
  });
  return {
    url: service.api_url!,
    db: service.db,
    config,
    service,
    logs,
    task_queue,
    async stop() {
      // The test's own maintenance schedule goes with it, so the shared dev server does not keep firing into a dead queue.
      if ((options.mode ?? 'all') === 'all') await service.client.schedule.getHandle(maintenanceScheduleId(config)).delete();
      await service.stop();
      await database?.drop();
    },
  };
}

/**
 * A worker process of an API-only test service's queue, on the same database (PostgreSQL: two processes' roles), ready
 * when this resolves. `stop` takes its maintenance schedule with it, so the shared dev server does not keep firing into
 * a dead queue.
 */
export async function startWorkerOf(api: TestService): Promise<ServiceHandle & { stopWorker(): Promise<void> }> {
  const worker = await startService({
    config: api.config,
    logger: createLogger({ level: 'silent' }),
    mode: 'worker',
    temporal_address: inject('temporal_address'),
    bundle: { codePath: inject('workflow_bundle_path') },
  });
  if (!(await worker.worker_ready)) throw new Error('the test worker did not become ready');
  return Object.assign(worker, {
    async stopWorker() {
      await worker.client.schedule.getHandle(maintenanceScheduleId(api.config)).delete();
      await worker.stop();
    },
  });
}

export type HttpResult<T = any> = { status: number; body: T; headers: Headers };

export async function http<T = any>(
  service: { url: string },
  method: string,
  path: string,
  options: { token?: string; body?: unknown; raw?: string | Uint8Array; headers?: Record<string, string> } = {},
): Promise<HttpResult<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: string | Uint8Array | undefined;
  if (options.raw !== undefined) body = options.raw;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(`${service.url}${path}`, { method, headers, body: body as RequestInit['body'] });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, body: parsed as T, headers: response.headers };
}

export type TestUser = { user_id: string; email: string; password: string; org_id: string; session: string };

let counter = 0;
/** A user who owns a new organization, signed in over HTTP. */
export async function signedInOwner(service: TestService, label = 'user'): Promise<TestUser> {
  counter += 1;
  const email = `${label}-${counter}-${randomBytes(3).toString('hex')}@example.org`;
  const created = (await runOperator(service.db, { command: 'bootstrap', flags: { email, org: `Org of ${email}` } })) as {
    user_id: string;
    password: string;
    org_id: string;
  };
  const session = await signIn(service, email, created.password);
  return { user_id: created.user_id, email, password: created.password, org_id: created.org_id, session };
}

export async function signIn(service: TestService, email: string, password: string): Promise<string> {
  const response = await http(service, 'POST', '/v1/auth/sessions', { body: { email, password } });
  if (response.status !== 201) throw new Error(`sign-in failed: ${JSON.stringify(response.body)}`);
  return response.body.token as string;
}

/** A member (or admin) of an existing organization, signed in. */
export async function signedInMember(service: TestService, org_id: string, role: 'member' | 'admin' | 'owner' = 'member'): Promise<TestUser> {
  counter += 1;
  const email = `member-${counter}-${randomBytes(3).toString('hex')}@example.org`;
  const user = (await runOperator(service.db, { command: 'create-user', flags: { email } })) as { user_id: string; password: string };
  await runOperator(service.db, { command: 'add-member', flags: { org: org_id, email, role } });
  return { user_id: user.user_id, email, password: user.password, org_id, session: await signIn(service, email, user.password) };
}

export async function apiToken(service: TestService, user: TestUser, scopes: string[], org_id = user.org_id): Promise<string> {
  const response = await http(service, 'POST', '/v1/me/api-tokens', { token: user.session, body: { name: 'test', org_id, scopes } });
  if (response.status !== 201) throw new Error(`token creation failed: ${JSON.stringify(response.body)}`);
  return response.body.secret as string;
}

/** Polls until `check` returns a value (not a sleep: it waits for the condition, bounded). */
export async function eventually<T>(check: () => Promise<T | undefined | null | false>, timeout_ms = 30_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeout_ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeout_ms} ms waiting for ${what}`);
    await delay(50);
  }
}
