// Worlds over the real service: public validation with every problem, world revisions (gapless under concurrency,
// paging), invalid saves refused with their problems, tenant isolation.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiToken, http, signedInOwner, startTestService, type TestService, type TestUser } from '../support/harness.ts';
import { queueWorld } from '../support/worlds.ts';

let service: TestService;
let owner: TestUser;
let project_id: string;

beforeAll(async () => {
  service = await startTestService();
  owner = await signedInOwner(service, 'worlds');
  const project = await http(service, 'POST', '/v1/projects', { token: owner.session, body: { title: 'Worlds', org_id: owner.org_id } });
  project_id = project.body.id;
});
afterAll(async () => {
  await service?.stop();
});

/** A queue world with five distinct problems: warm-up after horizon, a missing setting, a unit mismatch, probabilities summing to 0.9, an unreachable step. */
function brokenWorld(): Record<string, any> {
  const world: any = queueWorld({ servers: 2, arrivals_per_minute: 1, mean_service_minutes: 1 });
  world.warm_up = world.horizon + 1;
  world.arrivals[0].rate = { setting: 'missing_rate' };
  world.settings.mean_service.unit = 'per_minute';
  world.steps[0].next = 'route';
  world.steps.push({
    id: 'route',
    kind: 'branch',
    by: 'probability',
    options: [
      { probability: 0.5, next: 'done' },
      { probability: 0.4, next: 'done' },
    ],
  });
  world.steps.push({ id: 'orphan', kind: 'delay', duration: { dist: 'fixed', value: 1 }, next: 'done' });
  return world;
}

describe('POST /v1/world-specs/validate', () => {
  it('needs no token and answers valid for a valid world', async () => {
    const response = await http(service, 'POST', '/v1/world-specs/validate', {
      body: queueWorld({ servers: 2, arrivals_per_minute: 1, mean_service_minutes: 1 }),
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ valid: true, problems: [], problems_not_listed: 0 });
  });

  it('returns every problem with a JSON pointer and a message', async () => {
    const response = await http(service, 'POST', '/v1/world-specs/validate', { body: brokenWorld() });
    expect(response.status).toBe(200);
    expect(response.body.valid).toBe(false);
    const byPointer = new Map(response.body.problems.map((p: any) => [p.pointer, p.message]));
    expect(byPointer.get('/horizon')).toMatch(/after the warm-up/);
    expect(byPointer.get('/arrivals/0/rate/setting')).toMatch(/missing_rate.*does not exist/);
    expect(byPointer.get('/steps/0/duration/mean/setting')).toMatch(/unit mismatch/);
    expect(byPointer.get('/steps/2/options')).toMatch(/sum to 0.9/);
    expect(byPointer.get('/steps/3')).toMatch(/unreachable/);
    expect(response.body.problems).toHaveLength(5);
  });

  it('reports schema problems of a document that is not a world at all', async () => {
    const response = await http(service, 'POST', '/v1/world-specs/validate', { body: { contract: 'WorldSpec' } });
    expect(response.status).toBe(200);
    expect(response.body.valid).toBe(false);
    expect(response.body.problems.map((p: any) => p.pointer)).toEqual(expect.arrayContaining(['/version', '/horizon', '/steps']));
  });

  it('refuses a body over 1 MiB with 413', async () => {
    const world: any = queueWorld({ servers: 1, arrivals_per_minute: 1, mean_service_minutes: 1 });
    world.description = 'x'.repeat(1024 * 1024 + 10);
    const response = await http(service, 'POST', '/v1/world-specs/validate', { body: world });
    expect(response.status).toBe(413);
    expect(response.body.code).toBe('PAYLOAD_TOO_LARGE');
  });
});

