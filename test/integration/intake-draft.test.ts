// The intake-drafting workflow on the real service and Temporal dev server: the offline provider drafts and settles
// credits; a fake OpenAI records every request so we can prove no quarantined text reaches a provider; failures release.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INTAKE_SPEC_VERSION, type IntakeSpec } from '../../domain/contracts/intakeSpec.ts';
import { adjustCredits, balances, grantCredits } from '../../store/credits/ledger.ts';
import { createDraft } from '../../store/intake/drafts.ts';
import { type AiFake, type FakeServer, startFakeServer } from '../fakes/http.ts';
import { startFakeAnthropic } from '../fakes/anthropic.ts';
import { startFakeGoogle } from '../fakes/google.ts';
import { startFakeOpenAi } from '../fakes/openai.ts';
import { nhsNumberFile, PROJECT_BRIEF_TXT, ssnFile, textFile, markdownFile, VALID_NHS_NUMBER, US_SSN, type CorpusFile } from '../support/corpus.ts';
import { eventually, http, signedInOwner, startTestService, type TestService, type TestUser } from '../support/harness.ts';
import { emptyIntakeSpec } from '../support/intakeSpecs.ts';

async function newProject(service: TestService, user: TestUser, title = 'FastTrack Referral'): Promise<string> {
  const created = await http(service, 'POST', '/v1/projects', { token: user.session, body: { title, org_id: user.org_id } });
  expect(created.status).toBe(201);
  return created.body.id;
}

async function extract(service: TestService, user: TestUser, project_id: string, files: CorpusFile[]): Promise<Map<string, any>> {
  const form = new FormData();
  form.append('project_id', project_id);
  for (const file of files) {
    if (file.input.kind !== 'file') throw new Error('files only');
    form.append('files', new Blob([file.input.bytes as Uint8Array<ArrayBuffer>], { type: file.input.content_type ?? 'text/plain' }), file.input.filename);
  }
  const response = await fetch(`${service.url}/v1/intakes/extract`, { method: 'POST', headers: { authorization: `Bearer ${user.session}` }, body: form });
  expect(response.status).toBe(201);
  const body = (await response.json()) as { sources: any[] };
  return new Map(body.sources.map((source) => [source.name, source]));
}

async function grant(service: TestService, org_id: string, credits: number): Promise<void> {
  await service.db.transaction((tx) => grantCredits(tx, { org_id, credits, reason: 'intake test grant', caused_by: 'test' }));
}

async function finished(service: TestService, user: TestUser, draft_id: string): Promise<any> {
  return eventually(
    async () => {
      const read = await http(service, 'GET', `/v1/intake-drafts/${draft_id}`, { token: user.session });
      return ['succeeded', 'failed', 'canceled'].includes(read.body.status) ? read.body : null;
    },
    60_000,
    `draft ${draft_id} to finish`,
  );
}

