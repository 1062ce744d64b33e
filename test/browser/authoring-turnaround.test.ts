// An authoring session from an intake that states a turnaround ("reviews happen within 48 hours"), in Chromium against
// the real service and the built-in offline provider: the intake is drafted from a pasted paragraph and confirmed in
// the app, the session asks for the time a review takes in words instead of converting 48 hours into it, and the page
// never says the model is complete while the turnaround stands as the review time.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOperator } from '../../runtime/operator.ts';
import { launchBrowser, newPage, screenshot, signInThroughForm } from '../support/browser.ts';
import { http, signedInOwner, startTestService, type TestService, type TestUser } from '../support/harness.ts';
import { technicalText } from '../support/plainLanguage.ts';

/** A clinician's paragraph: the demand, the staff, and a turnaround given as a promise, not as the time a review takes. */
const PARAGRAPH =
  'Physiotherapy referrals from GPs wait too long for a first review in our community service. ' +
  'We want to build an online referral form that lets physiotherapists review each referral faster. ' +
  'About 4 referrals an hour arrive on weekdays. ' +
  'Reviews happen within 48 hours of referral. ' +
  'Two physiotherapists review referrals at any one time.';

let service: TestService;
let browser: Browser;
let owner: TestUser;

beforeAll(async () => {
  service = await startTestService();
  owner = await signedInOwner(service, 'web-turnaround');
  await runOperator(service.db, { command: 'grant-credits', flags: { org: owner.org_id, credits: '10000', reason: 'browser test' } });
  browser = await launchBrowser();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

/** What the page says, without its closed technical details. */
// biome-ignore lint/performance/useDomNodeTextContent: what is rendered, without the closed technical details
const onScreen = (page: Page) => page.locator('main').innerText();

describe('an intake with a turnaround', () => {
  it('asks for the time a review takes instead of converting “within 48 hours”, and is not complete while the turnaround stands', async ({ onTestFailed }) => {
    const project = await http(service, 'POST', '/v1/projects', { token: owner.session, body: { title: 'Physiotherapy referrals', org_id: owner.org_id } });
    expect(project.status).toBe(201);
    const project_id = project.body.id;
    const extracted = await http(service, 'POST', '/v1/intakes/extract', { token: owner.session, body: { project_id, text: PARAGRAPH } });
    expect(extracted.status).toBe(201);

    const { context, page } = await newPage(browser);
    onTestFailed(async () => {
      await screenshot(page, 'authoring-turnaround-failed');
    });
    await signInThroughForm(page, service, owner);
    await page.goto(`${service.url}/projects/${project_id}`);
    await page.getByRole('button', { name: /Draft the intake from 1 processed source/ }).click();
    await page.getByText('Drafted. Check each card').waitFor({ timeout: 60_000 });
    await page.getByRole('button', { name: 'Confirm this intake' }).click();
    await page.getByRole('heading', { name: 'Confirmed as revision 1' }).waitFor();

    await page.goto(`${service.url}/projects/${project_id}`);
    await page.getByRole('heading', { name: 'Authoring sessions (beta)' }).waitFor();
    await page.getByRole('button', { name: 'Start an authoring session' }).click();
    await page.getByRole('heading', { name: 'Checkpoint 1' }).waitFor({ timeout: 60_000 });

    // the turnaround is a question to the person, in words, with the intake's own phrase: never a converted review time
    const question = page.getByTestId('question').filter({ hasText: 'within 48 hours' });
    await question.waitFor();
    const asked = (await question.textContent()) ?? '';
    expect(asked).toContain('The intake says “within 48 hours”: that is a turnaround or a deadline, not the time the work takes.');
    expect(asked).not.toMatch(/2,?880|\bslot\b|mean_service/);
    // the numbers the intake does state are taken from it, not asked for
    const settings = (await page.getByTestId('setting').allTextContents()).join('\n');
    expect(settings).not.toMatch(/2,?880|48 hours/);
    expect(settings).toContain('4 per hour');
    expect(settings).toContain('About 4 referrals an hour arrive on weekdays.');
    expect(settings).toContain('Two physiotherapists review referrals at any one time.');
    let screen = await onScreen(page);
    // the setting still open is named as it will read once answered, never by its id
    expect((await page.getByTestId('model-problem').allTextContents()).join('\n')).toContain(
      'Mean time a clinician spends per patient is not set yet: answer its question.',
    );
    expect(screen).not.toMatch(/mean service/i);
    expect(screen).not.toContain('the model is complete');
    expect(screen).not.toContain('The model is now complete');
    await expect(page.getByRole('button', { name: 'Approve this world' }).isDisabled()).resolves.toBe(true);
    expect(await technicalText(page)).toEqual([]);
    await screenshot(page, 'authoring-turnaround-question');

    // the person answers with the turnaround anyway: the model check still names it, and the model is not complete
    const slot = (await question.locator('input[name^="answer-"]').getAttribute('name'))!.slice('answer-'.length);
    for (const input of await page.locator('input[name^="answer-"]').all()) {
      const name = (await input.getAttribute('name'))!;
      await input.fill(name === `answer-${slot}` ? '2880' : '20');
    }
    await page.locator(`input[name="note-${slot}"]`).fill('Our service standard');
    await page.getByRole('button', { name: 'Send answers' }).click();
    await page.getByRole('heading', { name: 'Checkpoint 2' }).waitFor({ timeout: 60_000 });
    // the answer keeps where the person says it comes from, and that it is the intake's turnaround
    expect(await page.getByTestId('setting').filter({ hasText: '2,880 minutes' }).textContent()).toContain(
      'Our service standard (the same time as “within 48 hours” in the intake)',
    );
    expect((await page.getByTestId('change').allTextContents()).join('\n')).toContain('The model now runs, but it is not complete yet');
    const warning = page.getByTestId('model-check').filter({ hasText: 'within 48 hours' });
    await warning.waitFor();
    expect(await warning.textContent()).toContain('that is a turnaround or a deadline, not the time the work takes');
    screen = await onScreen(page);
    expect(screen).toContain('Not yet: the model runs');
    expect(screen).not.toContain('Yes: the model is complete');
    expect(screen).not.toContain('The model is now complete');
    expect((await page.getByTestId('next-step').allTextContents()).join('\n')).not.toMatch(/approve/i);
    expect(await technicalText(page)).toEqual([]);
    await screenshot(page, 'authoring-turnaround-stands');

    // the time a review actually takes, with where it comes from: now the model is complete
    await page.getByLabel('Value to change').selectOption({ value: slot });
    await page.getByLabel('New value').fill('25');
    await page.getByLabel('Reference for it (optional)').fill('Timed review audit, March');
    await page.getByRole('button', { name: 'Revise' }).click();
    await page.getByRole('heading', { name: 'Checkpoint 3' }).waitFor({ timeout: 60_000 });
    await page.getByText('Yes: the model is complete and can be approved.').waitFor();
    expect(await page.getByTestId('model-check').filter({ hasText: 'within 48 hours' }).count()).toBe(0);
    await expect(page.getByRole('button', { name: 'Approve this world' }).isEnabled()).resolves.toBe(true);
    await screenshot(page, 'authoring-turnaround-settled');
    await context.close();
  }, 240_000);
});
