// What the web app reads: an organization's members with their roles, a project's reviews newest first,
// and the deployment flags that decide whether the sponsor and billing screens appear. Both page like every list (offset, limit, next_offset), need the read scope, and answer another
// organization's object with a plain 404.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reviewCreditsEstimate } from '../../domain/reviews/limits.ts';
import { createReview } from '../../store/reviews/reviews.ts';
import { apiToken, http, signedInMember, signedInOwner, startTestService, type TestService, type TestUser } from '../support/harness.ts';
import { ideaStageIntake, withoutCitations } from '../support/reviewFixtures.ts';

let service: TestService;
let owner: TestUser;
let stranger: TestUser;

beforeAll(async () => {
  // The sponsor flag on and billing off (the default), so GET /v1/features can be checked against both answers.
  service = await startTestService({ mode: 'api', env: { SERVICE_SPONSOR_API_ENABLED: 'true' } });
  owner = await signedInOwner(service, 'listings-owner');
  stranger = await signedInOwner(service, 'listings-stranger');
}, 120_000);

afterAll(async () => {
  await service?.stop();
});

describe('GET /v1/orgs/{org_id}/members', () => {
  it('lists every member with their role, oldest first, one page at a time, to any member', async () => {
    const admin = await signedInMember(service, owner.org_id, 'admin');
    const member = await signedInMember(service, owner.org_id, 'member');

    const first = await http(service, 'GET', `/v1/orgs/${owner.org_id}/members?limit=2`, { token: member.session });
    expect(first.status).toBe(200);
    expect(first.body.data).toEqual([
      { user_id: owner.user_id, email: owner.email, role: 'owner', created_at: expect.any(String) },
      { user_id: admin.user_id, email: admin.email, role: 'admin', created_at: expect.any(String) },
    ]);
    expect(first.body.next_offset).toBe(2);

    const second = await http(service, 'GET', `/v1/orgs/${owner.org_id}/members?limit=2&offset=2`, { token: member.session });
    expect(second.status).toBe(200);
    expect(second.body.data).toEqual([{ user_id: member.user_id, email: member.email, role: 'member', created_at: expect.any(String) }]);
    expect(second.body.next_offset).toBeNull();
  });

  it("answers another organization's members with 404, the same as an organization that does not exist", async () => {
    const other = await http(service, 'GET', `/v1/orgs/${owner.org_id}/members`, { token: stranger.session });
    expect(other.status).toBe(404);
    expect(other.body.code).toBe('NOT_FOUND');
    const missing = await http(service, 'GET', '/v1/orgs/org_doesnotexist/members', { token: stranger.session });
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe(other.body.message.replace(owner.org_id, 'org_doesnotexist'));
  });

  it('needs the read scope (403) and a token of that organization (404 for another one)', async () => {
    const writeOnly = await apiToken(service, owner, ['write']);
    const refused = await http(service, 'GET', `/v1/orgs/${owner.org_id}/members`, { token: writeOnly });
    expect(refused.status).toBe(403);
    expect(refused.body.details).toEqual({ needed_scope: 'read' });

    const reader = await apiToken(service, owner, ['read']);
    const listed = await http(service, 'GET', `/v1/orgs/${owner.org_id}/members`, { token: reader });
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((m: { user_id: string }) => m.user_id)).toContain(owner.user_id);

    const strangerReader = await apiToken(service, stranger, ['read']);
    expect((await http(service, 'GET', `/v1/orgs/${owner.org_id}/members`, { token: strangerReader })).status).toBe(404);
  });

  it('refuses a malformed page with 422', async () => {
    const response = await http(service, 'GET', `/v1/orgs/${owner.org_id}/members?limit=0`, { token: owner.session });
    expect(response.status).toBe(422);
    expect(response.body.code).toBe('VALIDATION_FAILED');
  });
});

