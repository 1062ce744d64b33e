// The rest of the app's flows in Chromium against the real service (offline provider): the organization's members and
// roles on Settings, the IntakeSpec form (edit a field, confirm, and the confirmed revision holds the edit), and an
// authoring session from its questions through answers and a checkpoint's changes to approval and the world revision,
// plus a session that stopped at its AI preparation limit (cap_reached).
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOperator } from '../../runtime/operator.ts';
import { projectWithIntake } from '../support/authoring.ts';
import { PHONE, launchBrowser, newPage, screenshot, signInThroughForm } from '../support/browser.ts';
import { eventually, http, signedInMember, signedInOwner, startTestService, type TestService, type TestUser } from '../support/harness.ts';

let service: TestService;
let browser: Browser;
let owner: TestUser;

beforeAll(async () => {
  service = await startTestService();
  owner = await signedInOwner(service, 'web-screens');
  await runOperator(service.db, { command: 'grant-credits', flags: { org: owner.org_id, credits: '100000', reason: 'browser test' } });
  browser = await launchBrowser();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

describe('members and roles on Settings', () => {
  it("lists the organization's members with their roles, read-only, to a plain member", async ({ onTestFailed }) => {
    const admin = await signedInMember(service, owner.org_id, 'admin');
    const member = await signedInMember(service, owner.org_id, 'member');
    const { context, page } = await newPage(browser);
    onTestFailed(async () => {
      await screenshot(page, 'members-failed');
    });
    await signInThroughForm(page, service, member);
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('heading', { name: 'Members and roles' }).waitFor();
    const rows = page.getByTestId('member-row');
    await rows.nth(2).waitFor();
    expect(await rows.count()).toBe(3);
    const text = await rows.allTextContents();
    expect(text[0]).toContain(owner.email);
    expect(text[0]).toContain('owner');
    expect(text[1]).toContain(admin.email);
    expect(text[1]).toContain('admin');
    expect(text[2]).toContain(`${member.email} (you)`);
    expect(text[2]).toContain('member');
    const section = page.locator('section[aria-labelledby="members-heading"]');
    expect(await section.textContent()).toContain('you are member');
    // read-only: nothing in the list changes a role
    expect(await section.getByRole('button').count()).toBe(0);
    expect(await section.getByRole('combobox').count()).toBe(0);
    await screenshot(page, 'settings-members');
    await context.close();
  });
});

describe('the IntakeSpec form', () => {
  it('edits a field of the drafted IntakeSpec in the form, shows a problem at its field, and confirms the edit', async ({ onTestFailed }) => {
    const project = await http(service, 'POST', '/v1/projects', { token: owner.session, body: { title: 'Triage form', org_id: owner.org_id } });
    expect(project.status).toBe(201);
    const project_id = project.body.id;
    const extracted = await http(service, 'POST', '/v1/intakes/extract', {
      token: owner.session,
      body: { project_id, text: 'Problem: patients wait too long for a same-day appointment.\nOur solution: a digital triage form for the reception desk.' },
    });
    expect(extracted.status).toBe(201);
    const { context, page } = await newPage(browser);
    onTestFailed(async () => {
      await screenshot(page, 'intake-form-failed');
    });
    await signInThroughForm(page, service, owner);
    await page.getByRole('link', { name: 'Triage form' }).click();
    await page.getByRole('button', { name: /Draft the intake from 1 processed source/ }).click();
    await page.getByTestId('source-pane').locator('[data-line]').first().waitFor();

    // the form built from the schema is an advanced tab: the version is shown read-only, statements are fieldsets
    await page.getByRole('tab', { name: 'Form (advanced)' }).click();
    const form = page.getByRole('form', { name: 'Intake form' });
    await form.waitFor();
    expect(await form.getByLabel('version', { exact: true }).textContent()).toBe('1.0.0');
    const problem = form.getByRole('group', { name: 'problem', exact: true });
    const problemText = problem.getByLabel('text', { exact: true });
    expect(await problemText.inputValue()).toMatch(/same-day appointment/);
    await screenshot(page, 'intake-form');

    // an empty statement is refused by the API; its message is shown at the field
    await problemText.fill('');
    await page.getByRole('button', { name: 'Confirm this intake' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'Something in what you entered needs correcting' });
    await alert.waitFor();
    // the code is for support: inside the error's technical details
    expect(await alert.locator('[data-technical]').textContent()).toContain('VALIDATION_FAILED');
    await problem.locator('.field-problem').first().waitFor();
    await screenshot(page, 'intake-form-problem');

    const corrected = 'Patients wait more than two weeks for a same-day clinic slot.';
    await problemText.fill(corrected);
    // the JSON view shows the same document
    await page.getByRole('tab', { name: 'JSON (advanced)' }).click();
    expect(JSON.parse(await page.getByLabel('The intake as JSON').inputValue()).problem.text).toBe(corrected);
    // and so do the cards beside the material
    await page.getByRole('tab', { name: 'Beside your material' }).click();
    expect(await page.getByRole('textbox', { name: 'Problem' }).inputValue()).toBe(corrected);
    await page.getByRole('button', { name: 'Confirm this intake' }).click();
    await page.getByRole('heading', { name: 'Confirmed as revision 1' }).waitFor();

    const revision = await http(service, 'GET', `/v1/projects/${project_id}/intakes/1`, { token: owner.session });
    expect(revision.status).toBe(200);
    expect(revision.body.spec.problem.text).toBe(corrected);
    expect(revision.body.spec.problem.provenance).toBe('user_declared');
    await context.close();
  }, 120_000);
});

describe('authoring sessions', () => {
  it('starts a session, answers its questions, shows what changed, revises a value, approves, and links the world revision', async ({ onTestFailed }) => {
    const project_id = await projectWithIntake(service, owner);
    const { context, page } = await newPage(browser);
    onTestFailed(async () => {
      await screenshot(page, 'authoring-failed');
    });
    await signInThroughForm(page, service, owner);
    await page.goto(`${service.url}/projects/${project_id}`);
    await page.getByRole('heading', { name: 'Authoring sessions (beta)' }).waitFor();
    await page.getByRole('button', { name: 'Start an authoring session' }).click();

    await page.getByRole('heading', { name: 'Authoring session' }).waitFor();
    await page.getByRole('heading', { name: 'Checkpoint 1' }).waitFor({ timeout: 60_000 });
    await page.getByTestId('session-status').getByText('waiting for you').waitFor();
    const questions = page.getByTestId('question');
    expect(await questions.count()).toBe(4);
    // the questions in words, from their labels and units
    const asked = (await questions.allTextContents()).join('\n');
    expect(asked).toContain('How many clinicians are available at the same time?');
    expect(asked).not.toContain('What is the clinicians');
    // the offline provider cannot follow written instructions: no box for them, a sentence instead
    expect(await page.getByLabel('Ask for another AI iteration (optional instructions)').count()).toBe(0);
    await page.getByTestId('no-instructions').getByText('Written instructions need a hosted AI model.').waitFor();
    // nothing is guessed: no setting has a value before the answers
    expect(await page.getByTestId('setting').count()).toBe(0);
    // a setting still to be answered is said as such, in the model's problems and in the next steps alike
    const next_first = (await page.getByTestId('next-step').allTextContents()).join('\n');
    expect(next_first).toContain('Patients arriving per hour is not set yet: answer its question.');
    expect(next_first).not.toMatch(/does not exist/);
    expect(await page.getByTestId('model-problem').allTextContents()).toContain('Patients arriving per hour is not set yet: answer its question.');
    await expect(page.getByRole('button', { name: 'Approve this world' }).isDisabled()).resolves.toBe(true);
    // what the first checkpoint sets, in sentences: the limit not reached is not said as "no longer reached"
    const first = await page.getByTestId('change').allTextContents();
    expect(first).toContain('The AI preparation limit is not reached.');
    expect(first).toContain('Wait for care has no value yet from the quick test run.');
    await screenshot(page, 'authoring-questions');

    const values: Record<string, string> = { arrival_rate: '4', mean_service: '20', servers: '2', 'treatment.mean_service': '12' };
    for (const [slot, value] of Object.entries(values)) await page.locator(`input[name="answer-${slot}"]`).fill(value);
    await page.locator('input[name="note-servers"]').fill('Clinic rota 2026');
    await page.getByRole('button', { name: 'Send answers' }).click();

    await page.getByRole('heading', { name: 'Checkpoint 2' }).waitFor({ timeout: 60_000 });
    const changes = page.getByTestId('change');
    await changes.first().waitFor();
    const changed = (await changes.allTextContents()).join('\n');
    // each change is a sentence: the setting by its name, a variant's change by its label, the model's state in words
    expect(changed).toContain('Patients arriving per hour is set to 4 per hour.');
    expect(changed).toContain('With the technology: mean time a clinician spends per patient is set to 12 minutes.');
    expect(changed).toContain('The model is now complete: it can be run.');
    expect(changed).toContain('Wait for care is now measured for every variant in the quick test run; before, it had no value.');
    expect(changed).toContain('Answered: How many patients arrive per hour, on average?');
    expect(changed).not.toMatch(/A change in|: coverage|—|\?\./);
    // the settings first, the answered questions last
    const order = await changes.allTextContents();
    expect(order[0]).toMatch(/ is set to /);
    expect(order.at(-1)).toMatch(/^Answered: /);
    expect(await page.getByText(/^So far: /).textContent()).not.toMatch(/\b1 credits\b/);
    expect(await page.getByTestId('setting').count()).toBeGreaterThanOrEqual(3);
    expect(await page.getByTestId('question').count()).toBe(0);
    expect(await page.getByTestId('next-step').count()).toBeGreaterThan(0);
    // the tool a next step names is for the technical view
    expect(await page.locator('[data-technical]').last().textContent()).toContain('synthetic_simulation');
    await screenshot(page, 'authoring-checkpoint');

    // revise one value with its reference: checkpoint 3 says exactly what changed
    await page.getByLabel('Value to change').selectOption({ value: 'servers' });
    await page.getByLabel('New value').fill('3');
    await page.getByLabel('Reference for it (optional)').fill('Clinic rota 2026, two GPs and one nurse practitioner');
    await page.getByRole('button', { name: 'Revise' }).click();
    await page.getByRole('heading', { name: 'Checkpoint 3' }).waitFor({ timeout: 60_000 });
    const revised = await page.getByTestId('change').allTextContents();
    expect(revised).toEqual(['Clinicians available at once changed from 2 to 3.']);
    expect(await page.getByTestId('setting').filter({ hasText: 'Clinicians available at once' }).textContent()).toContain('reference: Clinic rota 2026');

    await page.getByRole('button', { name: 'Approve this world' }).click();
    await page.getByTestId('session-status').getByText('approved').waitFor({ timeout: 60_000 });
    const link = page.getByRole('link', { name: 'open the world revision to estimate and run it' });
    await link.waitFor();
    await screenshot(page, 'authoring-approved');
    const session_id = new URL(page.url()).pathname.split('/').pop()!;
    const session = await http(service, 'GET', `/v1/authoring-sessions/${session_id}`, { token: owner.session });
    expect(session.body.status).toBe('approved');
    expect(await link.getAttribute('href')).toBe(`/world-revisions/${session.body.world_revision_id}`);
    await link.click();
    await page.getByRole('heading', { name: /revision 1/ }).waitFor();
    // approving ran nothing
    expect((await service.db.query('select id from runs where world_revision_id = ?', [session.body.world_revision_id])).length).toBe(0);

    await page.goto(`${service.url}/authoring-sessions/${session_id}`);
    await page.getByTestId('session-status').getByText('approved').waitFor();
    await page.setViewportSize(PHONE);
    await screenshot(page, 'authoring-approved-phone');
    await context.close();
  }, 180_000);

  it("starts a session from a sample world, whose values and their sources become the first checkpoint's settings", async ({ onTestFailed }) => {
    const project_id = await projectWithIntake(service, owner);
    const { context, page } = await newPage(browser);
    onTestFailed(async () => {
      await screenshot(page, 'authoring-sample-failed');
    });
    await signInThroughForm(page, service, owner);
    await page.goto(`${service.url}/projects/${project_id}`);
    await page.getByLabel('Starting world (optional)').selectOption({ label: 'sample: remote monitoring admissions' });
    await page.getByRole('button', { name: 'Start an authoring session' }).click();
    await page.getByRole('heading', { name: 'Checkpoint 1' }).waitFor({ timeout: 60_000 });
    const session_id = new URL(page.url()).pathname.split('/').pop()!;
    const session = await http(service, 'GET', `/v1/authoring-sessions/${session_id}`, { token: owner.session });
    const settings = Object.keys(session.body.checkpoint.world.settings);
    expect(settings.length).toBeGreaterThan(0);
    expect(await page.getByTestId('setting').count()).toBe(settings.length);
    // a probability reads as a percentage and a count as its number, never "0.3 probability" or "5 people" beds
    const from_sample = (await page.getByTestId('change').allTextContents()).join('\n');
    expect(from_sample).toContain('Beds is set to 5.');
    expect(from_sample).toContain('P admission is set to 30%.');
    expect(from_sample).not.toMatch(/\d probability|\d people/);
    // the next steps name settings and measures by their labels: no slot id, "=" or "warm-up to horizon"
    const next = (await page.getByTestId('next-step').allTextContents()).join('\n');
    expect(next).toContain('P admission (30%) rests on an assumption: cite a measurement or a reference for it.');
    expect(next).toContain(
      'has no time window of its own: it is measured from the end of the warm-up (90 days in) to the end of the simulated period (730 days).',
    );
    expect(next).not.toMatch(/ = |horizon \(|remote monitoring\.p/);
    // what the quick run left unfinished is said only beside a time or a queue, as a sentence, never as "still waiting at the end: 40"
    const measured = page.getByTestId('measured');
    expect(await measured.count()).toBe(5);
    expect((await measured.allTextContents()).join('\n')).not.toMatch(/still waiting at the end:|not finished by the end:/);
    for (const label of ['Emergency admissions', 'Admissions per enrolled patient', 'Bed occupancy', 'Patients completing follow-up'])
      expect(await measured.filter({ hasText: label }).getByTestId('still-waiting').count(), label).toBe(0);
    await screenshot(page, 'authoring-from-sample');
    await context.close();
  }, 120_000);

  it('shows cap_reached and offers no further AI iteration once the session reached its preparation limit', async ({ onTestFailed }) => {
    const project_id = await projectWithIntake(service, owner);
    const created = await http(service, 'POST', `/v1/projects/${project_id}/authoring-sessions`, {
      token: owner.session,
      body: { ai_limits: { calls_max: 0 } },
      headers: { 'idempotency-key': `k-cap-${Date.now()}` },
    });
    expect(created.status).toBe(201);
    const waiting = await eventually(
      async () => {
        const read = await http(service, 'GET', `/v1/authoring-sessions/${created.body.id}`, { token: owner.session });
        return read.body.status === 'waiting' || read.body.status === 'failed' ? read.body : null;
      },
      60_000,
      'the capped session to wait',
    );
    expect(waiting.status).toBe('waiting');
    expect(waiting.cap_reached).toBe(true);

    const { context, page } = await newPage(browser);
    onTestFailed(async () => {
      await screenshot(page, 'authoring-cap-failed');
    });
    await signInThroughForm(page, service, owner);
    await page.goto(`${service.url}/authoring-sessions/${created.body.id}`);
    await page.getByTestId('session-status').getByText('AI preparation limit reached').waitFor();
    await page.getByText('reached its AI preparation limit').waitFor();
    expect(await page.getByLabel('Ask for another AI iteration (optional instructions)').count()).toBe(0);
    // answers are still applied by rule
    expect(await page.getByTestId('question').count()).toBeGreaterThan(0);
    await screenshot(page, 'authoring-cap-reached');
    await context.close();
  }, 120_000);
});