describe('drafting with the offline provider (the embedded default)', () => {
  let service: TestService;
  let owner: TestUser;
  let stranger: TestUser;

  beforeAll(async () => {
    service = await startTestService();
    owner = await signedInOwner(service, 'draft-owner');
    stranger = await signedInOwner(service, 'draft-stranger');
  });
  afterAll(async () => {
    await service?.stop();
  });

  it('drafts an IntakeSpec whose citations hold, and settles exactly the credits it charged', async () => {
    const project_id = await newProject(service, owner);
    const sources = await extract(service, owner, project_id, [textFile(), markdownFile(), nhsNumberFile()]);
    await grant(service, owner.org_id, 1000);
    const before = await balances(service.db, owner.org_id);
    const ids = ['brief.txt', 'pathway.md', 'audit.txt'].map((name) => sources.get(name).id);
    const started = await http(service, 'POST', `/v1/projects/${project_id}/intakes/parse`, { token: owner.session, body: { source_ids: ids } });
    expect(started.status).toBe(202);
    expect(started.body.status).toBe('queued');
    expect(started.body.source_ids).toEqual(ids.slice(0, 2));
    expect(started.body.skipped_source_ids).toEqual([ids[2]]); // quarantined: never sent
    expect(started.body.credits_reserved).toBeGreaterThan(0);

    const draft = await finished(service, owner, started.body.id);
    expect(draft.status).toBe('succeeded');
    expect(draft.error).toBeNull();
    const spec = draft.spec as IntakeSpec;
    expect(spec.version).toBe(INTAKE_SPEC_VERSION);
    expect(spec.drafted_by?.provider).toBe('offline');
    expect(draft.dropped_citations).toEqual([]);
    expect(spec.problem?.citations[0]?.source_id).toBe(ids[0]);
    const cited = new Set(JSON.stringify(spec).match(/src_[0-9a-z]+/g));
    expect(cited.has(ids[2])).toBe(false);
    expect(JSON.stringify(draft)).not.toContain(VALID_NHS_NUMBER);

    expect(draft.usage).toMatchObject({ provider: 'offline', input_tokens: expect.any(Number), output_tokens: expect.any(Number) });
    expect(draft.usage.credits_charged).toBeGreaterThan(0);
    const after = await balances(service.db, owner.org_id);
    expect(before.available_credits - after.available_credits).toBe(draft.usage.credits_charged);
    expect(after.reserved_credits).toBe(0);

    // The draft, confirmed as is, keeps every citation.
    const confirmed = await http(service, 'POST', `/v1/projects/${project_id}/intakes`, { token: owner.session, body: { spec, draft_id: draft.id } });
    expect(confirmed.status).toBe(201);
    expect(confirmed.body.dropped_citations).toEqual([]);
    expect(confirmed.body.draft_id).toBe(draft.id);
  });

  it('confirms a draft once: a second confirmation is refused with 409 naming the revision, a correction without the draft is a new revision', async () => {
    const project_id = await newProject(service, owner, 'Confirmed once');
    const sources = await extract(service, owner, project_id, [textFile()]);
    await grant(service, owner.org_id, 1000);
    const started = await http(service, 'POST', `/v1/projects/${project_id}/intakes/parse`, {
      token: owner.session,
      body: { source_ids: [sources.get('brief.txt').id] },
    });
    expect(started.status).toBe(202);
    const draft = await finished(service, owner, started.body.id);
    const spec = draft.spec as IntakeSpec;
    const first = await http(service, 'POST', `/v1/projects/${project_id}/intakes`, {
      token: owner.session,
      body: { spec, draft_id: draft.id },
      headers: { 'idempotency-key': `confirm-once-${draft.id}` },
    });
    expect(first.status).toBe(201);
    expect(first.body.revision).toBe(1);
    // the same request replayed with its key is the same answer, not a refusal
    const replayed = await http(service, 'POST', `/v1/projects/${project_id}/intakes`, {
      token: owner.session,
      body: { spec, draft_id: draft.id },
      headers: { 'idempotency-key': `confirm-once-${draft.id}` },
    });
    expect(replayed.status).toBe(201);
    expect(replayed.body.id).toBe(first.body.id);
    // a second confirmation of the draft, edited or not, is refused and says which revision holds it
    const edited = { ...spec, problem: { text: 'Referrals wait too long.', provenance: 'user_declared', citations: [] } };
    for (const body of [
      { spec, draft_id: draft.id },
      { spec: edited, draft_id: draft.id },
    ]) {
      const again = await http(service, 'POST', `/v1/projects/${project_id}/intakes`, { token: owner.session, body });
      expect(again.status).toBe(409);
      expect(again.body.code).toBe('CONFLICT');
      expect(again.body.message).toBe(
        'This draft was already confirmed as intake revision 1. To change the intake, correct revision 1: it becomes a new revision.',
      );
      expect(again.body.details).toEqual([{ path: '/draft_id', message: 'already confirmed as revision 1', revision: 1 }]);
    }
    const listed = await http(service, 'GET', `/v1/projects/${project_id}/intakes`, { token: owner.session });
    expect(listed.body.data.map((r: { revision: number }) => r.revision)).toEqual([1]);
    // correcting revision 1 confirms the document without the draft: revision 2
    const corrected = await http(service, 'POST', `/v1/projects/${project_id}/intakes`, { token: owner.session, body: { spec: edited } });
    expect(corrected.status).toBe(201);
    expect(corrected.body.revision).toBe(2);
    expect(corrected.body.draft_id).toBeNull();
  });

  it('starts one draft and one workflow for a repeated request with the same Idempotency-Key', async () => {
    const project_id = await newProject(service, owner);
    const sources = await extract(service, owner, project_id, [textFile()]);
    await grant(service, owner.org_id, 100);
    const headers = { 'idempotency-key': `parse-${randomBytes(4).toString('hex')}` };
    const body = { source_ids: [sources.get('brief.txt').id] };
    const first = await http(service, 'POST', `/v1/projects/${project_id}/intakes/parse`, { token: owner.session, body, headers });
    const again = await http(service, 'POST', `/v1/projects/${project_id}/intakes/parse`, { token: owner.session, body, headers });
    expect(again.status).toBe(202);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.id).toBe(first.body.id);
    expect((await finished(service, owner, first.body.id)).status).toBe('succeeded');
    // Spend the whole balance: a replay still returns the original answer, not a 402 for today's balance.
    const left = (await balances(service.db, owner.org_id)).available_credits;
    if (left > 0) await service.db.transaction((tx) => adjustCredits(tx, { org_id: owner.org_id, credits_change: -left, reason: 'drain', caused_by: 'test' }));
    const later = await http(service, 'POST', `/v1/projects/${project_id}/intakes/parse`, { token: owner.session, body, headers });
    expect(later.status, JSON.stringify(later.body)).toBe(202);
    expect(later.body.id).toBe(first.body.id);
    const handle = service.service.client.workflow.getHandle(`intake-draft-${first.body.id}`);
    expect(await handle.result()).toEqual({ status: 'succeeded' });
    // One run under the deterministic id: the replay's start was a no-op.
    const runs = [];
    for await (const run of service.service.client.workflow.list({ query: `WorkflowId = 'intake-draft-${first.body.id}'` })) runs.push(run);
    expect(runs).toHaveLength(1);
  });

  it('starts a draft whose workflow never started, through the reconciler', async () => {
    const project_id = await newProject(service, owner);
    const sources = await extract(service, owner, project_id, [textFile()]);
    await grant(service, owner.org_id, 100);
    // A draft row committed without its workflow, as after a crash between the commit and the start.
    const orphan = await service.db.transaction((tx) =>
      createDraft(tx, {
        project_id,
        org_id: owner.org_id,
        source_ids: [sources.get('brief.txt').id],
        skipped_source_ids: [],
        byok_provider: null,
        credits_max: 100,
        created_by: owner.user_id,
      }),
    );
    const result = await service.service.client.workflow.execute('maintenanceWorkflow', {
      taskQueue: service.task_queue,
      workflowId: `reconcile-intake-${randomBytes(4).toString('hex')}`,
      args: [{ older_than_ms: 0 }],
    });
    expect(result.intake_drafts_started).toBeGreaterThanOrEqual(1);
    expect((await finished(service, owner, orphan.id)).status).toBe('succeeded');
  });

  it('refuses when no requested source is processed, naming them, and sends nothing', async () => {
    const project_id = await newProject(service, owner);
    const sources = await extract(service, owner, project_id, [nhsNumberFile(), ssnFile()]);
    const ids = [sources.get('audit.txt').id, sources.get('enrolment.txt').id];
    const response = await http(service, 'POST', `/v1/projects/${project_id}/intakes/parse`, { token: owner.session, body: { source_ids: ids } });
    expect(response.status).toBe(422);
    expect(response.body.message).toContain(ids[0]);
    expect(response.body.message).toContain(ids[1]);
    expect(response.body.message).toContain('excluded_for_privacy');
  });

  it('answers 402 when the balance cannot cover the reservation', async () => {
    const poor = await signedInOwner(service, 'poor');
    const project_id = await newProject(service, poor);
    const sources = await extract(service, poor, project_id, [textFile()]);
    const response = await http(service, 'POST', `/v1/projects/${project_id}/intakes/parse`, {
      token: poor.session,
      body: { source_ids: [sources.get('brief.txt').id] },
    });
    expect(response.status).toBe(402);
    expect(response.body.code).toBe('INSUFFICIENT_CREDITS');
  });

  it('answers 503 PROVIDER_NOT_CONFIGURED for a byok provider with no model configured', async () => {
    const project_id = await newProject(service, owner);
    const sources = await extract(service, owner, project_id, [textFile()]);
    const response = await http(service, 'POST', `/v1/projects/${project_id}/intakes/parse`, {
      token: owner.session,
      body: { source_ids: [sources.get('brief.txt').id], byok_provider: 'anthropic' },
    });
    expect(response.status).toBe(503);
    expect(response.body.code).toBe('PROVIDER_NOT_CONFIGURED');
  });

  it("answers another organization with 404 on drafts and on the project's parse", async () => {
    const project_id = await newProject(service, owner);
    const sources = await extract(service, owner, project_id, [textFile()]);
    await grant(service, owner.org_id, 100);
    const started = await http(service, 'POST', `/v1/projects/${project_id}/intakes/parse`, {
      token: owner.session,
      body: { source_ids: [sources.get('brief.txt').id] },
    });
    expect((await http(service, 'GET', `/v1/intake-drafts/${started.body.id}`, { token: stranger.session })).status).toBe(404);
    expect((await http(service, 'GET', '/v1/intake-drafts/drf_doesnotexist', { token: stranger.session })).status).toBe(404);
    const foreign = await http(service, 'POST', `/v1/projects/${project_id}/intakes/parse`, {
      token: stranger.session,
      body: { source_ids: [sources.get('brief.txt').id] },
    });
    expect(foreign.status).toBe(404);
    expect((await http(service, 'GET', `/v1/projects/${project_id}/intake-drafts`, { token: stranger.session })).status).toBe(404);
    await finished(service, owner, started.body.id);
  });
});