describe('GET /v1/projects/{project_id}/reviews', () => {
  let project_id: string;
  const review_ids: string[] = [];

  beforeAll(async () => {
    const project = await http(service, 'POST', '/v1/projects', { token: owner.session, body: { title: 'Listed reviews', org_id: owner.org_id } });
    expect(project.status).toBe(201);
    project_id = project.body.id;
    const confirmed = await http(service, 'POST', `/v1/projects/${project_id}/intakes`, {
      token: owner.session,
      body: { spec: withoutCitations(ideaStageIntake()) },
    });
    expect(confirmed.status).toBe(201);
    const plan = await http(service, 'POST', `/v1/projects/${project_id}/evaluation-plans`, { token: owner.session, body: {} });
    expect(plan.status).toBe(201);
    // Rows as the start endpoint commits them (queued); the listing reads rows, whatever their workflow does.
    for (let i = 0; i < 3; i += 1) {
      const row = await service.db.transaction((tx) =>
        createReview(tx, {
          project_id,
          org_id: owner.org_id,
          plan_id: plan.body.id,
          byok_provider: null,
          credits_reserved: reviewCreditsEstimate(1),
          created_by: owner.user_id,
        }),
      );
      review_ids.push(row.id);
    }
  });

  it('lists the reviews newest first, without the ConceptReview, one page at a time', async () => {
    const first = await http(service, 'GET', `/v1/projects/${project_id}/reviews?limit=2`, { token: owner.session });
    expect(first.status).toBe(200);
    const newestFirst = [...review_ids].reverse();
    expect(first.body.data.map((r: { id: string }) => r.id)).toEqual(newestFirst.slice(0, 2));
    expect(first.body.next_offset).toBe(2);
    expect(first.body.data[0]).toMatchObject({
      project_id,
      org_id: owner.org_id,
      status: 'queued',
      credits_reserved: reviewCreditsEstimate(1),
      credits_used: null,
      failure: null,
    });
    expect(first.body.data[0].status_description).toBe('Accepted; it starts in a moment.');
    expect(first.body.data[0]).not.toHaveProperty('review');

    const second = await http(service, 'GET', `/v1/projects/${project_id}/reviews?limit=2&offset=2`, { token: owner.session });
    expect(second.body.data.map((r: { id: string }) => r.id)).toEqual(newestFirst.slice(2));
    expect(second.body.next_offset).toBeNull();
  });

  it("answers another organization's project with 404, the same as a project that does not exist", async () => {
    const other = await http(service, 'GET', `/v1/projects/${project_id}/reviews`, { token: stranger.session });
    expect(other.status).toBe(404);
    expect(other.body.code).toBe('NOT_FOUND');
    const missing = await http(service, 'GET', '/v1/projects/proj_doesnotexist/reviews', { token: stranger.session });
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('NOT_FOUND');
  });

  it('needs the read scope (403)', async () => {
    const runOnly = await apiToken(service, owner, ['run']);
    const refused = await http(service, 'GET', `/v1/projects/${project_id}/reviews`, { token: runOnly });
    expect(refused.status).toBe(403);
    expect(refused.body.details).toEqual({ needed_scope: 'read' });
    const reader = await apiToken(service, owner, ['read']);
    const listed = await http(service, 'GET', `/v1/projects/${project_id}/reviews`, { token: reader });
    expect(listed.status).toBe(200);
    expect(listed.body.data).toHaveLength(3);
  });
});

describe('GET /v1/features', () => {
  it('says which flagged APIs answer, without a token, as the flagged routes behave', async () => {
    const features = await http(service, 'GET', '/v1/features');
    expect(features.status).toBe(200);
    expect(features.body).toEqual({ sponsor_api: true, billing: false });
    // the flags as the routes apply them: billing answers a signed-in caller 503, sponsor routes answer
    const packs = await http(service, 'GET', '/v1/billing/packs', { token: owner.session });
    expect(packs.status).toBe(503);
    expect(packs.body.code).toBe('BILLING_NOT_CONFIGURED');
    const institutions = await http(service, 'GET', '/v1/sponsors/institutions', { token: owner.session });
    expect(institutions.status).toBe(200);
    expect(institutions.body).toEqual({ data: [] });
  });
});
