// The evaluation flow in Chromium: a pasted paragraph goes through drafting, correction and confirmation, the plan and
// its explicit approval, to a finished concept review (offline provider, fake Europe PMC) whose claims are read.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOperator } from '../../runtime/operator.ts';
import { type FakeEuropePmc, startFakeEuropePmc } from '../fakes/europepmc.ts';
import { PHONE, launchBrowser, newPage, screenshot, signInThroughForm } from '../support/browser.ts';
import { http, signedInOwner, startTestService, type TestService, type TestUser } from '../support/harness.ts';
import { fiveLiteratureRecords } from '../support/reviewFixtures.ts';

const PARAGRAPH = [
  'Problem: heart failure patients are readmitted to hospital within 30 days of discharge.',
  'Our solution: a remote monitoring app that nurses use to review daily weight and symptoms.',
  'Intended users: heart failure nurses in community care.',
  'Stage: idea, nothing is built yet.',
].join('\n');

let service: TestService;
let pmc: FakeEuropePmc;
let browser: Browser;
let user: TestUser;

beforeAll(async () => {
  pmc = await startFakeEuropePmc(fiveLiteratureRecords());
  service = await startTestService({ env: { CRUCIBLE_EUROPE_PMC_BASE_URL: pmc.base_url } });
  user = await signedInOwner(service, 'web-review');
  await runOperator(service.db, { command: 'grant-credits', flags: { org: user.org_id, credits: '1000', reason: 'browser test' } });
  browser = await launchBrowser();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
  await pmc?.close();
});

