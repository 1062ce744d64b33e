// crucible --wait under load: a poll answered 503 or 429 (with Retry-After), 504, a dropped connection, or no answer
// within the request timeout is read again, and the wait ends with the job's own end; a create is repeated only when it
// carries an Idempotency-Key. The CLI runs as its own process against a real HTTP server on a local port that answers
// like a busy service (or hangs).
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCrucibleClient } from '../../clients/sdk/src/index.ts';
import { RequestTimeoutError } from '../../clients/cli/src/exit.ts';
import { LONG_POLL_MARGIN_SECONDS, requestTimeoutSeconds, resolveRequestTimeout, withRequestTimeouts } from '../../clients/cli/src/timeouts.ts';
import { type FakeReply, type RecordedRequest, startFakeServer } from '../fakes/http.ts';

const CLI = join(import.meta.dirname, '..', '..', 'clients', 'cli', 'src', 'main.ts');

let home: string;
beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'crucible-cli-retry-'));
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

type Ran = { code: number; stdout: string; stderr: string; body: any };

function crucible(url: string, args: string[], env: Record<string, string> = {}): Promise<Ran> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [CLI, '--json', ...args],
      // Without a request timeout of its own, a hung request would hold the CLI for undici's 300 s: killed at 50 s.
      { env: { ...process.env, CRUCIBLE_URL: url, CRUCIBLE_TOKEN: 'cru.tok_test.secret', XDG_CONFIG_HOME: home, ...env }, timeout: 50_000 },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== 'number') return reject(error);
        const last = stdout.trim().split('\n').at(-1);
        resolve({ code: error ? (error.code as number) : 0, stdout, stderr, body: last ? JSON.parse(last) : null });
      },
    );
  });
}

const envelope = (code: string) => ({ code, message: code.toLowerCase(), details: {}, request_id: 'req_fake' });
const busy = (status: number, retry_after_seconds?: number): FakeReply => ({
  status,
  headers: retry_after_seconds === undefined ? {} : { 'retry-after': String(retry_after_seconds) },
  body: envelope(status === 429 ? 'RATE_LIMITED' : 'TEMPORARILY_UNAVAILABLE'),
});
const dropped: FakeReply = { status: 0, destroy: true };
const hung: FakeReply = { status: 0, hang: true };
const run = (status: string, replications_completed: number): FakeReply => ({
  status: 200,
  body: { run_id: 'run_busy', status, replications_completed, replications_requested: 4, credits_used: 0, budget_limit_credits: 100 },
});

/** A server that answers each path with its script in order, then the script's last answer; it notes when each came. */
async function busyService(scripts: Record<string, FakeReply[]>) {
  const arrived_ms: Array<{ request: RecordedRequest; at_ms: number }> = [];
  const served: Record<string, number> = {};
  const server = await startFakeServer((request) => {
    const key = `${request.method} ${request.path}`;
    arrived_ms.push({ request, at_ms: Date.now() });
    const script = scripts[key];
    if (!script) return { status: 404, body: envelope('NOT_FOUND') };
    const index = served[key] ?? 0;
    served[key] = index + 1;
    return script[Math.min(index, script.length - 1)]!;
  });
  const of = (key: string) => arrived_ms.filter((a) => `${a.request.method} ${a.request.path}` === key);
  return { server, of };
}

