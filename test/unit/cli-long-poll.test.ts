// crucible --wait long-polls (api/poll.ts): the first read is plain, each next one sends If-None-Match with the last
// ETag and `?wait=N`, which a service holds until the resource changes (200) or the wait ends (304). The CLI runs as its
// own process against a real HTTP server on a local port that keeps a job's versions on a timeline and answers polls
// the way the service does; a server without ETags is still read once a second.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POLL_WAIT_SECONDS_MAX } from '../../api/poll.ts';
import { LONG_POLL_WAIT_SECONDS_MAX, longPollSeconds } from '../../clients/cli/src/commands/context.ts';
import { type FakeReply, startFakeServer } from '../fakes/http.ts';

const CLI = join(import.meta.dirname, '..', '..', 'clients', 'cli', 'src', 'main.ts');
const ENDED = ['succeeded', 'failed', 'canceled', 'timed_out'];

let home: string;
beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'crucible-cli-long-poll-'));
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

type Ran = { code: number; stdout: string; stderr: string; body: any };

function crucible(url: string, args: string[]): Promise<Ran> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [CLI, '--json', ...args],
      { env: { ...process.env, CRUCIBLE_URL: url, CRUCIBLE_TOKEN: 'cru.tok_test.secret', XDG_CONFIG_HOME: home }, timeout: 50_000 },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== 'number') return reject(error);
        const last = stdout.trim().split('\n').at(-1);
        resolve({ code: error ? (error.code as number) : 0, stdout, stderr, body: last ? JSON.parse(last) : null });
      },
    );
  });
}

type Body = Record<string, unknown> & { status: string };
/** What the job looks like from `after_ms` (since the service's first request) on. */
type Version = { after_ms: number; body: Body };
/** One read as the fake saw and answered it. */
type Read = { at_ms: number; if_none_match: string | null; wait: string | null; status: number; etag: string | null; body_status: string | null };

const etagOf = (body: Body) => `"${createHash('sha256').update(JSON.stringify(body)).digest('base64url').slice(0, 27)}"`;

/**
 * A service with one pollable resource at `path` whose versions follow `timeline`. Like api/poll.ts: every 200 has an
 * ETag (unless `etags: false`); `wait` holds the request until the version differs from If-None-Match (or, without it,
 * from the version at arrival), at most `hold_max_ms`; then 304 when If-None-Match is still current, else 200. The reads
 * numbered in `busy_reads` (from 0) are answered 503 with Retry-After: 1 at once.
 */
async function pollableService(
  path: string,
  timeline: Version[],
  options: { etags?: boolean; hold_max_ms?: number; create?: string; busy_reads?: number[] } = {},
) {
  const etags = options.etags ?? true;
  let started_ms: number | null = null;
  const now = () => Date.now() - (started_ms ?? Date.now());
  const current = () => timeline.filter((v) => v.after_ms <= now()).at(-1)!.body;
  const reads: Read[] = [];
  const server = await startFakeServer(async (request): Promise<FakeReply> => {
    started_ms ??= Date.now();
    if (options.create && `${request.method} ${request.path}` === options.create) return { status: 201, body: timeline[0]!.body };
    if (request.method !== 'GET' || request.path !== path)
      return { status: 404, body: { code: 'NOT_FOUND', message: 'no', details: {}, request_id: 'req_fake' } };
    const at_ms = now();
    const if_none_match = request.headers['if-none-match'] ?? null;
    const wait = request.query.get('wait');
    if (options.busy_reads?.includes(reads.length)) {
      reads.push({ at_ms, if_none_match, wait, status: 503, etag: null, body_status: null });
      return { status: 503, headers: { 'retry-after': '1' }, body: { code: 'TEMPORARILY_UNAVAILABLE', message: 'busy', details: {}, request_id: 'req_fake' } };
    }
    if (etags && wait !== null && Number(wait) > 0) {
      const baseline = if_none_match ?? etagOf(current());
      const until_ms = at_ms + Math.min(Number(wait) * 1000, options.hold_max_ms ?? Number.POSITIVE_INFINITY);
      while (etagOf(current()) === baseline && now() < until_ms) await delay(10);
    }
    const body = current();
    const etag = etags ? etagOf(body) : null;
    const unchanged = etag !== null && if_none_match === etag;
    reads.push({ at_ms, if_none_match, wait, status: unchanged ? 304 : 200, etag, body_status: unchanged ? null : body.status });
    if (unchanged) return { status: 304, headers: { etag } };
    return { status: 200, headers: etag ? { etag, 'cache-control': 'private, no-cache' } : {}, body };
  });
  return { server, reads };
}

