// Authoring is told the truth: a paragraph's numbers reach the intake and the first checkpoint with their lines
// as sources (no question for them); a session the organization cannot cover is refused with 402 before any work; a
// failing step records the innermost cause's code; revise on the offline provider refuses written instructions (422,
// nothing charged) and a hosted revise that changes nothing says so. Real service, Temporal dev server, PGlite.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IntakeSpec } from '../../domain/contracts/intakeSpec.ts';
import { balances, grantCredits, reserve } from '../../store/credits/ledger.ts';
import type { AiFake } from '../fakes/http.ts';
import { startFakeOpenAi } from '../fakes/openai.ts';
import { key, projectWithIntake, waiting } from '../support/authoring.ts';
import { eventually, http, signedInOwner, startTestService, type TestService, type TestUser } from '../support/harness.ts';

const TRIAGE_LINES = [
  'Same-day telephone triage',
  'Our telephone triage service receives 96 referrals a day. Each call takes 12 minutes on average. Three clinicians staff the line from 8am to 8pm.',
];

async function grant(service: TestService, org_id: string, credits: number): Promise<void> {
  await service.db.transaction((tx) => grantCredits(tx, { org_id, credits, reason: 'authoring causes test grant', caused_by: 'test' }));
}

/** A project whose confirmed intake is the offline draft of the triage paragraph, as a user would make it. */
async function projectFromParagraph(service: TestService, user: TestUser): Promise<{ project_id: string; source_id: string }> {
  const project = await http(service, 'POST', '/v1/projects', { token: user.session, body: { title: 'Telephone triage', org_id: user.org_id } });
  const form = new FormData();
  form.append('project_id', project.body.id);
  form.append('files', new Blob([TRIAGE_LINES.join('\n')], { type: 'text/plain' }), 'triage.txt');
  const extracted = await fetch(`${service.url}/v1/intakes/extract`, { method: 'POST', headers: { authorization: `Bearer ${user.session}` }, body: form });
  expect(extracted.status).toBe(201);
  const source_id = ((await extracted.json()) as { sources: Array<{ id: string }> }).sources[0]!.id;
  const started = await http(service, 'POST', `/v1/projects/${project.body.id}/intakes/parse`, { token: user.session, body: { source_ids: [source_id] } });
  expect(started.status).toBe(202);
  const draft = await eventually(
    async () => {
      const read = await http(service, 'GET', `/v1/intake-drafts/${started.body.id}`, { token: user.session });
      return ['succeeded', 'failed'].includes(read.body.status) ? read.body : null;
    },
    60_000,
    'the intake draft',
  );
  expect(draft.status).toBe('succeeded');
  const spec = draft.spec as IntakeSpec;
  const confirmed = await http(service, 'POST', `/v1/projects/${project.body.id}/intakes`, { token: user.session, body: { spec, draft_id: draft.id } });
  expect(confirmed.status).toBe(201);
  return { project_id: project.body.id, source_id };
}