/**
 * A draft whose provider reports far more usage than the request could cost: the answer is kept, charged what was
 * reserved, the rest absorbed on the usage row; the usage listing and the ledger agree.
 */
async function overrunIsAbsorbed(service: TestService, owner: TestUser, fake: AiFake, provider: string): Promise<void> {
  const project_id = await newProject(service, owner);
  const sources = await extract(service, owner, project_id, [textFile()]);
  const brief_id = sources.get('brief.txt').id;
  const spec: IntakeSpec = {
    ...emptyIntakeSpec(),
    problem: {
      text: 'Patients wait too long',
      provenance: 'user_declared',
      citations: [{ source_id: brief_id, line_start: 3, line_end: 3, quote: 'wait too long for a specialist review' }],
    },
    stage: { value: 'prototype', provenance: 'user_declared', citations: [{ source_id: brief_id, line_start: 6, line_end: 6, quote: 'working prototype' }] },
  };
  // far beyond any honest count of the request: 40 M input tokens
  fake.script.enqueue({ object: spec, usage: { input_tokens: 40_000_000, output_tokens: 1200 } });
  const before = await balances(service.db, owner.org_id);
  const started = await http(service, 'POST', `/v1/projects/${project_id}/intakes/parse`, {
    token: owner.session,
    body: { source_ids: [brief_id] },
  });
  expect(started.status).toBe(202);
  const reserved = started.body.credits_reserved as number;
  expect(reserved).toBeGreaterThan(0);
  const draft = await finished(service, owner, started.body.id);
  expect(draft.status, JSON.stringify(draft.error)).toBe('succeeded');
  expect(draft.spec.problem.text).toBe('Patients wait too long');
  expect(draft.usage.credits_charged).toBe(reserved);
  const after = await balances(service.db, owner.org_id);
  expect(before.available_credits - after.available_credits).toBe(reserved);
  expect(after.reserved_credits).toBe(0);
  const usage = await http(service, 'GET', `/v1/orgs/${owner.org_id}/usage`, { token: owner.session });
  const row = usage.body.data.find((each: { subject: { id: string } }) => each.subject.id === started.body.id);
  // price: ceil((40,000,000 + 1,200) × 1 / 1000) at the default price of 1 credit per 1,000 tokens
  expect(row).toMatchObject({ provider, credits_charged: reserved, credits_absorbed: 40_002 - reserved, input_tokens: 40_000_000 });
  expect(draft.spec.drafted_by).toMatchObject({ provider });
}

