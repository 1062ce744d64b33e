// docs/walkthrough.md, run over HTTP: a new user goes from a pasted paragraph to a finished, downloaded concept review
// with the offline provider (the embedded default) and a fake Europe PMC. Every request is one the walkthrough shows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOperator } from '../../runtime/operator.ts';
import { type FakeEuropePmc, startFakeEuropePmc } from '../fakes/europepmc.ts';
import { eventually, http, signIn, signedInOwner, startTestService, type TestService, type TestUser } from '../support/harness.ts';
import { fiveLiteratureRecords } from '../support/reviewFixtures.ts';

/** The paragraph the walkthrough pastes. */
const WALKTHROUGH_PARAGRAPH = [
  'Problem: heart failure patients are readmitted to hospital within 30 days of discharge.',
  'Our solution: a remote monitoring app that nurses use to review daily weight and symptoms.',
  'Intended users: heart failure nurses in community care.',
  'Stage: idea, nothing is built yet.',
].join('\n');

let service: TestService;
let pmc: FakeEuropePmc;
let user: TestUser;

beforeAll(async () => {
  pmc = await startFakeEuropePmc(fiveLiteratureRecords());
  service = await startTestService({ env: { CRUCIBLE_EUROPE_PMC_BASE_URL: pmc.base_url } });
  // The operator's first start creates the user; the operator grants credits (walkthrough step 0).
  const created = await signedInOwner(service, 'walkthrough');
  await runOperator(service.db, { command: 'grant-credits', flags: { org: created.org_id, credits: '1000', reason: 'walkthrough' } });
  user = created;
}, 120_000);

afterAll(async () => {
  await service?.stop();
  await pmc?.close();
});

describe('the walkthrough (docs/walkthrough.md)', () => {
  it('goes from a pasted paragraph to a finished, downloaded review', async () => {
    // 1. sign in
    const token = await signIn(service, user.email, user.password);
    const call = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => http(service, method, path, { token, body, headers });

    // 2. a project
    const project = await call(
      'POST',
      '/v1/projects',
      { title: 'Heart failure remote monitoring', org_id: user.org_id },
      { 'idempotency-key': 'walk-project' },
    );
    expect(project.status).toBe(201);
    const project_id = project.body.id as string;

    // 3. paste the paragraph: it is read and screened without AI
    const extracted = await call('POST', '/v1/intakes/extract', { text: WALKTHROUGH_PARAGRAPH, project_id });
    expect(extracted.status).toBe(201);
    expect(extracted.body.sources[0].status).toBe('processed');
    const source_id = extracted.body.sources[0].id as string;

    // 4. draft an IntakeSpec from it (the offline heuristic) and poll the draft
    const parsed = await call('POST', `/v1/projects/${project_id}/intakes/parse`, { source_ids: [source_id] }, { 'idempotency-key': 'walk-parse' });
    expect(parsed.status).toBe(202);
    const draft = await eventually(
      async () => {
        const read = await call('GET', `/v1/intake-drafts/${parsed.body.id}`);
        return ['succeeded', 'failed', 'canceled'].includes(read.body.status) ? read.body : null;
      },
      60_000,
      'the intake draft',
    );
    expect(draft.status).toBe('succeeded');
    expect(draft.spec.problem?.text).toMatch(/heart failure/);

    // 5. confirm it (here unchanged; a user would correct it first)
    const confirmed = await call('POST', `/v1/projects/${project_id}/intakes`, { spec: draft.spec, draft_id: draft.id }, { 'idempotency-key': 'walk-confirm' });
    expect(confirmed.status).toBe(201);
    expect(confirmed.body.revision).toBe(1);

    // 6. plan: the review is recommended, simulation skipped (idea stage), hosted inference must be approved
    const plan = await call('POST', `/v1/projects/${project_id}/evaluation-plans`, {}, { 'idempotency-key': 'walk-plan' });
    expect(plan.status).toBe(201);
    const decisions = Object.fromEntries(plan.body.plan.evaluations.map((e: any) => [e.kind, e]));
    expect(decisions.concept_and_evidence_review.decision).toBe('recommended');
    expect(decisions.world_simulation.decision).toBe('skipped');
    expect(plan.body.plan.approvals_needed.map((a: any) => a.scope)).toEqual(['hosted_inference']);

    // 7. approve hosted inference for this plan
    const approved = await call('POST', `/v1/projects/${project_id}/evaluation-plans/${plan.body.id}/approve`, { scope: 'hosted_inference' });
    expect(approved.status).toBe(200);

    // 8. start the review
    const started = await call('POST', `/v1/projects/${project_id}/reviews`, { plan_id: plan.body.id }, { 'idempotency-key': 'walk-review' });
    expect(started.status).toBe(201);

    // 9. poll until done
    const done = await eventually(
      async () => {
        const read = await call('GET', `/v1/reviews/${started.body.id}`);
        return ['succeeded', 'failed', 'canceled'].includes(read.body.status) ? read.body : null;
      },
      60_000,
      'the review',
    );
    expect(done.status).toBe('succeeded');
    expect(done.review.dimensions).toHaveLength(13);
    expect(done.review.drafted_by).toMatchObject({ provider: 'offline', heuristic: true });
    expect(done.review.evidence_summary.claims_supported).toBeGreaterThan(0);
    expect(done.review.literature.records.filter((r: any) => r.status === 'excluded')).toHaveLength(2);
    expect(done.credits_used).toBeGreaterThan(0);

    // 10. download the review with its citation record
    const download = await fetch(`${service.url}/v1/reviews/${started.body.id}/download`, { headers: { authorization: `Bearer ${token}` } });
    expect(download.status).toBe(200);
    expect(download.headers.get('content-disposition')).toMatch(/^attachment; filename="concept-review-rev_[0-9a-z]+\.json"$/);
    const file = (await download.json()) as { review: unknown; citation_record: { records: unknown[]; claims: unknown[] } };
    expect(file.review).toEqual(done.review);
    expect(file.citation_record.records).toHaveLength(5);
  });
});
