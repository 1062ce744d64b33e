// One intake from prose to plan over HTTP on the real service: the built-in drafter reads a paragraph of plain
// sentences, a correction removes the field's unknown (a revision holding both is refused with 422 naming the field),
// and the plan shows exactly what the confirmed revision holds.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IntakeSpec } from '../../domain/contracts/intakeSpec.ts';
import { grantCredits } from '../../store/credits/ledger.ts';
import { eventually, http, signedInOwner, startTestService, type TestService, type TestUser } from '../support/harness.ts';

const PARAGRAPH =
  'People with heart failure are readmitted too often in the weeks after they leave hospital. ' +
  'We want to build an app that lets them record their weight and breathlessness every morning. ' +
  'It would be used by the heart failure specialist nurses, who would phone anyone whose readings worsen. ' +
  'It would be used in the community heart failure service. ' +
  'Nothing is built yet; we have mock-ups of the screens. ' +
  'The buyer would be the integrated care board.';

let service: TestService;
let owner: TestUser;

beforeAll(async () => {
  service = await startTestService();
  owner = await signedInOwner(service, 'intake-plan-owner');
  await service.db.transaction((tx) => grantCredits(tx, { org_id: owner.org_id, credits: 1000, reason: 'intake plan test grant', caused_by: 'test' }));
});
afterAll(async () => {
  await service?.stop();
});

async function draftOf(project_id: string): Promise<{ id: string; spec: IntakeSpec }> {
  const extracted = await http(service, 'POST', '/v1/intakes/extract', { token: owner.session, body: { text: PARAGRAPH, project_id } });
  expect(extracted.status).toBe(201);
  const started = await http(service, 'POST', `/v1/projects/${project_id}/intakes/parse`, {
    token: owner.session,
    body: { source_ids: [extracted.body.sources[0].id] },
  });
  expect(started.status).toBe(202);
  const draft = await eventually(
    async () => {
      const read = await http(service, 'GET', `/v1/intake-drafts/${started.body.id}`, { token: owner.session });
      return ['succeeded', 'failed', 'canceled'].includes(read.body.status) ? read.body : null;
    },
    60_000,
    'the draft to finish',
  );
  expect(draft.status).toBe('succeeded');
  return { id: draft.id, spec: draft.spec };
}

const typed = (text: string) => ({ text, provenance: 'user_declared' as const, citations: [] });

