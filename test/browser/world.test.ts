// Worlds and runs in Chromium: start from a sample world, see problems at their JSON pointers, save a revision,
// estimate under a budget the user types (nothing pre-filled), run it, and read the results as charts; export the ZIP.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOperator } from '../../runtime/operator.ts';
import { PHONE, launchBrowser, newPage, screenshot, signInThroughForm } from '../support/browser.ts';
import { http, signedInOwner, startTestService, type TestService, type TestUser } from '../support/harness.ts';

let service: TestService;
let browser: Browser;
let user: TestUser;

beforeAll(async () => {
  service = await startTestService();
  user = await signedInOwner(service, 'web-world');
  await runOperator(service.db, { command: 'grant-credits', flags: { org: user.org_id, credits: '100000', reason: 'browser test' } });
  browser = await launchBrowser();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

describe('worlds and runs in the browser', () => {
  it('saves a sample world, runs it under a typed budget and shows the charts', async ({ onTestFailed }) => {
    const { context, page } = await newPage(browser);
    onTestFailed(async () => {
      await screenshot(page, 'world-flow-failed');
    });
    const project = await http(service, 'POST', '/v1/projects', { token: user.session, body: { title: 'Remote monitoring', org_id: user.org_id } });
    expect(project.status).toBe(201);
    await signInThroughForm(page, service, user);
    await page.getByRole('link', { name: 'Remote monitoring' }).click();
    await page.getByRole('link', { name: 'New world' }).click();
    await page.getByRole('heading', { name: 'New world' }).waitFor();

    await page.getByLabel('Start from a sample world').selectOption({ label: 'remote monitoring admissions' });
    const editor = page.getByLabel('WorldSpec (JSON)');
    await expect.poll(async () => (await editor.inputValue()).length).toBeGreaterThan(100);
    const sample = JSON.parse(await editor.inputValue());

    // a broken world: its problems are shown at their JSON pointers
    await editor.fill(JSON.stringify({ ...sample, horizon: -1, replications: 'many' }, null, 2));
    await page.getByRole('button', { name: 'Check' }).click();
    const problems = page.getByRole('alert');
    await problems.getByText('/horizon').first().waitFor();
    expect(await problems.textContent()).toContain('/replications');
    await screenshot(page, 'world-problems');
    // saving it is refused with the envelope's message and the same pointers
    await page.getByRole('button', { name: 'Save revision' }).click();
    await page.getByRole('alert').filter({ hasText: 'VALIDATION_FAILED' }).waitFor();

    // the sample with fewer replications, so the run is quick on a busy machine
    await editor.fill(JSON.stringify({ ...sample, replications: 5 }, null, 2));
    await page.getByRole('button', { name: 'Check' }).click();
    await page.getByText('The world is valid.').waitFor();
    await page.getByRole('button', { name: 'Save revision' }).click();
    await page.getByRole('heading', { name: /revision 1/ }).waitFor();

    // spec: WorldSpec and run — nothing is pre-filled as a budget
    const budget = page.getByLabel('Budget (credits)');
    expect(await budget.inputValue()).toBe('');
    await expect(page.getByRole('button', { name: 'Run' }).isDisabled()).resolves.toBe(true);
    // a budget of 0 is refused: the error shows the envelope's message and where
    await budget.fill('0');
    await page.getByRole('button', { name: 'Estimate' }).click();
    const refused = page.getByRole('alert').filter({ hasText: 'VALIDATION_FAILED' });
    await refused.waitFor();
    expect(await refused.textContent()).toContain('/budget_limit_credits');
    await budget.fill('50');
    await page.getByRole('button', { name: 'Estimate' }).click();
    await page.getByTestId('estimate').getByText('Runnable.').waitFor();
    await screenshot(page, 'world-estimate');
    await page.getByRole('button', { name: 'Run' }).click();

    await page.getByRole('heading', { name: 'Run' }).waitFor();
    await page.getByTestId('means-chart').first().waitFor({ timeout: 90_000 });
    expect(await page.getByTestId('means-chart').count()).toBeGreaterThan(0);
    await page.getByTestId('differences-chart').first().waitFor();
    await page.getByTestId('cost-chart').waitFor();
    // the charts are drawn (SVG marks), not just their captions
    expect(await page.locator('[data-testid="means-chart"] .recharts-bar-rectangle').count()).toBeGreaterThan(0);
    expect(await page.locator('[data-testid="differences-chart"] .recharts-scatter-symbol').count()).toBeGreaterThan(0);
    await page.getByRole('heading', { name: 'Event trace' }).waitFor();
    const firstEvents = await page.locator('section[aria-labelledby="events-heading"] tbody').textContent();
    await page.locator('section[aria-labelledby="events-heading"]').getByRole('button', { name: 'Next' }).click();
    await expect.poll(() => page.locator('section[aria-labelledby="events-heading"] tbody').textContent()).not.toBe(firstEvents);
    await screenshot(page, 'run-results');

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export ZIP' }).click()]);
    expect(download.suggestedFilename()).toMatch(/\.zip$/);

    await page.setViewportSize(PHONE);
    await screenshot(page, 'run-results-phone');
    await context.close();
  }, 240_000);
});
