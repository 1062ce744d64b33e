// Authoring sessions (beta) on the real service, Temporal dev server and database: the offline provider holds a whole
// session whose approved world then runs to completion; a fake OpenAI proposing an unsourced distribution gets a question, not a setting; a tiny AI cap stops AI work
// and is charged what it used; concurrent answers with one key are one step; 409 and tenant isolation; the tool registry.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schemaErrors } from '../../api/http/request.ts';
import { AuthoringSession } from '../../domain/contracts/authoring.ts';
import { TOOL_REGISTRY_VERSION } from '../../domain/authoring/tools.ts';
import { balances, grantCredits } from '../../store/credits/ledger.ts';
import type { AiFake } from '../fakes/http.ts';
import { startFakeOpenAi } from '../fakes/openai.ts';
import { eventually, http, signedInOwner, startTestService, type TestService, type TestUser } from '../support/harness.ts';
import { key, projectWithIntake, usedCredits, waiting } from '../support/authoring.ts';

describe('authoring sessions on the offline provider', () => {
  let service: TestService;
  let owner: TestUser;
  let stranger: TestUser;

  beforeAll(async () => {
    service = await startTestService();
    owner = await signedInOwner(service, 'author-owner');
    stranger = await signedInOwner(service, 'author-stranger');
    await service.db.transaction((tx) => grantCredits(tx, { org_id: owner.org_id, credits: 100_000, reason: 'authoring test grant', caused_by: 'test' }));
  });
  afterAll(async () => {
    await service?.stop();
  }, 240_000);

  it('does not call a valid model complete while the model check finds a comparison of nothing or an unstable queue', async () => {
    const project_id = await projectWithIntake(service, owner);
    const created = await http(service, 'POST', `/v1/projects/${project_id}/authoring-sessions`, {
      token: owner.session,
      body: {},
      headers: { 'idempotency-key': key() },
    });
    const session_id = created.body.id;
    const first = await waiting(service, owner, session_id);
    // 48 hours taken as the review time, and a treatment that keeps it: valid, but it compares nothing and never clears.
    const values: Record<string, number> = { arrival_rate: 4, mean_service: 2_880, servers: 2, 'treatment.mean_service': 2_880 };
    const answers = first.checkpoint.questions.map((q: any) => ({ question_id: q.id, value: values[q.slot] }));
    const answered = await http(service, 'POST', `/v1/authoring-sessions/${session_id}/answers`, {
      token: owner.session,
      body: { answers },
      headers: { 'idempotency-key': key() },
    });
    expect(answered.status).toBe(200);
    expect(schemaErrors(AuthoringSession, answered.body)).toEqual([]);
    const checkpoint = answered.body.checkpoint;
    expect(checkpoint.validation.valid).toBe(true);
    // The week simulated is also too short for a 2,880-minute step to finish often.
    expect(checkpoint.model_check.map((warning: any) => warning.kind).sort()).toEqual(['horizon_too_short', 'unstable_queue', 'variant_changes_nothing']);
    expect(checkpoint.next_steps.some((step: any) => step.kind === 'approve_and_run')).toBe(false);
    const unstable = checkpoint.next_steps.find((step: any) => step.kind === 'unstable_queue');
    expect(unstable.message).toMatch(/needs at least \d+ available at once/);
    expect(checkpoint.next_steps.some((step: any) => step.kind === 'variant_changes_nothing')).toBe(true);
  });

  it('runs a whole session: questions, answers (diff), revise, approve into a world revision that validates and runs', async () => {
    const project_id = await projectWithIntake(service, owner);
    const before = await balances(service.db, owner.org_id);
    const created = await http(service, 'POST', `/v1/projects/${project_id}/authoring-sessions`, {
      token: owner.session,
      body: {},
      headers: { 'idempotency-key': key() },
    });
    expect(created.status).toBe(201);
    expect(created.body.id).toMatch(/^sess_/);
    const session_id = created.body.id;

    const first = await waiting(service, owner, session_id);
    expect(first.status).toBe('waiting');
    const checkpoint = first.checkpoint;
    expect(checkpoint.number).toBe(1);
    expect(checkpoint.questions.map((q: any) => q.slot).sort()).toEqual(['arrival_rate', 'mean_service', 'servers', 'treatment.mean_service']);
    expect(checkpoint.world.settings).toEqual({}); // nothing guessed
    expect(checkpoint.validation.valid).toBe(false);
    expect(checkpoint.ai.session_total.calls).toBe(1);
    expect(checkpoint.ai.heuristic).toBe(true);
    expect(checkpoint.ai.cap_reached).toBe(false);
    expect(checkpoint.next_steps.every((step: any) => ['rule', 'ai_hypothesis'].includes(step.source))).toBe(true);
    expect(checkpoint.next_steps.some((step: any) => step.kind === 'answer_question' && step.source === 'rule')).toBe(true);
    expect(first.accepts).toEqual(['answers', 'revise']);
    // The OpenAPI document describes the session's checkpoint by this schema: each step's answer fits it.
    expect(schemaErrors(AuthoringSession, first)).toEqual([]);

    const values: Record<string, number> = { arrival_rate: 4, mean_service: 20, servers: 2, 'treatment.mean_service': 12 };
    const answers = checkpoint.questions.map((q: any) => ({ question_id: q.id, value: values[q.slot] }));
    const answered = await http(service, 'POST', `/v1/authoring-sessions/${session_id}/answers`, {
      token: owner.session,
      body: { answers },
      headers: { 'idempotency-key': key() },
    });
    expect(answered.status).toBe(200);
    expect(schemaErrors(AuthoringSession, answered.body)).toEqual([]);
    const second = answered.body.checkpoint;
    expect(second.number).toBe(2);
    expect(second.questions).toEqual([]);
    expect(second.validation.valid).toBe(true);
    expect(second.world.settings.arrival_rate).toMatchObject({ value: 4, unit: 'per_hour', source: { kind: 'answer' } });
    const treatment = second.world.variants.find((v: any) => v.id === 'treatment');
    expect(treatment.changes).toEqual([expect.objectContaining({ setting: 'mean_service', baseline: 20, value: 12, unit: 'minutes' })]);
    expect(second.changes_since_previous).toEqual(
      expect.arrayContaining([
        { path: '/world/settings/arrival_rate', before: null, after: '4 per_hour' },
        { path: '/validation/valid', before: false, after: true },
      ]),
    );
    const wait = second.world.measured.find((m: any) => m.measure_id === 'wait');
    expect(wait).toMatchObject({
      coverage: 'covered',
      unit: 'minutes',
      denominator: 'entity',
      censoring: 'at_horizon',
      time_window: { start: 1440, end: 10080, unit: 'minutes' },
    });
    expect(wait.reported_beside.still_waiting_at_end_mean).not.toBeNull();
    expect(second.smoke_run.replications).toBe(2);
    expect(second.next_steps).toEqual(
      expect.arrayContaining([expect.objectContaining({ kind: 'approve_and_run', tool: 'synthetic_simulation', source: 'rule' })]),
    );
    // Every tool named in next_steps is in the registry.
    const tools = await http(service, 'GET', '/v1/tools');
    expect(tools.status).toBe(200);
    expect(tools.body.version).toBe(TOOL_REGISTRY_VERSION);
    const names = tools.body.data.map((tool: any) => tool.name);
    expect(names).toEqual(['concept_and_evidence_review', 'synthetic_simulation']);
    for (const step of second.next_steps) if (step.tool) expect(names).toContain(step.tool);

    // An answer while nothing is asked: 409 with the reason.
    const extra = await http(service, 'POST', `/v1/authoring-sessions/${session_id}/answers`, {
      token: owner.session,
      body: { answers },
      headers: { 'idempotency-key': key() },
    });
    expect(extra.status).toBe(409);
    expect(extra.body.code).toBe('CONFLICT');
    expect(extra.body.message).toMatch(/nothing is asked/);

    const revised = await http(service, 'POST', `/v1/authoring-sessions/${session_id}/revise`, {
      token: owner.session,
      body: { values: [{ slot: 'servers', value: 3, reference: 'Clinic rota 2026, two GPs and one nurse practitioner' }] },
      headers: { 'idempotency-key': key() },
    });
    expect(revised.status).toBe(200);
    expect(revised.body.checkpoint.number).toBe(3);
    expect(revised.body.checkpoint.world.settings.servers).toMatchObject({ value: 3, source: { kind: 'reference' } });
    expect(revised.body.checkpoint.changes_since_previous).toEqual([{ path: '/world/settings/servers', before: '2 count', after: '3 count' }]);
    expect(revised.body.accepts).toEqual(['revise', 'approve']);
    expect(schemaErrors(AuthoringSession, revised.body)).toEqual([]);

    const approved = await http(service, 'POST', `/v1/authoring-sessions/${session_id}/approve`, {
      token: owner.session,
      body: {},
      headers: { 'idempotency-key': key() },
    });
    expect(approved.status).toBe(200);
    expect(approved.body.status).toBe('approved');
    expect(schemaErrors(AuthoringSession, approved.body)).toEqual([]);
    const world_revision_id = approved.body.world_revision_id;
    expect(world_revision_id).toMatch(/^wrev_/);
    const revision = await http(service, 'GET', `/v1/world-revisions/${world_revision_id}`, { token: owner.session });
    expect(revision.status).toBe(200);
    expect(revision.body.world.settings.servers.source).toEqual({ kind: 'literature', reference: 'Clinic rota 2026, two GPs and one nurse practitioner' });
    const validated = await http(service, 'POST', '/v1/world-specs/validate', { body: revision.body.world });
    expect(validated.body).toEqual({ valid: true, problems: [], problems_not_listed: 0 });
    // Nothing was run implicitly; the revision runs when asked.
    expect((await service.db.query('select id from runs where world_revision_id = ?', [world_revision_id])).length).toBe(0);
    // Charged exactly what the session's AI calls cost: one offline draft; the answers filled every slot, so no more AI.
    const session_credits = await usedCredits(service, session_id);
    expect(session_credits).toBeGreaterThan(0);
    const ai_calls = await service.db.query("select id from ai_usage where subject_kind = 'session' and subject_id = ?", [session_id]);
    expect(ai_calls.length).toBe(1);
    const after = await balances(service.db, owner.org_id);
    expect(before.available_credits - after.available_credits).toBe(session_credits);
    expect(after.reserved_credits).toBe(0);

    const estimate = await http(service, 'POST', '/v1/runs/estimate', { token: owner.session, body: { world_revision_id, budget_limit_credits: 50_000 } });
    expect(estimate.status).toBe(200);
    expect(estimate.body.runnable).toBe(true);
    const run = await http(service, 'POST', '/v1/runs', {
      token: owner.session,
      body: { world_revision_id, budget_limit_credits: 50_000 },
      headers: { 'idempotency-key': key() },
    });
    expect(run.status).toBe(202);
    // The approved world runs to completion and has results.
    const ended = await eventually(
      async () => {
        const read = await http(service, 'GET', `/v1/runs/${run.body.run_id}`, { token: owner.session });
        return ['queued', 'running'].includes(read.body.status) ? null : read.body;
      },
      120_000,
      'the approved world run to end',
    );
    expect(ended.status, JSON.stringify(ended.error)).toBe('succeeded');
    const results = await http(service, 'GET', `/v1/runs/${run.body.run_id}/results`, { token: owner.session });
    expect(results.status).toBe(200);
    expect(results.body.findings.length).toBeGreaterThan(0);

    // The list shows it; the prompts are published.
    const list = await http(service, 'GET', `/v1/projects/${project_id}/authoring-sessions`, { token: owner.session });
    expect(list.status).toBe(200);
    expect(list.body.data.map((s: any) => s.id)).toContain(session_id);
    const prompt = await http(service, 'GET', '/v1/prompts/authoring-draft');
    expect(prompt.status).toBe(200);
    expect(prompt.body.system).toMatch(/never invent a number/);
  }, 240_000);

  it('is pollable: a wait started while it drafts ends with its first checkpoint, and 304 answers an unchanged session', async () => {
    const project_id = await projectWithIntake(service, owner);
    const created = await http(service, 'POST', `/v1/projects/${project_id}/authoring-sessions`, {
      token: owner.session,
      body: {},
      headers: { 'idempotency-key': key() },
    });
    expect(created.status).toBe(201);
    const session_id = created.body.id;
    const read = await http(service, 'GET', `/v1/authoring-sessions/${session_id}`, { token: owner.session });
    expect(read.status).toBe(200);
    let current = read;
    const started = Date.now();
    // Each wait ends when the session changes (or at 25 s); the first checkpoint arrives within a few of them.
    for (let round = 0; round < 5 && current.body.status !== 'waiting'; round++) {
      const etag = current.headers.get('etag')!;
      const next = await http(service, 'GET', `/v1/authoring-sessions/${session_id}?wait=25`, { token: owner.session, headers: { 'if-none-match': etag } });
      expect([200, 304]).toContain(next.status);
      if (next.status === 200) {
        expect(next.headers.get('etag')).not.toBe(etag);
        current = next;
      }
    }
    expect(current.body.status).toBe('waiting');
    expect(current.body.checkpoint.number).toBe(1);
    // woken by the change, not by the end of a 25 s wait
    expect(Date.now() - started).toBeLessThan(20_000);
    const unchanged = await http(service, 'GET', `/v1/authoring-sessions/${session_id}`, {
      token: owner.session,
      headers: { 'if-none-match': current.headers.get('etag')! },
    });
    expect(unchanged.status).toBe(304);
  });

  it('makes one step of two concurrent answers with one key, and gives another organization 404 everywhere', async () => {
    const project_id = await projectWithIntake(service, owner);
    const created = await http(service, 'POST', `/v1/projects/${project_id}/authoring-sessions`, {
      token: owner.session,
      body: {},
      headers: { 'idempotency-key': key() },
    });
    const session_id = created.body.id;
    const first = await waiting(service, owner, session_id);
    const question = first.checkpoint.questions.find((q: any) => q.slot === 'servers');
    const same = key();
    const send = () =>
      http(service, 'POST', `/v1/authoring-sessions/${session_id}/answers`, {
        token: owner.session,
        body: { answers: [{ question_id: question.id, value: 2 }] },
        headers: { 'idempotency-key': same },
      });
    const [a, b] = await Promise.all([send(), send()]);
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(a.body.checkpoint.number).toBe(2);
    expect(b.body.checkpoint.number).toBe(2);
    const count = await service.db.one<{ n: number }>('select count(*)::int as n from authoring_checkpoints where session_id = ?', [session_id]);
    expect(Number(count?.n)).toBe(2);

    const other = { token: stranger.session, headers: { 'idempotency-key': key() } };
    expect((await http(service, 'GET', `/v1/authoring-sessions/${session_id}`, other)).status).toBe(404);
    expect((await http(service, 'GET', `/v1/projects/${project_id}/authoring-sessions`, other)).status).toBe(404);
    expect((await http(service, 'POST', `/v1/projects/${project_id}/authoring-sessions`, { ...other, body: {} })).status).toBe(404);
    for (const [path, body] of [
      ['answers', { answers: [{ question_id: question.id, value: 1 }] }],
      ['revise', { values: [{ slot: 'servers', value: 1 }] }],
      ['approve', {}],
    ] as const) {
      const response = await http(service, 'POST', `/v1/authoring-sessions/${session_id}/${path}`, { ...other, body });
      expect(response.status).toBe(404);
      expect(response.body.code).toBe('NOT_FOUND');
    }
  }, 240_000);

  it('stops AI work at a tiny cap with cap_reached, is charged exactly what it used, refuses AI steps and still approves', async () => {
    const project_id = await projectWithIntake(service, owner);
    const before = await balances(service.db, owner.org_id);
    const created = await http(service, 'POST', `/v1/projects/${project_id}/authoring-sessions`, {
      token: owner.session,
      body: { ai_limits: { calls_max: 1 } },
      headers: { 'idempotency-key': key() },
    });
    expect(created.status).toBe(201);
    const session_id = created.body.id;
    const first = await waiting(service, owner, session_id);
    expect(first.cap_reached).toBe(true);
    expect(first.checkpoint.ai).toMatchObject({ cap_reached: true, limit_reached: 'calls_max', session_total: { calls: 1, ai_iterations: 1 } });
    const refused = await http(service, 'POST', `/v1/authoring-sessions/${session_id}/revise`, {
      token: owner.session,
      body: { instructions: 'try again' },
      headers: { 'idempotency-key': key() },
    });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toMatch(/cap_reached/);
    const values: Record<string, number> = { arrival_rate: 3, mean_service: 15, servers: 2, 'treatment.mean_service': 10 };
    const answered = await http(service, 'POST', `/v1/authoring-sessions/${session_id}/answers`, {
      token: owner.session,
      body: { answers: first.checkpoint.questions.map((q: any) => ({ question_id: q.id, value: values[q.slot] })) },
      headers: { 'idempotency-key': key() },
    });
    expect(answered.status).toBe(200);
    expect(answered.body.checkpoint.ai.session_total.calls).toBe(1); // answers applied by rule, no AI call
    expect(answered.body.checkpoint.ai.cap_reached).toBe(true);
    const approved = await http(service, 'POST', `/v1/authoring-sessions/${session_id}/approve`, {
      token: owner.session,
      body: {},
      headers: { 'idempotency-key': key() },
    });
    expect(approved.status).toBe(200);
    expect(approved.body.world_revision_id).toMatch(/^wrev_/);
    const used = await usedCredits(service, session_id);
    expect(used).toBeGreaterThan(0);
    expect(answered.body.checkpoint.ai.session_total.credits).toBe(used);
    const after = await balances(service.db, owner.org_id);
    expect(before.available_credits - after.available_credits).toBe(used);
  }, 240_000);
});

