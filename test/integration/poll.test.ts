// The polling read path: ETag and 304, the bounded long-poll `?wait=N`, and the credential cache's revocation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Checkpoint } from '../../domain/authoring/checkpoint.ts';
import { newId } from '../../domain/ids.ts';
import { rendered } from '../../api/poll.ts';
import { createSession, writeCheckpoint } from '../../store/authoring/sessions.ts';
import { apiToken, http, signedInOwner, startTestService, type TestService, type TestUser } from '../support/harness.ts';

let service: TestService;
let owner: TestUser;
let token: string;

beforeAll(async () => {
  // API only: the rows below are moved by the test, as a workflow's activity would move them.
  service = await startTestService({ mode: 'api' });
  owner = await signedInOwner(service, 'poll');
  token = await apiToken(service, owner, ['read', 'write', 'run']);
});
afterAll(async () => {
  await service?.stop();
});

/** A queued run of a new project (inserted as the create endpoint would, without starting its workflow). */
async function queuedRun(): Promise<string> {
  const project = await http(service, 'POST', '/v1/projects', { token, body: { title: 'Polled', org_id: owner.org_id } });
  const revision = newId('wrev');
  await service.db.query(`insert into world_revisions (id, project_id, org_id, revision, name, spec, created_by) values (?, ?, ?, 1, 'w', '{}'::jsonb, ?)`, [
    revision,
    project.body.id,
    owner.org_id,
    owner.user_id,
  ]);
  const run = newId('run');
  await service.db.query(
    `insert into runs (id, org_id, project_id, world_revision_id, status, budget_limit_credits, credits_estimate, events_estimate,
       credits_reserved, replications_requested, wall_clock_limit_seconds, created_by)
     values (?, ?, ?, ?, 'queued', 1000, 10, 1000, 100, 10, 60, ?)`,
    [run, owner.org_id, project.body.id, revision, owner.user_id],
  );
  return run;
}