describe('world revisions', () => {
  it('saves a valid world as revision 1 of a new project and reads it back', async () => {
    const created = await http(service, 'POST', '/v1/projects', { token: owner.session, body: { title: 'First world', org_id: owner.org_id } });
    const world = queueWorld({ servers: 3, arrivals_per_minute: 2, mean_service_minutes: 1 });
    const saved = await http(service, 'POST', `/v1/projects/${created.body.id}/worlds`, { token: owner.session, body: world });
    expect(saved.status).toBe(201);
    expect(saved.body).toMatchObject({ project_id: created.body.id, org_id: owner.org_id, revision: 1, name: world.name });
    expect(saved.body.world_revision_id).toMatch(/^wrev_/);
    const read = await http(service, 'GET', `/v1/world-revisions/${saved.body.world_revision_id}`, { token: owner.session });
    expect(read.status).toBe(200);
    expect(read.body.world).toEqual(world);
  });

  it('refuses an invalid world with 422 listing every problem and saves nothing', async () => {
    const created = await http(service, 'POST', '/v1/projects', { token: owner.session, body: { title: 'Broken world', org_id: owner.org_id } });
    const saved = await http(service, 'POST', `/v1/projects/${created.body.id}/worlds`, { token: owner.session, body: brokenWorld() });
    expect(saved.status).toBe(422);
    expect(saved.body.code).toBe('VALIDATION_FAILED');
    expect(saved.body.details.map((d: any) => d.path)).toEqual([
      '/horizon',
      '/arrivals/0/rate/setting',
      '/steps/0/duration/mean/setting',
      '/steps/2/options',
      '/steps/3',
    ]);
    const list = await http(service, 'GET', `/v1/projects/${created.body.id}/worlds`, { token: owner.session });
    expect(list.body.data).toEqual([]);
  });

  it('numbers concurrent saves 1..n with no gap or duplicate', async () => {
    const created = await http(service, 'POST', '/v1/projects', { token: owner.session, body: { title: 'Concurrent worlds', org_id: owner.org_id } });
    const saves = 12;
    const responses = await Promise.all(
      Array.from({ length: saves }, (_, index) =>
        http(service, 'POST', `/v1/projects/${created.body.id}/worlds`, {
          token: owner.session,
          body: queueWorld({ servers: 1 + (index % 3), arrivals_per_minute: 0.5, mean_service_minutes: 1, seed: index }),
        }),
      ),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(saves).fill(201));
    expect(responses.map((r) => r.body.revision).sort((a, b) => a - b)).toEqual(Array.from({ length: saves }, (_, i) => i + 1));
  });

  it('ignores an Idempotency-Key on saves: each save is a new revision (spec: no idempotency key on world saves)', async () => {
    const world = queueWorld({ servers: 1, arrivals_per_minute: 0.5, mean_service_minutes: 1 });
    const first = await http(service, 'POST', `/v1/projects/${project_id}/worlds`, {
      token: owner.session,
      body: world,
      headers: { 'idempotency-key': 'same' },
    });
    const second = await http(service, 'POST', `/v1/projects/${project_id}/worlds`, {
      token: owner.session,
      body: world,
      headers: { 'idempotency-key': 'same' },
    });
    expect(second.body.revision).toBe(first.body.revision + 1);
  });

  it('lists revisions newest first, paged, without the documents', async () => {
    const created = await http(service, 'POST', '/v1/projects', { token: owner.session, body: { title: 'Paged worlds', org_id: owner.org_id } });
    for (let index = 0; index < 3; index++) {
      await http(service, 'POST', `/v1/projects/${created.body.id}/worlds`, {
        token: owner.session,
        body: queueWorld({ servers: 1, arrivals_per_minute: 0.5, mean_service_minutes: 1, seed: index }),
      });
    }
    const first = await http(service, 'GET', `/v1/projects/${created.body.id}/worlds?limit=2`, { token: owner.session });
    expect(first.body.data.map((r: any) => r.revision)).toEqual([3, 2]);
    expect(first.body.data[0]).not.toHaveProperty('world');
    expect(first.body.next_offset).toBe(2);
    const second = await http(service, 'GET', `/v1/projects/${created.body.id}/worlds?limit=2&offset=2`, { token: owner.session });
    expect(second.body.data.map((r: any) => r.revision)).toEqual([1]);
    expect(second.body.next_offset).toBeNull();
  });

  it('saves each sample world', async () => {
    for (const name of ['gp_triage_digital_front_door', 'remote_monitoring_admissions', 'ai_imaging_reading_queue', 'community_diagnostic_pathway']) {
      const world = JSON.parse(readFileSync(new URL(`../../samples/worlds/${name}.json`, import.meta.url), 'utf8'));
      const saved = await http(service, 'POST', `/v1/projects/${project_id}/worlds`, { token: owner.session, body: world });
      expect(saved.status, name).toBe(201);
    }
  });

  it('needs the write scope to save and read scope to read', async () => {
    const readOnly = await apiToken(service, owner, ['read']);
    const world = queueWorld({ servers: 1, arrivals_per_minute: 0.5, mean_service_minutes: 1 });
    const refused = await http(service, 'POST', `/v1/projects/${project_id}/worlds`, { token: readOnly, body: world });
    expect(refused.status).toBe(403);
    const listed = await http(service, 'GET', `/v1/projects/${project_id}/worlds`, { token: readOnly });
    expect(listed.status).toBe(200);
    const anonymous = await http(service, 'GET', `/v1/projects/${project_id}/worlds`);
    expect(anonymous.status).toBe(401);
  });

  it("answers another organization's project and revision with 404", async () => {
    const saved = await http(service, 'POST', `/v1/projects/${project_id}/worlds`, {
      token: owner.session,
      body: queueWorld({ servers: 1, arrivals_per_minute: 0.5, mean_service_minutes: 1 }),
    });
    const stranger = await signedInOwner(service, 'stranger');
    const world = queueWorld({ servers: 1, arrivals_per_minute: 0.5, mean_service_minutes: 1 });
    const responses = [
      await http(service, 'GET', `/v1/world-revisions/${saved.body.world_revision_id}`, { token: stranger.session }),
      await http(service, 'GET', `/v1/projects/${project_id}/worlds`, { token: stranger.session }),
      await http(service, 'POST', `/v1/projects/${project_id}/worlds`, { token: stranger.session, body: world }),
      await http(service, 'GET', '/v1/world-revisions/wrev_doesnotexist', { token: owner.session }),
    ];
    for (const response of responses) {
      expect(response.status).toBe(404);
      expect(response.body.code).toBe('NOT_FOUND');
    }
  });
});