describe('authoring from what the intake cites (offline provider)', () => {
  let service: TestService;
  let owner: TestUser;

  beforeAll(async () => {
    service = await startTestService();
    owner = await signedInOwner(service, 'causes-owner');
    await grant(service, owner.org_id, 100_000);
  });
  afterAll(async () => {
    await service?.stop();
  }, 240_000);

  it('gives a first checkpoint with the three numbers the intake cites, each sourced to its line, and no question for them', async () => {
    const { project_id, source_id } = await projectFromParagraph(service, owner);
    const created = await http(service, 'POST', `/v1/projects/${project_id}/authoring-sessions`, {
      token: owner.session,
      body: {},
      headers: { 'idempotency-key': key() },
    });
    expect(created.status).toBe(201);
    const { checkpoint } = await waiting(service, owner, created.body.id);
    const line = { kind: 'intake_line', source_id, line_start: 2, line_end: 2 };
    expect(checkpoint.world.settings.arrival_rate).toMatchObject({
      value: 8,
      unit: 'per_hour',
      source: { ...line, quote: 'Our telephone triage service receives 96 referrals a day.', conversion: { quoted_value: 96, quoted_unit: 'per_day' } },
    });
    expect(checkpoint.world.settings.arrival_rate.source.conversion.basis).toMatch(/12 opening hours/);
    expect(checkpoint.world.settings.mean_service).toMatchObject({
      value: 12,
      unit: 'minutes',
      source: { ...line, quote: 'Each call takes 12 minutes on average.' },
    });
    expect(checkpoint.world.settings.servers).toMatchObject({
      value: 3,
      unit: 'count',
      source: { ...line, quote: 'Three clinicians staff the line from 8am to 8pm.' },
    });
    expect(checkpoint.questions.map((question: any) => question.slot)).toEqual(['treatment.mean_service']);
    expect(checkpoint.questions[0].text).toBe('How many minutes would a clinician spend with each patient with the technology, on average?');
  }, 240_000);

  it('refuses a session the organization cannot cover with 402, creating and charging nothing', async () => {
    const poor = await signedInOwner(service, 'causes-poor');
    const project_id = await projectWithIntake(service, poor);
    const refused = await http(service, 'POST', `/v1/projects/${project_id}/authoring-sessions`, {
      token: poor.session,
      body: {},
      headers: { 'idempotency-key': key() },
    });
    expect(refused.status).toBe(402);
    expect(refused.body.code).toBe('INSUFFICIENT_CREDITS');
    expect(refused.body.message).toMatch(/0 available/);
    const rows = await service.db.query('select id from authoring_sessions where project_id = ?', [project_id]);
    expect(rows).toEqual([]);
    expect((await balances(service.db, poor.org_id)).available_credits).toBe(0);
  });

  it('refuses written instructions on the offline provider with 422 and charges nothing; values still revise', async () => {
    const project_id = await projectWithIntake(service, owner);
    const created = await http(service, 'POST', `/v1/projects/${project_id}/authoring-sessions`, {
      token: owner.session,
      body: {},
      headers: { 'idempotency-key': key() },
    });
    await waiting(service, owner, created.body.id);
    const before = await balances(service.db, owner.org_id);
    const refused = await http(service, 'POST', `/v1/authoring-sessions/${created.body.id}/revise`, {
      token: owner.session,
      body: { instructions: 'use a longer consultation time' },
      headers: { 'idempotency-key': key() },
    });
    expect(refused.status).toBe(422);
    expect(refused.body.code).toBe('VALIDATION_FAILED');
    expect(refused.body.message).toMatch(/offline provider cannot follow written instructions/);
    expect(await balances(service.db, owner.org_id)).toEqual(before);
    const revised = await http(service, 'POST', `/v1/authoring-sessions/${created.body.id}/revise`, {
      token: owner.session,
      body: { values: [{ slot: 'servers', value: 2, reference: 'Clinic rota 2026' }] },
      headers: { 'idempotency-key': key() },
    });
    expect(revised.status).toBe(200);
    expect(revised.body.checkpoint.number).toBe(2);
    expect(revised.body.checkpoint.world.settings.servers).toMatchObject({ value: 2, source: { kind: 'reference' } });
    // The heuristic has nothing to add after its first draft: the values step made no AI call and charged nothing.
    expect(revised.body.checkpoint.ai.session_total.calls).toBe(1);
    expect(await balances(service.db, owner.org_id)).toEqual(before);
  }, 240_000);
});