describe('pollable resources', () => {
  it('answers 304 to an If-None-Match that matches the ETag, and 200 with the body once it no longer does', async () => {
    const run = await queuedRun();
    const first = await http(service, 'GET', `/v1/runs/${run}`, { token });
    expect(first.status).toBe(200);
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    const again = await http(service, 'GET', `/v1/runs/${run}`, { token, headers: { 'if-none-match': etag! } });
    expect(again.status).toBe(304);
    expect(again.headers.get('etag')).toBe(etag);
    await service.db.query(`update runs set status = 'running', started_at = now() where id = ?`, [run]);
    const changed = await http(service, 'GET', `/v1/runs/${run}`, { token, headers: { 'if-none-match': etag! } });
    expect(changed.status).toBe(200);
    expect(changed.body.status).toBe('running');
    expect(changed.headers.get('etag')).not.toBe(etag);
  });

  it('holds a wait request until the run changes, then answers with the new state', async () => {
    const run = await queuedRun();
    const { headers } = await http(service, 'GET', `/v1/runs/${run}`, { token });
    const started = Date.now();
    const waiting = http(service, 'GET', `/v1/runs/${run}?wait=20`, { token, headers: { 'if-none-match': headers.get('etag')! } });
    let answered = false;
    void waiting.then(() => {
      answered = true;
    });
    // Unrelated changes (another run) do not end the wait.
    const other = await queuedRun();
    await service.db.query(`update runs set status = 'running', started_at = now() where id = ?`, [other]);
    const probe = await http(service, 'GET', `/v1/runs/${other}`, { token });
    expect(probe.body.status).toBe('running');
    expect(answered).toBe(false);
    await service.db.query(`update runs set status = 'running', started_at = now() where id = ?`, [run]);
    const answer = await waiting;
    expect(answer.status).toBe(200);
    expect(answer.body.status).toBe('running');
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('does not answer a wait early when nothing changes: 304 at the end of the wait', async () => {
    const run = await queuedRun();
    const { headers } = await http(service, 'GET', `/v1/runs/${run}`, { token });
    const started = Date.now();
    const answer = await http(service, 'GET', `/v1/runs/${run}?wait=2`, { token, headers: { 'if-none-match': headers.get('etag')! } });
    expect(answer.status).toBe(304);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_950);
  });

  it('renders an authoring session once per version: kept while unchanged, new with a new checkpoint, access checked every time', async () => {
    const project = await http(service, 'POST', '/v1/projects', { token, body: { title: 'Authored', org_id: owner.org_id } });
    const session = await service.db.transaction((tx) =>
      createSession(tx, {
        org_id: owner.org_id,
        project_id: project.body.id,
        intake_revision_id: null,
        byok_provider: null,
        ai_limits: { credits_max: 10 } as never,
        starting_world: null,
        wait_seconds_max: 30,
        created_by: owner.user_id,
      }),
    );
    const path = `/v1/authoring-sessions/${session.id}`;
    const first = await fetch(`${service.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
    const text = await first.text();
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toMatch(/^application\/json/);
    // the ETag is the hash of the very text sent
    expect(first.headers.get('etag')).toBe(rendered(JSON.parse(text)).etag);
    expect(JSON.parse(text)).toMatchObject({ id: session.id, status: 'drafting', checkpoint: null, accepts: [] });

    const hits = service.db.row_cache!.stats.hits;
    const again = await http(service, 'GET', path, { token });
    expect(again.body).toEqual(JSON.parse(text));
    expect(again.headers.get('etag')).toBe(first.headers.get('etag'));
    expect(service.db.row_cache!.stats.hits).toBeGreaterThan(hits);
    expect((await http(service, 'GET', path, { token, headers: { 'if-none-match': first.headers.get('etag')! } })).status).toBe(304);
    // a kept answer is still another organization's 404
    const stranger = await signedInOwner(service, 'poll-stranger');
    expect((await http(service, 'GET', path, { token: stranger.session })).status).toBe(404);

    const checkpoint = {
      number: 1,
      questions: [{ id: 'q1', slot: 'servers' }],
      validation: { valid: true, problems: [] },
      ai: { cap_reached: false },
    } as unknown as Checkpoint;
    await service.db.transaction((tx) => writeCheckpoint(tx, { session_id: session.id, checkpoint, status: 'waiting' }));
    const changed = await http(service, 'GET', path, { token, headers: { 'if-none-match': first.headers.get('etag')! } });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ status: 'waiting', checkpoint_count: 1, checkpoint, accepts: ['answers', 'revise', 'approve'] });
    expect(changed.headers.get('etag')).toBe(rendered(changed.body).etag);
    expect(changed.headers.get('etag')).not.toBe(first.headers.get('etag'));
  });

  it('renders a review once per version: kept while unchanged, new with a new AI call or a status change, access checked every time', async () => {
    const project = await http(service, 'POST', '/v1/projects', { token, body: { title: 'Reviewed', org_id: owner.org_id } });
    const plan = newId('plan');
    const review = newId('rev');
    await service.db.query(`insert into evaluation_plans (id, project_id, org_id, intake_revision, plan, created_by) values (?, ?, ?, 1, '{}'::jsonb, ?)`, [
      plan,
      project.body.id,
      owner.org_id,
      owner.user_id,
    ]);
    await service.db.query(
      `insert into reviews (id, project_id, org_id, plan_id, status, credits_reserved, created_by) values (?, ?, ?, ?, 'searching', 50, ?)`,
      [review, project.body.id, owner.org_id, plan, owner.user_id],
    );
    const path = `/v1/reviews/${review}`;
    const first = await fetch(`${service.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
    const text = await first.text();
    expect(first.status).toBe(200);
    expect(first.headers.get('etag')).toBe(rendered(JSON.parse(text)).etag);
    expect(JSON.parse(text)).toMatchObject({ id: review, status: 'searching', usage: { calls: 0, input_tokens: 0, output_tokens: 0 }, review: null });

    const hits = service.db.row_cache!.stats.hits;
    const again = await http(service, 'GET', path, { token });
    expect(again.body).toEqual(JSON.parse(text));
    expect(again.headers.get('etag')).toBe(first.headers.get('etag'));
    expect(service.db.row_cache!.stats.hits).toBeGreaterThan(hits);
    const stranger = await signedInOwner(service, 'poll-review-stranger');
    expect((await http(service, 'GET', path, { token: stranger.session })).status).toBe(404);

    // an AI call of the review (a row of another table, announced under the review's id) gives a new answer
    await service.db.query(
      `insert into ai_usage (id, org_id, provider, model, byok, input_tokens, output_tokens, duration_ms, project_id, subject_kind, subject_id, task,
         credits_charged, workflow_id, run_id, activity_id)
       values (?, ?, 'offline', 'offline-heuristic', false, 120, 30, 5, ?, 'review', ?, 'draft', 2, 'wf', 'run', 'a1')`,
      [newId('use'), owner.org_id, project.body.id, review],
    );
    const used = await http(service, 'GET', path, { token, headers: { 'if-none-match': first.headers.get('etag')! } });
    expect(used.status).toBe(200);
    expect(used.body.usage).toEqual({ calls: 1, input_tokens: 120, output_tokens: 30 });
    expect(used.headers.get('etag')).toBe(rendered(used.body).etag);

    await service.db.query(`update reviews set status = 'drafting' where id = ?`, [review]);
    const moved = await http(service, 'GET', path, { token, headers: { 'if-none-match': used.headers.get('etag')! } });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ status: 'drafting', usage: { calls: 1 } });
    expect(moved.headers.get('etag')).not.toBe(used.headers.get('etag'));
  });

  it('renders a run once per version: kept while unchanged, new with a new replication or a status change, access checked every time', async () => {
    const run = await queuedRun();
    const path = `/v1/runs/${run}`;
    const first = await fetch(`${service.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
    const text = await first.text();
    expect(first.status).toBe(200);
    // the ETag is still the hash of the exact bytes sent
    expect(first.headers.get('etag')).toBe(rendered(JSON.parse(text)).etag);
    expect(text).toBe(JSON.stringify(JSON.parse(text)));
    expect(JSON.parse(text)).toMatchObject({ run_id: run, status: 'queued', replications_completed: 0, events_simulated: 0 });

    const hits = service.db.row_cache!.stats.hits;
    const again = await fetch(`${service.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
    expect(await again.text()).toBe(text);
    expect(again.headers.get('etag')).toBe(first.headers.get('etag'));
    expect(service.db.row_cache!.stats.hits).toBeGreaterThan(hits);
    // the kept answer is the same for every caller, but access is checked on each read
    const stranger = await signedInOwner(service, 'poll-run-stranger');
    expect((await http(service, 'GET', path, { token: stranger.session })).status).toBe(404);
    const writeOnly = await apiToken(service, owner, ['write']);
    expect((await http(service, 'GET', path, { token: writeOnly })).status).toBe(403);

    // a replication (a row of another table, announced under the run's id) gives a new answer
    await service.db.query(
      `insert into run_replications (run_id, variant_id, replication_index, events_total, result) values (?, 'baseline', 0, 77, '{}'::jsonb)`,
      [run],
    );
    const progressed = await http(service, 'GET', path, { token, headers: { 'if-none-match': first.headers.get('etag')! } });
    expect(progressed.status).toBe(200);
    expect(progressed.body).toMatchObject({ replications_completed: 1, events_simulated: 77 });
    expect(progressed.headers.get('etag')).toBe(rendered(progressed.body).etag);

    await service.db.query(`update runs set status = 'running', started_at = now() where id = ?`, [run]);
    const moved = await http(service, 'GET', path, { token, headers: { 'if-none-match': progressed.headers.get('etag')! } });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ status: 'running', replications_completed: 1 });
    expect(moved.headers.get('etag')).not.toBe(progressed.headers.get('etag'));
  });

  it('refuses a wait over the limit with 422', async () => {
    const run = await queuedRun();
    const answer = await http(service, 'GET', `/v1/runs/${run}?wait=31`, { token });
    expect(answer.status).toBe(422);
    expect(answer.body.details[0].path).toBe('/query/wait');
  });
});

describe('the credential cache', () => {
  it('refuses a revoked API token at once in the process that revoked it', async () => {
    const secret = await apiToken(service, owner, ['read']);
    const project = await http(service, 'POST', '/v1/projects', { token, body: { title: 'Cached', org_id: owner.org_id } });
    expect((await http(service, 'GET', `/v1/projects/${project.body.id}`, { token: secret })).status).toBe(200);
    const token_id = secret.split('.')[1]!;
    expect((await http(service, 'DELETE', `/v1/me/api-tokens/${token_id}`, { token: owner.session })).status).toBe(200);
    const refused = await http(service, 'GET', `/v1/projects/${project.body.id}`, { token: secret });
    expect(refused.status).toBe(401);
    expect(refused.body.message).toContain('revoked');
  });

  it('ends a signed-out session at once in the same process', async () => {
    const other = await signedInOwner(service, 'signout');
    expect((await http(service, 'GET', '/v1/me', { token: other.session })).status).toBe(200);
    expect((await http(service, 'DELETE', '/v1/auth/sessions/current', { token: other.session })).status).toBe(204);
    expect((await http(service, 'GET', '/v1/me', { token: other.session })).status).toBe(401);
  });
});