describe('the evaluation flow in the browser', () => {
  it('goes from a pasted paragraph to a finished review and reads its claims', async ({ onTestFailed }) => {
    const { context, page } = await newPage(browser);
    onTestFailed(async () => {
      await screenshot(page, 'review-flow-failed');
    });
    await signInThroughForm(page, service, user);

    await page.getByLabel('New project title').fill('Heart failure remote monitoring');
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.getByRole('heading', { name: 'Heart failure remote monitoring' }).waitFor();

    await page.getByLabel('Paste text').fill(PARAGRAPH);
    await page.getByRole('button', { name: 'Add material' }).click();
    const source = page.getByTestId('source').first();
    await source.getByText('processed').waitFor();
    await screenshot(page, 'project-material');

    await page.getByRole('button', { name: /Draft the intake from 1 processed source/ }).click();
    await page.getByTestId('source-pane').locator('[data-line]').first().waitFor();
    await screenshot(page, 'intake-draft-cards');
    // the JSON view (an advanced tab) holds the draft; a correction made there is what gets confirmed
    await page.getByRole('tab', { name: 'JSON (advanced)' }).click();
    const editor = page.getByLabel('The intake as JSON');
    const drafted = JSON.parse(await editor.inputValue());
    expect(drafted.problem.text).toMatch(/heart failure/);
    const corrected = { ...drafted, care_setting: { text: 'Community heart failure nursing service', provenance: 'user_declared', citations: [] } };
    await editor.fill(JSON.stringify(corrected, null, 2));
    await screenshot(page, 'intake-draft-json');

    await page.getByRole('button', { name: 'Confirm this intake' }).click();
    await page.getByRole('heading', { name: 'Confirmed as revision 1' }).waitFor();
    const projects0 = await http(service, 'GET', `/v1/projects?org_id=${user.org_id}`, { token: user.session });
    const project0 = projects0.body.data.find((p: { title: string }) => p.title === 'Heart failure remote monitoring');
    const confirmed = await http(service, 'GET', `/v1/projects/${project0.id}/intakes/1`, { token: user.session });
    expect(confirmed.body.spec.care_setting.text).toBe('Community heart failure nursing service');
    await page.getByRole('button', { name: 'Plan the evaluations' }).click();
    await page.getByRole('heading', { name: 'Evaluation plan' }).waitFor();
    // the heading shows before the plan has loaded: wait for its decisions, then count them
    await page.getByTestId('decision').first().waitFor();
    await expect(page.getByTestId('decision').count()).resolves.toBe(2);
    // spec: EvaluationPlan — the Business questions: user, buyer, budget owner, current alternative, dependencies, value
    // hypothesis, each stated or explicitly unknown with what to ask, and a suggested buyer interview
    await page.getByRole('heading', { name: 'Business questions' }).waitFor();
    const business = page.getByTestId('business-question');
    expect(await business.count()).toBeGreaterThanOrEqual(6);
    const labels = await business.locator('dt').allTextContents();
    for (const label of ['Proposed user', 'Buyer', 'Budget owner', 'Current alternative', 'Value hypothesis']) expect(labels).toContain(label);
    for (const text of await business.allTextContents()) expect(text).toMatch(/Ask: /);
    expect(await business.filter({ hasText: 'unknown: the intake does not say' }).count()).toBeGreaterThan(0);
    await page.getByRole('heading', { name: 'Suggested buyer interview' }).waitFor();
    // the review cannot start before its approval is given explicitly
    const startButton = page.getByRole('button', { name: 'Start the concept and evidence review' });
    await expect(startButton.isDisabled()).resolves.toBe(true);
    await screenshot(page, 'plan');
    await page.getByRole('button', { name: 'Approve the use of AI for the review' }).click();
    await page.getByText('approved', { exact: true }).waitFor();
    await startButton.click();

    await page.getByRole('heading', { name: 'Concept and evidence review' }).waitFor();
    await page.getByTestId('disclaimer').waitFor({ timeout: 60_000 });
    await expect(page.getByTestId('dimension').count()).resolves.toBe(13);
    for (const label of await page.getByTestId('dimension').locator('summary .chip').allTextContents()) expect(label).toBe('AI hypothesis');
    const claims = page.getByTestId('claim');
    expect(await claims.count()).toBeGreaterThan(0);
    // each claim's three checks as plain badges with a sentence, and the paper it cites by its title
    const first = await claims.first().textContent();
    expect(first).toMatch(/Paper (found|not found): /);
    expect(first).toMatch(/Quote (found|not found|not checked): /);
    expect(first).toMatch(/Second reader (agrees|disagrees|not asked): /);
    expect(await claims.first().getByRole('link').count()).toBe(1);
    await expect(page.getByText('supported', { exact: true }).count()).resolves.toBeGreaterThan(0);
    await expect(page.getByTestId('excluded-record').count()).resolves.toBe(2);
    // excluded records with the reason in words, never as a code
    for (const text of await page.getByTestId('excluded-record').allTextContents())
      expect(text).toMatch(/Retracted by its journal|A retraction notice, not a study/);
    expect(await page.getByTestId('disclaimer').textContent()).toContain('not advice');
    // the review's state is the service's own sentence; the offline draft's sentences read as sentences
    expect(await page.getByTestId('review-status').textContent()).toContain('Finished; the review can be read and downloaded.');
    const drafted_text = (await page.getByTestId('dimension').allTextContents()).join('\n');
    expect(drafted_text).toContain(
      'are affected by the problem (“heart failure patients are readmitted to hospital within 30 days of discharge”), and how often?',
    );
    expect(drafted_text).not.toMatch(/discharge\.[,”]|\(s\)/);
    // a sentence goes on in lower case after a colon; a record's note is a sentence of its own
    expect(drafted_text).toContain('at the idea stage: is there evidence that the problem exists');
    expect(drafted_text).not.toMatch(/stage: [A-Z]/);
    const noted = page.getByTestId('record').filter({ hasText: 'Correction published' });
    expect(await noted.locator('p').textContent()).toMatch(/against it\. Correction published: .+\.$/);
    await screenshot(page, 'review');

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download the review (JSON)' }).click()]);
    expect(download.suggestedFilename()).toMatch(/^concept-review-rev_[0-9a-z]+\.json$/);

    await page.setViewportSize(PHONE);
    await screenshot(page, 'review-phone');

    // the project lists its reviews, so the review can be returned to from there
    const review_id = new URL(page.url()).pathname.split('/').pop()!;
    const projects = await http(service, 'GET', `/v1/projects?org_id=${user.org_id}`, { token: user.session });
    const project = projects.body.data.find((p: { title: string }) => p.title === 'Heart failure remote monitoring');
    await page.goto(`${service.url}/projects/${project.id}`);
    const item = page.getByTestId('review-item');
    await item.getByText('succeeded').waitFor();
    expect(await item.textContent()).toContain('Finished; the review can be read and downloaded.');
    expect(await item.getByRole('link').getAttribute('href')).toBe(`/reviews/${review_id}`);
    await context.close();
  });
});