describe('crucible runs create --wait against a busy service', () => {
  it('reads the run again through 503, 429 (after Retry-After), a dropped connection and 504, and exits 0 once it succeeded', async () => {
    const { server, of } = await busyService({
      'POST /v1/runs': [busy(503, 1), dropped, { ...run('queued', 0), status: 201 }],
      'GET /v1/runs/run_busy': [run('running', 1), busy(503, 1), busy(429, 1), dropped, busy(504), run('running', 3), run('succeeded', 4)],
    });
    try {
      const ran = await crucible(server.url, ['runs', 'create', '--world-revision', 'wrev_1', '--budget', '100', '--idempotency-key', 'run-key-1', '--wait']);
      expect(ran.code, ran.stdout + ran.stderr).toBe(0);
      expect(ran.body).toMatchObject({ run_id: 'run_busy', status: 'succeeded', replications_completed: 4 });

      // The keyed create was sent three times with the same key and body (a replay returns the original run).
      const posts = of('POST /v1/runs');
      expect(posts).toHaveLength(3);
      expect(new Set(posts.map((p) => p.request.headers['idempotency-key']))).toEqual(new Set(['run-key-1']));
      expect(new Set(posts.map((p) => p.request.body_text)).size).toBe(1);
      expect(posts[1]!.at_ms - posts[0]!.at_ms, 'Retry-After: 1 on the create').toBeGreaterThanOrEqual(950);

      const reads = of('GET /v1/runs/run_busy');
      expect(reads).toHaveLength(7);
      // After the 503 and the 429, each with Retry-After: 1, the next read came at least a second later.
      expect(reads[2]!.at_ms - reads[1]!.at_ms).toBeGreaterThanOrEqual(950);
      expect(reads[3]!.at_ms - reads[2]!.at_ms).toBeGreaterThanOrEqual(950);
    } finally {
      await server.close();
    }
  });

  it('never repeats a create without an Idempotency-Key: a 503 on it exits 5 after one request', async () => {
    const { server, of } = await busyService({ 'POST /v1/runs': [busy(503, 1), { ...run('queued', 0), status: 201 }] });
    try {
      const ran = await crucible(server.url, ['runs', 'create', '--world-revision', 'wrev_1', '--budget', '100', '--wait']);
      expect(ran.code).toBe(5);
      expect(ran.body.error).toMatchObject({ status: 503, code: 'TEMPORARILY_UNAVAILABLE' });
      expect(of('POST /v1/runs')).toHaveLength(1);
    } finally {
      await server.close();
    }
  });

  it('exits 5 with the last answer once the --timeout deadline passes while the service stays busy, having kept trying', async () => {
    const { server, of } = await busyService({
      'POST /v1/runs': [{ ...run('queued', 0), status: 201 }],
      'GET /v1/runs/run_busy': [run('running', 0), busy(503, 1)],
    });
    try {
      const started_ms = Date.now();
      const ran = await crucible(server.url, ['runs', 'create', '--world-revision', 'wrev_1', '--budget', '100', '--wait', '--timeout', '4']);
      expect(ran.code).toBe(5);
      expect(ran.body.error).toMatchObject({ status: 503, code: 'TEMPORARILY_UNAVAILABLE' });
      expect(of('GET /v1/runs/run_busy').length).toBeGreaterThanOrEqual(3);
      // It gave up at the deadline (4 s), not at the first failure and not long after.
      expect(Date.now() - started_ms).toBeGreaterThanOrEqual(3000);
      expect(Date.now() - started_ms).toBeLessThan(15_000);
    } finally {
      await server.close();
    }
  });

  it('ends a wait at once on an answer that is not temporary (404), exiting 1', async () => {
    const { server, of } = await busyService({ 'GET /v1/reviews/rev_gone': [{ status: 404, body: envelope('NOT_FOUND') }] });
    try {
      const ran = await crucible(server.url, ['review', 'show', 'rev_gone', '--wait']);
      expect(ran.code).toBe(1);
      expect(ran.body.error).toMatchObject({ status: 404, code: 'NOT_FOUND' });
      expect(of('GET /v1/reviews/rev_gone')).toHaveLength(1);
    } finally {
      await server.close();
    }
  });
});