describe('drafting with a hosted provider (fake OpenAI recording every request)', () => {
  const HOSTED_KEY = `sk-hosted-${randomBytes(20).toString('hex')}`;
  let service: TestService;
  let openai: AiFake;
  let owner: TestUser;

  beforeAll(async () => {
    openai = await startFakeOpenAi({ expected_api_key: HOSTED_KEY });
    service = await startTestService({
      env: {
        CRUCIBLE_HOSTED_AI_PROVIDER: 'openai',
        CRUCIBLE_HOSTED_AI_API_KEY: HOSTED_KEY,
        CRUCIBLE_OPENAI_MODEL: 'gpt-intake-test',
        CRUCIBLE_OPENAI_BASE_URL: openai.base_url,
        // short, so a provider that never answers is given up on within the test (the fake answers others at once)
        CRUCIBLE_AI_CALL_TIMEOUT_SECONDS: '3',
      },
    });
    owner = await signedInOwner(service, 'hosted-draft');
    await grant(service, owner.org_id, 10_000);
  });
  afterAll(async () => {
    await service?.stop();
    await openai?.close();
  });

  it('sends only processed text: no quarantined source reaches the provider, and fabricated citations in the draft are dropped', async () => {
    const project_id = await newProject(service, owner);
    const sources = await extract(service, owner, project_id, [textFile(), nhsNumberFile(), ssnFile()]);
    const brief_id = sources.get('brief.txt').id;
    const audit_id = sources.get('audit.txt').id;
    const spec = {
      version: INTAKE_SPEC_VERSION,
      problem: {
        text: 'Patients wait too long',
        provenance: 'user_declared',
        citations: [{ source_id: brief_id, line_start: 3, line_end: 3, quote: 'wait too long for a specialist review' }],
      },
      proposed_solution: null,
      intended_users: [],
      care_setting: null,
      stage: { value: 'prototype', provenance: 'user_declared', citations: [{ source_id: brief_id, line_start: 6, line_end: 6, quote: 'working prototype' }] },
      claims: [
        {
          text: 'Faster triage',
          topic: 'operational',
          provenance: 'user_declared',
          citations: [{ source_id: brief_id, line_start: 7, line_end: 7, quote: 'reduces time to triage by 40%' }],
        },
        {
          text: 'Invented',
          topic: 'clinical',
          provenance: 'user_declared',
          citations: [{ source_id: audit_id, line_start: 2, line_end: 2, quote: 'referred on the urgent pathway' }],
        },
      ],
      evidence_offered: [],
      risks: [],
      unknowns: [],
      business: { proposed_user: null, buyer: null, budget_owner: null, current_alternative: null, dependencies: [], value_hypothesis: null },
      care_pathway: { status: 'none', description: null, steps: [] },
    };
    openai.script.enqueue({ object: spec, usage: { input_tokens: 3000, output_tokens: 1200 } });
    const before = await balances(service.db, owner.org_id);
    const requests_before = openai.requests.length;
    const started = await http(service, 'POST', `/v1/projects/${project_id}/intakes/parse`, {
      token: owner.session,
      body: { source_ids: [brief_id, audit_id, sources.get('enrolment.txt').id] },
    });
    expect(started.status).toBe(202);
    const draft = await finished(service, owner, started.body.id);
    expect(draft.status).toBe('succeeded');

    const sent = openai.requests.slice(requests_before);
    expect(sent).toHaveLength(1);
    const body_text = sent.map((request) => request.body_text).join('\n');
    expect(body_text).toContain(brief_id);
    expect(body_text).toContain(JSON.stringify(PROJECT_BRIEF_TXT.split('\n')[2]).slice(1, -1)); // the processed text did go
    for (const quarantined of [nhsNumberFile(), ssnFile()]) {
      const text = new TextDecoder().decode((quarantined.input as { bytes: Uint8Array }).bytes);
      for (const line of text.split('\n')) expect(body_text).not.toContain(line);
    }
    expect(body_text).not.toContain(VALID_NHS_NUMBER);
    expect(body_text).not.toContain(US_SSN);
    expect(body_text).not.toContain(audit_id);

    expect(draft.spec.claims).toHaveLength(1);
    expect(draft.dropped_citations).toEqual([expect.objectContaining({ path: '/claims/1/citations/0', source_id: audit_id, reason: 'source_not_processed' })]);
    expect(draft.dropped_claims).toEqual([expect.objectContaining({ path: '/claims/1' })]);
    expect(draft.spec.drafted_by).toMatchObject({ provider: 'openai', model: 'gpt-intake-test' });
    expect(draft.usage).toEqual({ provider: 'openai', model: 'gpt-intake-test', input_tokens: 3000, output_tokens: 1200, credits_charged: 5 });
    const after = await balances(service.db, owner.org_id);
    expect(before.available_credits - after.available_credits).toBe(5);
    expect(service.logs.join('\n')).not.toContain(VALID_NHS_NUMBER);
  });

  it('cites where the service finds each quote in the processed sources, not the source and lines the model named', async () => {
    const project_id = await newProject(service, owner);
    const sources = await extract(service, owner, project_id, [textFile(), markdownFile(), nhsNumberFile()]);
    const [brief_id, pathway_id, audit_id] = ['brief.txt', 'pathway.md', 'audit.txt'].map((name) => sources.get(name).id);
    const cite = (source_id: string, line_start: number, line_end: number, quote: string) => ({ source_id, line_start, line_end, quote });
    const claim = (text: string, citation: ReturnType<typeof cite>) => ({ text, topic: 'operational', provenance: 'user_declared', citations: [citation] });
    const spec: IntakeSpec = {
      ...emptyIntakeSpec(),
      // the right quote with the other source's id, with lines that do not hold it, with an invented source
      problem: { text: 'Patients wait too long', provenance: 'user_declared', citations: [cite(pathway_id, 1, 1, 'wait too long for a specialist review')] },
      stage: { value: 'prototype', provenance: 'user_declared', citations: [cite(brief_id, 2, 2, 'working prototype')] },
      claims: [
        claim('Faster triage', cite('src_0000000000000000', 30, 31, 'reduces time to triage by 40%')),
        claim('Photos reviewed quickly', cite(brief_id, 1, 1, 'The consultant reviews the photos within two working days')),
        // a quote no processed source holds (a quarantined source's line is not searched): dropped with its reason
        claim('Urgent pathway', cite(audit_id, 2, 2, 'referred on the urgent pathway')),
      ],
    } as IntakeSpec;
    openai.script.enqueue({ object: spec, usage: { input_tokens: 2000, output_tokens: 800 } });
    const started = await http(service, 'POST', `/v1/projects/${project_id}/intakes/parse`, {
      token: owner.session,
      body: { source_ids: [brief_id, pathway_id, audit_id] },
    });
    expect(started.status).toBe(202);
    const draft = await finished(service, owner, started.body.id);
    expect(draft.status, JSON.stringify(draft.error)).toBe('succeeded');
    expect(draft.spec.problem.citations).toEqual([cite(brief_id, 3, 3, 'wait too long for a specialist review')]);
    expect(draft.spec.stage.citations).toEqual([cite(brief_id, 6, 6, 'working prototype')]);
    expect(draft.spec.claims.map((each: { citations: unknown[] }) => each.citations)).toEqual([
      [cite(brief_id, 7, 7, 'reduces time to triage by 40%')],
      [cite(pathway_id, 8, 8, 'The consultant reviews the photos within two working days')],
    ]);
    expect(draft.dropped_citations).toEqual([expect.objectContaining({ path: '/claims/2/citations/0', source_id: audit_id, reason: 'source_not_processed' })]);
    expect(draft.dropped_claims).toEqual([expect.objectContaining({ path: '/claims/2' })]);
    expect(service.logs.join('\n')).not.toContain('referred on the urgent pathway');
  });

  it('keeps the answer when the provider bills more than was reserved: charged the reservation, the rest absorbed, usage and ledger agree', async () => {
    await overrunIsAbsorbed(service, owner, openai, 'openai');
  });

  it('marks the draft failed and charges nothing when the provider refuses the request', async () => {
    const project_id = await newProject(service, owner);
    const sources = await extract(service, owner, project_id, [textFile()]);
    openai.script.enqueue({ error_status: 400, message: 'fake bad request' });
    const before = await balances(service.db, owner.org_id);
    const started = await http(service, 'POST', `/v1/projects/${project_id}/intakes/parse`, {
      token: owner.session,
      body: { source_ids: [sources.get('brief.txt').id] },
    });
    expect(started.status).toBe(202);
    const draft = await finished(service, owner, started.body.id);
    expect(draft.status).toBe('failed');
    expect(draft.error).toMatchObject({ code: expect.any(String), message: expect.any(String) });
    expect(draft.spec).toBeNull();
    const after = await balances(service.db, owner.org_id);
    expect(after.available_credits).toBe(before.available_credits);
    expect(after.reserved_credits).toBe(0);
    // the project's list of drafts shows the failure, newest first, without a document
    openai.script.enqueue({ object: emptyIntakeSpec(), usage: { input_tokens: 100, output_tokens: 100 } });
    const second = await http(service, 'POST', `/v1/projects/${project_id}/intakes/parse`, {
      token: owner.session,
      body: { source_ids: [sources.get('brief.txt').id] },
    });
    await finished(service, owner, second.body.id);
    const listed = await http(service, 'GET', `/v1/projects/${project_id}/intake-drafts`, { token: owner.session });
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((item: any) => item.id)).toEqual([second.body.id, started.body.id]);
    expect(listed.body.data[1]).toMatchObject({ status: 'failed', error: draft.error });
    expect(listed.body.data[1]).not.toHaveProperty('spec');
    expect(listed.body.data[0].status).toBe('succeeded');
  });

  /** Starts a draft of the brief, waits for it to end, and returns it with the organization's balances before and after. */
  async function draftOfBrief() {
    const project_id = await newProject(service, owner);
    const sources = await extract(service, owner, project_id, [textFile()]);
    const before = await balances(service.db, owner.org_id);
    const requests_before = openai.requests.length;
    const started = await http(service, 'POST', `/v1/projects/${project_id}/intakes/parse`, {
      token: owner.session,
      body: { source_ids: [sources.get('brief.txt').id] },
    });
    expect(started.status).toBe(202);
    const draft = await finished(service, owner, started.body.id);
    const usage = await service.db.query('select id from ai_usage where subject_id = ?', [started.body.id]);
    return { draft, before, after: await balances(service.db, owner.org_id), requests: openai.requests.length - requests_before, usage };
  }

  it('gives up on a provider that never answers after its attempts, each within the timeout, and says so; nothing is charged', async () => {
    openai.script.enqueue(...Array.from({ length: 4 }, () => ({ no_answer: 'before_headers' as const })));
    const { draft, before, after, requests, usage } = await draftOfBrief();
    expect(draft.status).toBe('failed');
    expect(requests).toBe(4);
    expect(draft.failure).toEqual({
      code: 'PROVIDER_ERROR',
      message: 'OpenAI did not answer within 3 seconds. It was asked 4 times and gave no answer. Nothing was charged. Try again later.',
    });
    // nothing charged: no usage row, the reservation released, the balance as it was
    expect(usage).toEqual([]);
    expect(draft.usage).toBeNull();
    expect(after).toMatchObject({ available_credits: before.available_credits, reserved_credits: 0 });
  });

  it('gives up on a provider that stays rate limited or failing after its attempts, saying what it last answered; nothing is charged', async () => {
    openai.script.enqueue({ error_status: 429 }, { error_status: 500 }, { error_status: 429 }, { error_status: 500, message: 'The server had an error.' });
    const { draft, before, after, requests, usage } = await draftOfBrief();
    expect(draft.status).toBe('failed');
    expect(requests).toBe(4);
    expect(draft.failure).toEqual({
      code: 'PROVIDER_ERROR',
      message: 'OpenAI failed on its side (HTTP 500): The server had an error. It was asked 4 times and gave no answer. Nothing was charged. Try again later.',
    });
    expect(draft.failure.message).not.toMatch(/retried|Error\)|TypeError/);
    // the deprecated field carries the same value for one release
    expect(draft.error).toEqual(draft.failure);
    expect(usage).toEqual([]);
    expect(after).toMatchObject({ available_credits: before.available_credits, reserved_credits: 0 });
  });

  it('answers 422 naming the provider when byok_provider has no stored key', async () => {
    const project_id = await newProject(service, owner);
    const sources = await extract(service, owner, project_id, [textFile()]);
    const requests_before = openai.requests.length;
    const response = await http(service, 'POST', `/v1/projects/${project_id}/intakes/parse`, {
      token: owner.session,
      body: { source_ids: [sources.get('brief.txt').id], byok_provider: 'openai' },
    });
    expect(response.status).toBe(422);
    expect(response.body.message).toContain('openai');
    expect(openai.requests.length).toBe(requests_before);
  });
});