describe('authoring sessions with a hosted model (fake OpenAI)', () => {
  let service: TestService;
  let owner: TestUser;
  let openai: AiFake;

  beforeAll(async () => {
    openai = await startFakeOpenAi({ expected_api_key: 'sk-hosted-authoring' });
    service = await startTestService({
      env: {
        CRUCIBLE_HOSTED_AI_PROVIDER: 'openai',
        CRUCIBLE_OPENAI_MODEL: 'gpt-fake-author',
        CRUCIBLE_OPENAI_BASE_URL: openai.base_url,
        CRUCIBLE_HOSTED_AI_API_KEY: 'sk-hosted-authoring',
      },
    });
    owner = await signedInOwner(service, 'author-openai');
    await service.db.transaction((tx) => grantCredits(tx, { org_id: owner.org_id, credits: 100_000, reason: 'authoring test grant', caused_by: 'test' }));
  });
  afterAll(async () => {
    await service?.stop();
    await openai?.close();
  }, 240_000);

  it('turns an unsourced proposed value into a question, never a setting; a sourced one becomes a setting', async () => {
    const project_id = await projectWithIntake(service, owner);
    openai.script.enqueue({
      object: {
        name: 'Same-day clinic with digital triage',
        description: 'proposed by the model',
        proposals: [
          // An unsourced distribution parameter, the failure seen when models rebuild simulation models from papers.
          { slot: 'mean_service', value: 17.5, source: null, question: 'How long is a consultation today, on average?' },
          { slot: 'arrival_rate', value: 6, source: { kind: 'reference', reference: 'NHS Digital GP appointment data, 2025' }, question: '' },
          // A quote that is not in the intake is no source.
          {
            slot: 'servers',
            value: 4,
            source: { kind: 'intake_line', source_id: 'src_x', line_start: 1, line_end: 1, quote: 'four clinicians work each day', conversion: null },
            question: 'How many clinicians?',
          },
          { slot: 'treatment.mean_service', value: null, source: null, question: 'How long with the triage form?' },
        ],
        next_steps: [
          { kind: 'check_literature', tool: 'concept_and_evidence_review', note: 'look for consultation-time studies' },
          { kind: 'made_up', tool: 'no_such_tool', note: 'a tool outside the registry' },
        ],
      },
      usage: { input_tokens: 900, output_tokens: 300 },
    });
    const created = await http(service, 'POST', `/v1/projects/${project_id}/authoring-sessions`, {
      token: owner.session,
      body: { ai_limits: { calls_max: 1 } },
      headers: { 'idempotency-key': key() },
    });
    expect(created.status).toBe(201);
    const first = await waiting(service, owner, created.body.id);
    const checkpoint = first.checkpoint;
    expect(checkpoint.world.settings.mean_service).toBeUndefined();
    expect(checkpoint.world.spec.settings.mean_service).toBeUndefined();
    expect(checkpoint.world.settings.servers).toBeUndefined();
    const question = checkpoint.questions.find((q: any) => q.slot === 'mean_service');
    expect(question).toMatchObject({
      text: 'How long is a consultation today, on average?',
      unsourced_proposal: { value: 17.5, proposed_by: 'ai_hypothesis' },
    });
    expect(checkpoint.questions.map((q: any) => q.slot).sort()).toEqual(['mean_service', 'servers', 'treatment.mean_service']);
    expect(checkpoint.world.settings.arrival_rate).toEqual({
      value: 6,
      unit: 'per_hour',
      source: { kind: 'reference', reference: 'NHS Digital GP appointment data, 2025', suggested_by_ai: true },
    });
    expect(checkpoint.next_steps).toEqual(
      expect.arrayContaining([
        { kind: 'check_literature', tool: 'concept_and_evidence_review', source: 'ai_hypothesis', message: 'look for consultation-time studies' },
        { kind: 'made_up', source: 'ai_hypothesis', message: 'a tool outside the registry' },
      ]),
    );
    expect(checkpoint.ai.heuristic).toBe(false);
    expect(checkpoint.ai.session_total).toMatchObject({ calls: 1, tokens: 1200 });
    expect(openai.requests.length).toBe(1);
    const used = await usedCredits(service, created.body.id);
    expect(checkpoint.ai.session_total.credits).toBe(used);
    expect(used).toBe(2); // ceil(1200 tokens × 1 credit per 1k)
  }, 240_000);
});