describe('crucible against a service that accepts a request and never answers it', () => {
  it('gives up on a poll after the request timeout (no answer, then a body that stops halfway), reads again, and exits 0 once it succeeded', async () => {
    const { server, of } = await busyService({
      'POST /v1/runs': [{ ...run('queued', 0), status: 201 }],
      'GET /v1/runs/run_busy': [run('running', 1), hung, { ...run('running', 2), partial: true }, run('succeeded', 4)],
    });
    try {
      const ran = await crucible(server.url, ['runs', 'create', '--world-revision', 'wrev_1', '--budget', '100', '--wait'], {
        CRUCIBLE_CLI_REQUEST_TIMEOUT: '1',
      });
      expect(ran.code, ran.stdout + ran.stderr).toBe(0);
      expect(ran.body).toMatchObject({ run_id: 'run_busy', status: 'succeeded', replications_completed: 4 });
      const reads = of('GET /v1/runs/run_busy');
      expect(reads).toHaveLength(4);
      // The hung read and the stalled one were each given up after the 1 s timeout, then read again.
      expect(reads[2]!.at_ms - reads[1]!.at_ms).toBeGreaterThanOrEqual(950);
      expect(reads[3]!.at_ms - reads[2]!.at_ms).toBeGreaterThanOrEqual(950);
      expect(of('POST /v1/runs')).toHaveLength(1);
    } finally {
      await server.close();
    }
  });

  it('never repeats a create without an Idempotency-Key that got no answer: exit 5, saying what to check, which lists the run', async () => {
    const { server, of } = await busyService({
      'POST /v1/runs': [hung, { ...run('queued', 0), status: 201 }],
      'GET /v1/projects/proj_1/runs': [{ status: 200, body: { data: [run('queued', 0).body], next_offset: null } }],
    });
    try {
      const ran = await crucible(server.url, ['--request-timeout', '1', 'runs', 'create', '--world-revision', 'wrev_1', '--budget', '100', '--wait']);
      expect(ran.code).toBe(5);
      expect(ran.body.error).toMatchObject({ status: null, code: 'RequestTimeoutError' });
      expect(ran.body.error.message).toBe(
        'The service did not answer POST /v1/runs within 1 s; the run may have been created. ' +
          "List the project's runs with `crucible runs list --project <project_id>` before trying again (a create sent with --idempotency-key is repeated safely).",
      );
      expect(of('POST /v1/runs')).toHaveLength(1);

      // The check it names: the project's runs, with the one the unanswered create made.
      const listed = await crucible(server.url, ['runs', 'list', '--project', 'proj_1']);
      expect(listed.code).toBe(0);
      expect(listed.body.data.map((r: any) => r.run_id)).toEqual(['run_busy']);
    } finally {
      await server.close();
    }
  });

  it('sends a keyed create again after no answer, with the same key, and goes on', async () => {
    const { server, of } = await busyService({ 'POST /v1/runs': [hung, { ...run('succeeded', 4), status: 201 }] });
    try {
      const create = ['runs', 'create', '--world-revision', 'wrev_1', '--budget', '100', '--idempotency-key', 'run-key-2'];
      const ran = await crucible(server.url, ['--request-timeout', '1', ...create]);
      expect(ran.code, ran.stdout + ran.stderr).toBe(0);
      expect(ran.body).toMatchObject({ run_id: 'run_busy', status: 'succeeded' });
      const posts = of('POST /v1/runs');
      expect(posts).toHaveLength(2);
      expect(posts.map((p) => p.request.headers['idempotency-key'])).toEqual(['run-key-2', 'run-key-2']);
    } finally {
      await server.close();
    }
  });

  it('refuses a request timeout that is not a whole number of seconds (exit 2) before sending anything', async () => {
    const { server } = await busyService({});
    try {
      const ran = await crucible(server.url, ['runs', 'show', 'run_busy'], { CRUCIBLE_CLI_REQUEST_TIMEOUT: '0.5' });
      expect(ran.code).toBe(2);
      expect(ran.body.error.message).toBe('CRUCIBLE_CLI_REQUEST_TIMEOUT must be a whole number of seconds, 1 or more; got 0.5');
      expect(server.requests).toHaveLength(0);
    } finally {
      await server.close();
    }
  });
});

describe('the request timeout of one request', () => {
  it("is the setting, the long poll's wait plus the margin, or three times the setting for a file", () => {
    expect(resolveRequestTimeout(undefined, {})).toBe(60);
    expect(resolveRequestTimeout(undefined, { CRUCIBLE_CLI_REQUEST_TIMEOUT: '5' })).toBe(5);
    expect(resolveRequestTimeout('7', { CRUCIBLE_CLI_REQUEST_TIMEOUT: '5' })).toBe(7);
    expect(requestTimeoutSeconds({ query: { wait: 30 } }, 60)).toBe(30 + LONG_POLL_MARGIN_SECONDS);
    expect(requestTimeoutSeconds({ body: new FormData() }, 60)).toBe(180);
    expect(requestTimeoutSeconds({ parseAs: 'text' }, 60)).toBe(180);
    expect(requestTimeoutSeconds({ body: { title: 'x' } }, 60)).toBe(60);
  });

  it('lets a long poll take its wait: with a 1 s timeout a ?wait=2 read answered after 1.5 s succeeds, a plain read does not', async () => {
    const server = await startFakeServer(async (request) => {
      await delay(1500);
      return { ...run('running', request.query.has('wait') ? 2 : 1) };
    });
    try {
      const client = withRequestTimeouts(createCrucibleClient({ baseUrl: server.url }), 1);
      const GET = client.GET as unknown as (path: string, options: object) => Promise<{ ok: boolean; data: any }>;
      const polled = await GET('/v1/runs/{run_id}', { path: { run_id: 'run_busy' }, query: { wait: 2 } });
      expect(polled).toMatchObject({ ok: true, data: { replications_completed: 2 } });
      const plain = GET('/v1/runs/{run_id}', { path: { run_id: 'run_busy' } });
      await expect(plain).rejects.toBeInstanceOf(RequestTimeoutError);
      await expect(plain).rejects.toThrow('The service did not answer GET /v1/runs/{run_id} within 1 s.');
    } finally {
      await server.close();
    }
  });
});
