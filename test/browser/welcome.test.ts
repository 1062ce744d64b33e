// A new organization can start on the embedded default: the first start's owner signs in to the welcome credits, reads
// the grant with its reason in the credits history, drafts an intake from a paragraph, and sees the draft's cost come off
// the balance in the header.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { firstStart, WELCOME_CREDITS_REASON } from '../../runtime/firstStart.ts';
import { launchBrowser, newPage, screenshot, signInThroughForm } from '../support/browser.ts';
import { http, signIn, startTestService, type TestService } from '../support/harness.ts';

const WELCOME_CREDITS = 500;

let service: TestService;
let browser: Browser;

beforeAll(async () => {
  service = await startTestService();
  browser = await launchBrowser();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

describe('the first organization of a new service', () => {
  it('starts with its welcome credits and can draft an intake straight away', async () => {
    const first = await firstStart(service.db, { welcome_credits: WELCOME_CREDITS });
    expect(first?.password).toEqual(expect.any(String));
    const { page } = await newPage(browser);
    await signInThroughForm(page, service, { email: first!.email, password: first!.password! });
    await expect(page.getByTestId('header-credits').textContent()).resolves.toBe(String(WELCOME_CREDITS));

    // the grant is in the credits history with its reason, in words
    await page.getByRole('link', { name: 'Settings' }).click();
    const history = page.getByRole('row').filter({ hasText: WELCOME_CREDITS_REASON });
    await history.first().waitFor();
    await expect(history.first().textContent()).resolves.toContain('+500');
    await screenshot(page, 'welcome-credits-settings');

    // a paragraph drafted at once, its cost taken from the welcome credits
    const token = await signIn(service, first!.email, first!.password!);
    const project = await http(service, 'POST', '/v1/projects', {
      token,
      body: { title: 'Falls clinic follow-up', org_id: first!.org_id },
    });
    await page.goto(`${service.url}/projects/${project.body.id}`);
    await page.getByLabel('Paste text').fill('Patients wait twelve weeks for a falls clinic appointment. We want to build a text-message reminder service.');
    await page.getByRole('button', { name: 'Add material' }).click();
    await page.getByTestId('source').first().getByText('processed').waitFor();
    await page.getByRole('button', { name: /Draft the intake from 1 processed source/ }).click();
    await page.getByText('Drafted. Check each card').waitFor({ timeout: 60_000 });
    const charged = Number(/(\d+) credits? charged/.exec((await page.getByTestId('draft-status').textContent()) ?? '')?.[1]);
    expect(charged).toBeGreaterThan(0);
    await expect.poll(() => page.getByTestId('header-credits').textContent(), { timeout: 10_000 }).toBe(String(WELCOME_CREDITS - charged));
    await screenshot(page, 'welcome-credits-first-draft');
  });
});