const OVERRUN_PROVIDERS = [
  { provider: 'anthropic', model_env: 'CRUCIBLE_ANTHROPIC_MODEL', start: startFakeAnthropic },
  { provider: 'google', model_env: 'CRUCIBLE_GOOGLE_MODEL', start: startFakeGoogle },
] as const;

for (const { provider, model_env, start } of OVERRUN_PROVIDERS) {
  describe(`a draft billed past its reservation by ${provider}`, () => {
    const HOSTED_KEY = `key-${provider}-${randomBytes(20).toString('hex')}`;
    let service: TestService;
    let fake: AiFake;
    let owner: TestUser;

    beforeAll(async () => {
      fake = await start({ expected_api_key: HOSTED_KEY });
      service = await startTestService({
        env: {
          CRUCIBLE_HOSTED_AI_PROVIDER: provider,
          CRUCIBLE_HOSTED_AI_API_KEY: HOSTED_KEY,
          [model_env]: `${provider}-intake-test`,
          [`CRUCIBLE_${provider.toUpperCase()}_BASE_URL`]: fake.base_url,
        },
      });
      owner = await signedInOwner(service, `overrun-${provider}`);
      await grant(service, owner.org_id, 10_000);
    });
    afterAll(async () => {
      await service?.stop();
      await fake?.close();
    });

    it('keeps the answer, charged the reservation, the rest absorbed; usage and ledger agree', async () => {
      await overrunIsAbsorbed(service, owner, fake, provider);
    });
  });
}