const run = (status: string, replications_completed: number): Body => ({
  run_id: 'run_lp',
  status,
  replications_completed,
  replications_requested: 4,
  credits_used: 0,
  budget_limit_credits: 100,
});
const create_run = ['runs', 'create', '--world-revision', 'wrev_1', '--budget', '100', '--wait'];

/** Each read after the first carries the ETag of the last 200 before it and a `wait`; none follows an ended answer. */
function expectLongPolls(reads: Read[]): void {
  expect(reads[0]).toMatchObject({ if_none_match: null, wait: null, status: 200 });
  let etag = reads[0]!.etag;
  for (const read of reads.slice(1)) {
    expect(read.if_none_match).toBe(etag);
    expect(Number(read.wait)).toBeGreaterThanOrEqual(1);
    if (read.status === 200) etag = read.etag;
  }
  const ended_at = reads.findIndex((read) => read.body_status !== null && ENDED.includes(read.body_status));
  expect(ended_at, 'the wait ended on an ended answer').toBe(reads.length - 1);
}

describe('crucible --wait long-polls a service that sends ETags', () => {
  it('reads plainly once, then holds one long poll with If-None-Match until the run ends: 2 requests for a 3 s run', async () => {
    const { server, reads } = await pollableService(
      '/v1/runs/run_lp',
      [
        { after_ms: 0, body: run('queued', 0) },
        { after_ms: 3000, body: run('succeeded', 4) },
      ],
      { create: 'POST /v1/runs' },
    );
    try {
      const ran = await crucible(server.url, create_run);
      expect(ran.code, ran.stdout + ran.stderr).toBe(0);
      expect(ran.body).toMatchObject({ run_id: 'run_lp', status: 'succeeded', replications_completed: 4 });
      // A plain read (queued), then one long poll held until the run succeeded: not a read a second.
      expect(reads.map((r) => r.status)).toEqual([200, 200]);
      expectLongPolls(reads);
      // No --timeout: the service's longest wait.
      expect(reads[1]!.wait).toBe(String(LONG_POLL_WAIT_SECONDS_MAX));
      expect(reads[1]!.at_ms).toBeLessThan(1500);
    } finally {
      await server.close();
    }
  });

  it('keeps waiting through 304s (a service that holds each poll 1 s), follows progress, and stops at the ended answer', async () => {
    const { server, reads } = await pollableService(
      '/v1/reviews/rev_lp',
      [
        { after_ms: 0, body: { id: 'rev_lp', status: 'running', step: 1 } },
        { after_ms: 1500, body: { id: 'rev_lp', status: 'running', step: 2 } },
        { after_ms: 3500, body: { id: 'rev_lp', status: 'succeeded', step: 3 } },
      ],
      { hold_max_ms: 1000 },
    );
    try {
      const ran = await crucible(server.url, ['review', 'show', 'rev_lp', '--wait']);
      expect(ran.code, ran.stdout + ran.stderr).toBe(0);
      expect(ran.body).toMatchObject({ id: 'rev_lp', status: 'succeeded', step: 3 });
      expectLongPolls(reads);
      const statuses = reads.map((r) => `${r.status} ${r.body_status}`).join(', ');
      expect(reads.filter((r) => r.status === 304).length, statuses).toBeGreaterThanOrEqual(1);
      // Step 2 came as a 200 before the end; the poll after it carried its ETag (expectLongPolls).
      expect(
        reads.some((r) => r.status === 200 && r.body_status === 'running' && r.if_none_match !== null),
        statuses,
      ).toBe(true);
      // No more than a request a second over the 3.5 s, though the service answered each poll within a second.
      expect(reads.length, statuses).toBeLessThanOrEqual(6);
    } finally {
      await server.close();
    }
  });

  it('reads a long poll answered 503 again after Retry-After, with the same If-None-Match', async () => {
    const { server, reads } = await pollableService(
      '/v1/reviews/rev_lp',
      [
        { after_ms: 0, body: { id: 'rev_lp', status: 'running' } },
        { after_ms: 2500, body: { id: 'rev_lp', status: 'succeeded' } },
      ],
      { busy_reads: [1] },
    );
    try {
      const ran = await crucible(server.url, ['review', 'show', 'rev_lp', '--wait']);
      expect(ran.code, ran.stdout + ran.stderr).toBe(0);
      expect(ran.body).toMatchObject({ status: 'succeeded' });
      expect(reads.map((r) => r.status)).toEqual([200, 503, 200]);
      expect(reads[1]).toMatchObject({ if_none_match: reads[0]!.etag, wait: String(LONG_POLL_WAIT_SECONDS_MAX) });
      expect(reads[2]).toMatchObject({ if_none_match: reads[0]!.etag, wait: String(LONG_POLL_WAIT_SECONDS_MAX), body_status: 'succeeded' });
      expect(reads[2]!.at_ms - reads[1]!.at_ms, 'Retry-After: 1').toBeGreaterThanOrEqual(950);
    } finally {
      await server.close();
    }
  });

  it('sends no poll at all after a first answer that has ended (an intake draft that failed)', async () => {
    const { server, reads } = await pollableService('/v1/intake-drafts/idr_lp', [{ after_ms: 0, body: { id: 'idr_lp', status: 'failed' } }], {
      create: 'POST /v1/projects/proj_1/intakes/parse',
    });
    try {
      const ran = await crucible(server.url, ['intake', 'draft', '--project', 'proj_1', '--source', 'src_1', '--wait']);
      expect(ran.code, ran.stdout + ran.stderr).toBe(1);
      expect(ran.body).toMatchObject({ id: 'idr_lp', status: 'failed' });
      expect(reads).toHaveLength(1);
      expect(reads[0]).toMatchObject({ if_none_match: null, wait: null, status: 200 });
    } finally {
      await server.close();
    }
  });

  it('long-polls an authoring session until its first checkpoint (exit 4: it waits for answers)', async () => {
    const session = (status: string, checkpoint_count: number) => ({ id: 'sess_lp', status, checkpoint_count, accepts: [], checkpoint: null });
    const { server, reads } = await pollableService(
      '/v1/authoring-sessions/sess_lp',
      [
        { after_ms: 0, body: session('drafting', 0) },
        { after_ms: 2000, body: session('waiting', 1) },
      ],
      { create: 'POST /v1/projects/proj_1/authoring-sessions' },
    );
    try {
      const ran = await crucible(server.url, ['sessions', 'start', '--project', 'proj_1', '--wait']);
      expect(ran.code, ran.stdout + ran.stderr).toBe(4);
      expect(ran.body).toMatchObject({ id: 'sess_lp', status: 'waiting' });
      expect(reads.map((r) => r.status)).toEqual([200, 200]);
      expect(reads[1]).toMatchObject({ if_none_match: reads[0]!.etag, wait: String(LONG_POLL_WAIT_SECONDS_MAX), body_status: 'waiting' });
    } finally {
      await server.close();
    }
  });

  it('asks for no more than the time left before --timeout, and stops at the deadline', async () => {
    const { server, reads } = await pollableService('/v1/reviews/rev_lp', [{ after_ms: 0, body: { id: 'rev_lp', status: 'running' } }]);
    try {
      const started_ms = Date.now();
      const ran = await crucible(server.url, ['review', 'show', 'rev_lp', '--wait', '--timeout', '3']);
      expect(ran.code).toBe(5); // temporary: the review goes on, read it again later (help exit-codes)
      expect(ran.body.error.message).toContain('did not end within 3 s (--timeout)');
      expect(Date.now() - started_ms).toBeLessThan(10_000);
      expectLongPollsUntilDeadline(reads, 3);
    } finally {
      await server.close();
    }
  });

  it('waits out the rest of a second when the service answers a long poll at once (its waiters are full): no busy loop', async () => {
    const { server, reads } = await pollableService(
      '/v1/reviews/rev_lp',
      [
        { after_ms: 0, body: { id: 'rev_lp', status: 'running' } },
        { after_ms: 3000, body: { id: 'rev_lp', status: 'succeeded' } },
      ],
      { hold_max_ms: 0 },
    );
    try {
      const ran = await crucible(server.url, ['review', 'show', 'rev_lp', '--wait']);
      expect(ran.code, ran.stdout + ran.stderr).toBe(0);
      expectLongPolls(reads);
      expect(reads.length).toBeGreaterThanOrEqual(3);
      expect(reads.length).toBeLessThanOrEqual(6);
      for (let i = 2; i < reads.length; i++) expect(reads[i]!.at_ms - reads[i - 1]!.at_ms).toBeGreaterThanOrEqual(900);
    } finally {
      await server.close();
    }
  });
});