describe('authoring failures and revisions with a hosted model (fake OpenAI)', () => {
  let service: TestService;
  let owner: TestUser;
  let openai: AiFake;
  const nothing = { name: 'Same-day clinic', description: 'the model found nothing to source', proposals: [], next_steps: [] };

  beforeAll(async () => {
    openai = await startFakeOpenAi({ expected_api_key: 'sk-hosted-causes' });
    openai.script.fallback = { object: nothing, usage: { input_tokens: 500, output_tokens: 100 } };
    service = await startTestService({
      env: {
        CRUCIBLE_HOSTED_AI_PROVIDER: 'openai',
        CRUCIBLE_OPENAI_MODEL: 'gpt-fake-causes',
        CRUCIBLE_OPENAI_BASE_URL: openai.base_url,
        CRUCIBLE_HOSTED_AI_API_KEY: 'sk-hosted-causes',
      },
    });
    owner = await signedInOwner(service, 'causes-hosted');
    await grant(service, owner.org_id, 100_000);
  });
  afterAll(async () => {
    await service?.stop();
    await openai?.close();
  }, 240_000);

  it('says so in the checkpoint when a revise with instructions changes nothing', async () => {
    const project_id = await projectWithIntake(service, owner);
    const created = await http(service, 'POST', `/v1/projects/${project_id}/authoring-sessions`, {
      token: owner.session,
      body: {},
      headers: { 'idempotency-key': key() },
    });
    await waiting(service, owner, created.body.id);
    const revised = await http(service, 'POST', `/v1/authoring-sessions/${created.body.id}/revise`, {
      token: owner.session,
      body: { instructions: 'look again at the consultation times' },
      headers: { 'idempotency-key': key() },
    });
    expect(revised.status).toBe(200);
    const checkpoint = revised.body.checkpoint;
    expect(checkpoint.number).toBe(2);
    expect(checkpoint.changes_since_previous).toEqual([]);
    expect(checkpoint.next_steps[0]).toMatchObject({ kind: 'revision_changed_nothing', source: 'rule', message: expect.stringMatching(/changed nothing/) });
    expect(checkpoint.ai.session_total.calls).toBe(2);
  }, 240_000);

  it('records the innermost cause of a failing draft, never INTERNAL', async () => {
    const project_id = await projectWithIntake(service, owner);
    openai.script.enqueue({ error_status: 400, message: 'model gpt-fake-causes does not support this schema' });
    const created = await http(service, 'POST', `/v1/projects/${project_id}/authoring-sessions`, {
      token: owner.session,
      body: {},
      headers: { 'idempotency-key': key() },
    });
    expect(created.status).toBe(201);
    const failed = await waiting(service, owner, created.body.id);
    expect(failed.status).toBe('failed');
    expect(failed.failure.code).toBe('PROVIDER_ERROR');
    expect(failed.failure.message).toMatch(/does not support this schema/);
    expect(failed.error).toEqual(failed.failure);
  }, 240_000);

  it('fails a step the credits no longer cover with INSUFFICIENT_CREDITS: the request answers 402 and the session records it', async () => {
    const project_id = await projectWithIntake(service, owner);
    const created = await http(service, 'POST', `/v1/projects/${project_id}/authoring-sessions`, {
      token: owner.session,
      body: {},
      headers: { 'idempotency-key': key() },
    });
    await waiting(service, owner, created.body.id);
    const { available_credits } = await balances(service.db, owner.org_id);
    await service.db.transaction((tx) =>
      reserve(tx, {
        transfer_id: `drain-${created.body.id}`,
        org_id: owner.org_id,
        subject: null,
        credits: available_credits,
        reason: 'test: spend every credit',
        caused_by: 'test',
      }),
    );
    const revised = await http(service, 'POST', `/v1/authoring-sessions/${created.body.id}/revise`, {
      token: owner.session,
      body: { instructions: 'look again' },
      headers: { 'idempotency-key': key() },
    });
    expect(revised.status).toBe(402);
    expect(revised.body.code).toBe('INSUFFICIENT_CREDITS');
    // the workflow records the failure after the step's answer: read until it has
    const session = await eventually(
      async () => {
        const read = await http(service, 'GET', `/v1/authoring-sessions/${created.body.id}`, { token: owner.session });
        return read.body.status !== 'drafting' ? read : null;
      },
      30_000,
      'the session to record its failure',
    );
    expect(session.body.status).toBe('failed');
    expect(session.body.failure).toMatchObject({ code: 'INSUFFICIENT_CREDITS', message: expect.stringMatching(/0 available/) });
  }, 240_000);
});