describe('canceling a draft', () => {
  const HOSTED_KEY = `sk-hosted-${randomBytes(20).toString('hex')}`;
  let service: TestService;
  let owner: TestUser;
  let slow: FakeServer;
  let release_replies: () => void = () => {};
  const replies_released = new Promise<void>((resolve) => {
    release_replies = resolve;
  });

  beforeAll(async () => {
    // An OpenAI chat-completions endpoint that holds every reply until the test releases it: a model still thinking.
    slow = await startFakeServer(async (request) => {
      await replies_released;
      const model = (request.body as { model?: string } | undefined)?.model ?? 'unknown';
      return {
        status: 200,
        body: {
          id: 'chatcmpl-slow',
          object: 'chat.completion',
          created: 1_700_000_000,
          model,
          choices: [{ index: 0, message: { role: 'assistant', content: '{}', refusal: null }, logprobs: null, finish_reason: 'stop' }],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        },
      };
    });
    service = await startTestService({
      env: {
        CRUCIBLE_HOSTED_AI_PROVIDER: 'openai',
        CRUCIBLE_HOSTED_AI_API_KEY: HOSTED_KEY,
        CRUCIBLE_OPENAI_MODEL: 'gpt-slow-test',
        CRUCIBLE_OPENAI_BASE_URL: `${slow.url}/v1`,
      },
    });
    owner = await signedInOwner(service, 'cancel');
    await grant(service, owner.org_id, 10_000);
  });
  afterAll(async () => {
    release_replies();
    await service?.stop();
    await slow?.close();
  });

  it('stops a running draft: it ends canceled and the reservation is settled at what was used (nothing)', async () => {
    const project_id = await newProject(service, owner);
    const sources = await extract(service, owner, project_id, [textFile()]);
    const before = await balances(service.db, owner.org_id);
    const started = await http(service, 'POST', `/v1/projects/${project_id}/intakes/parse`, {
      token: owner.session,
      body: { source_ids: [sources.get('brief.txt').id] },
    });
    expect(started.status).toBe(202);
    await eventually(async () => slow.requests.length > 0, 30_000, 'the model call to be in flight');
    const held = await balances(service.db, owner.org_id);
    expect(held.reserved_credits).toBe(started.body.credits_reserved);

    const canceled = await http(service, 'POST', `/v1/intake-drafts/${started.body.id}/cancel`, { token: owner.session });
    expect(canceled.status).toBe(200);
    const draft = await finished(service, owner, started.body.id);
    expect(draft.status).toBe('canceled');
    expect(draft.failure.code).toBe('CANCELED');
    expect(draft.error).toEqual(draft.failure);
    const after = await eventually(async () => {
      const now = await balances(service.db, owner.org_id);
      return now.reserved_credits === 0 ? now : null;
    });
    expect(after.available_credits).toBe(before.available_credits);

    const again = await http(service, 'POST', `/v1/intake-drafts/${started.body.id}/cancel`, { token: owner.session });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('CONFLICT');
  });
});