function expectLongPollsUntilDeadline(reads: Read[], timeout_seconds: number): void {
  expect(reads[0]).toMatchObject({ if_none_match: null, wait: null });
  for (const read of reads.slice(1)) {
    expect(read.if_none_match).toBe(reads[0]!.etag);
    expect(read.status).toBe(304);
    expect(Number(read.wait)).toBeGreaterThanOrEqual(1);
    expect(Number(read.wait)).toBeLessThanOrEqual(timeout_seconds);
  }
  // Held, not repeated: a few polls cover the 3 s.
  expect(reads.length).toBeLessThanOrEqual(4);
}

describe('crucible --wait against a service without ETags', () => {
  it('reads plainly once a second (no wait, no If-None-Match) until the run ends', async () => {
    const { server, reads } = await pollableService(
      '/v1/runs/run_lp',
      [
        { after_ms: 0, body: run('running', 1) },
        { after_ms: 2500, body: run('succeeded', 4) },
      ],
      { etags: false, create: 'POST /v1/runs' },
    );
    try {
      const ran = await crucible(server.url, create_run);
      expect(ran.code, ran.stdout + ran.stderr).toBe(0);
      expect(ran.body).toMatchObject({ status: 'succeeded' });
      expect(reads.length).toBeGreaterThanOrEqual(3);
      for (const read of reads) expect(read).toMatchObject({ if_none_match: null, wait: null, status: 200 });
      for (let i = 1; i < reads.length; i++) expect(reads[i]!.at_ms - reads[i - 1]!.at_ms).toBeGreaterThanOrEqual(950);
      expect(reads.at(-1)!.body_status).toBe('succeeded');
    } finally {
      await server.close();
    }
  });
});

describe("a long poll's wait", () => {
  it("is the service's longest, or the whole seconds left before the deadline, at least 1", () => {
    expect(LONG_POLL_WAIT_SECONDS_MAX).toBe(POLL_WAIT_SECONDS_MAX);
    expect(longPollSeconds(1_000_000 + 1800_000, 1_000_000)).toBe(POLL_WAIT_SECONDS_MAX);
    expect(longPollSeconds(1_000_000 + 12_900, 1_000_000)).toBe(12);
    expect(longPollSeconds(1_000_000 + 400, 1_000_000)).toBe(1);
    expect(longPollSeconds(1_000_000 - 400, 1_000_000)).toBe(1);
  });
});