describe('a prose paragraph from draft to plan', () => {
  let project_id: string;
  let draft: { id: string; spec: IntakeSpec };

  beforeAll(async () => {
    const created = await http(service, 'POST', '/v1/projects', { token: owner.session, body: { title: 'Heart failure at home', org_id: owner.org_id } });
    project_id = created.body.id;
    draft = await draftOf(project_id);
  });

  it('drafts every part the paragraph states, each citing its own sentence, and says how much it found', () => {
    const { spec } = draft;
    expect(spec.problem?.text).toBe('People with heart failure are readmitted too often in the weeks after they leave hospital.');
    expect(spec.proposed_solution?.text).toBe('We want to build an app that lets them record their weight and breathlessness every morning.');
    expect(spec.intended_users.map((user) => user.text)).toEqual([
      'It would be used by the heart failure specialist nurses, who would phone anyone whose readings worsen.',
    ]);
    expect(spec.care_setting?.text).toBe('It would be used in the community heart failure service.');
    expect(spec.stage.value).toBe('idea');
    expect(spec.business.buyer?.text).toBe('The buyer would be the integrated care board.');
    const unknown = spec.unknowns.map((u) => u.field);
    for (const field of ['problem', 'proposed_solution', 'intended_users', 'care_setting', 'stage', 'business.buyer', 'business.proposed_user']) {
      expect(unknown).not.toContain(field);
    }
    expect(spec.drafted_by?.summary).toBe(
      'Found 6 of 8 parts in your material (problem, solution, users, care setting, stage, buyer); not found: what people do today, risks.',
    );
  });

  it('refuses a revision that holds a value and an unknown for the same field, naming the field and what to do', async () => {
    const spec = structuredClone(draft.spec);
    spec.business.current_alternative = typed('Patients weigh themselves and call the practice if they feel worse.');
    const index = spec.unknowns.findIndex((u) => u.field === 'business.current_alternative');
    expect(index).toBeGreaterThanOrEqual(0);
    const refused = await http(service, 'POST', `/v1/projects/${project_id}/intakes`, { token: owner.session, body: { spec, draft_id: draft.id } });
    expect(refused.status).toBe(422);
    expect(refused.body.code).toBe('VALIDATION_FAILED');
    expect(refused.body.message).toMatch(/^Remove Current alternative from the unknowns/);
    expect(refused.body.details).toEqual([
      { path: `/spec/unknowns/${index}`, field: 'business.current_alternative', message: expect.stringMatching(/remove this entry/) },
    ]);
    const listed = await http(service, 'GET', `/v1/projects/${project_id}/intakes`, { token: owner.session });
    expect(listed.body.data).toEqual([]); // nothing was stored
  });

  it('plans from the confirmed revision and shows exactly what it holds: the corrected user, the stated buyer, real unknowns only', async () => {
    const spec = structuredClone(draft.spec);
    spec.intended_users = [typed('Heart failure specialist nurses in the community team')];
    spec.business.proposed_user = typed('The heart failure specialist nurse on duty each day');
    spec.business.current_alternative = typed('Patients weigh themselves and call the practice if they feel worse.');
    spec.unknowns = spec.unknowns.filter((u) => u.field !== 'business.current_alternative');
    const confirmed = await http(service, 'POST', `/v1/projects/${project_id}/intakes`, { token: owner.session, body: { spec, draft_id: draft.id } });
    expect(confirmed.status).toBe(201);
    expect(confirmed.body.dropped_citations).toEqual([]);

    const plan = await http(service, 'POST', `/v1/projects/${project_id}/evaluation-plans`, { token: owner.session, body: {} });
    expect(plan.status).toBe(201);
    expect(plan.body.intake_revision).toBe(confirmed.body.revision);
    const questions = plan.body.plan.business_questions;
    expect(questions.proposed_user).toMatchObject({
      field: 'business.proposed_user',
      status: 'stated',
      stated: 'The heart failure specialist nurse on duty each day',
    });
    expect(questions.buyer).toMatchObject({ status: 'stated', stated: 'The buyer would be the integrated care board.' });
    expect(questions.buyer.cited_sources).toHaveLength(1);
    expect(questions.current_alternative).toMatchObject({ status: 'stated', stated: 'Patients weigh themselves and call the practice if they feel worse.' });
    expect(questions.budget_owner.status).toBe('unknown'); // the paragraph does not say whose budget
    const unknown = questions.unknowns.map((u: { field: string }) => u.field);
    expect(unknown).toContain('business.budget_owner');
    for (const field of ['business.proposed_user', 'business.buyer', 'business.current_alternative']) expect(unknown).not.toContain(field);
  });

  it('leaves the proposed user unknown in the plan when the revision has none, even if intended users are stated', async () => {
    const spec = structuredClone(draft.spec);
    spec.business.proposed_user = null;
    spec.unknowns = [...spec.unknowns, { field: 'business.proposed_user', question: 'Who is the proposed day-to-day user?' }];
    const confirmed = await http(service, 'POST', `/v1/projects/${project_id}/intakes`, { token: owner.session, body: { spec } });
    expect(confirmed.status).toBe(201);
    const plan = await http(service, 'POST', `/v1/projects/${project_id}/evaluation-plans`, { token: owner.session, body: {} });
    expect(plan.body.plan.business_questions.proposed_user).toMatchObject({ field: 'business.proposed_user', status: 'unknown', stated: null });
  });
});