describe('canceling a draft no worker has picked up', () => {
  let service: TestService;
  let owner: TestUser;

  beforeAll(async () => {
    service = await startTestService({ mode: 'api' }); // no worker: the workflow is started but never runs
    owner = await signedInOwner(service, 'cancel-queued');
    await grant(service, owner.org_id, 1000);
  });
  afterAll(async () => {
    await service?.stop();
  });

  it('ends a queued draft at once, with nothing reserved or charged', async () => {
    const project_id = await newProject(service, owner);
    const sources = await extract(service, owner, project_id, [textFile()]);
    const before = await balances(service.db, owner.org_id);
    const started = await http(service, 'POST', `/v1/projects/${project_id}/intakes/parse`, {
      token: owner.session,
      body: { source_ids: [sources.get('brief.txt').id] },
    });
    expect(started.body.status).toBe('queued');
    const canceled = await http(service, 'POST', `/v1/intake-drafts/${started.body.id}/cancel`, { token: owner.session });
    expect(canceled.status).toBe(200);
    expect(canceled.body.status).toBe('canceled');
    expect(canceled.body.started_at).toBeNull();
    const handle = service.service.client.workflow.getHandle(`intake-draft-${started.body.id}`);
    expect((await handle.describe()).status.name).not.toBe('COMPLETED');
    expect(await balances(service.db, owner.org_id)).toEqual(before);
  });
});
