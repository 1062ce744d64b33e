// Sponsor programs in Chromium with the sponsor flag on (spec: Sponsor API; States and transitions): an assigned
// sponsor administrator creates a draft program and activates it; an organization owner redeems a code (pending until
// decided); the administrator approves the enrollment, allocates credits (a ledger transaction id comes back) and reads
// the report, suppressed below the minimum cohort.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOperator } from '../../runtime/operator.ts';
import { launchBrowser, newPage, screenshot, signInThroughForm } from '../support/browser.ts';
import { technicalText } from '../support/plainLanguage.ts';
import { http, signedInOwner, startTestService, type TestService, type TestUser } from '../support/harness.ts';

let service: TestService;
let browser: Browser;
let admin: TestUser;
let institution_id: string;

const operator = (command: string, flags: Record<string, string>) => runOperator(service.db, { command, flags }) as Promise<Record<string, any>>;

beforeAll(async () => {
  service = await startTestService({ env: { SERVICE_SPONSOR_API_ENABLED: 'true' } });
  const created = await operator('institution create', { name: 'Northern Health Foundation' });
  institution_id = created.institution_id;
  await operator('institution verify', { id: institution_id, date: '2026-11-01' });
  admin = await signedInOwner(service, 'web-sponsor-admin');
  await operator('sponsor-admin assign', { institution: institution_id, email: admin.email });
  browser = await launchBrowser();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

describe('sponsor programs in the browser', () => {
  it('creates and activates a program, takes a redemption, approves it, allocates credits and reads the report', async ({ onTestFailed }) => {
    const { context, page } = await newPage(browser);
    onTestFailed(async () => {
      await screenshot(page, 'sponsor-failed');
    });
    await signInThroughForm(page, service, admin);
    await page.getByRole('link', { name: 'Sponsor', exact: true }).click();
    await page.getByRole('heading', { name: 'Institutions you administer' }).waitFor();
    await page
      .getByRole('listitem')
      .filter({ hasText: 'Northern Health Foundation' })
      .getByText(/^verified /)
      .waitFor();

    const ends = new Date(Date.now() + 60 * 86_400_000);
    const local = `${ends.getFullYear()}-${String(ends.getMonth() + 1).padStart(2, '0')}-${String(ends.getDate()).padStart(2, '0')}T12:00`;
    await page.getByLabel('Program name').fill('Community pilot');
    await page.getByLabel('Ends at').fill(local);
    await page.getByLabel('Credits per recipient (cap)').fill('100');
    await page.getByLabel('Maximum recipients').fill('20');
    await page.getByRole('button', { name: 'Create draft program' }).click();
    await page.getByRole('heading', { name: /Community pilot/ }).waitFor();
    expect(await page.getByRole('heading', { name: /Community pilot/ }).textContent()).toContain('draft');
    const program_id = new URL(page.url()).pathname.split('/').pop()!;
    expect(program_id).toMatch(/^prog_/);
    await page.getByRole('button', { name: 'Activate' }).click();
    await page
      .getByRole('heading', { name: /Community pilot/ })
      .getByText('active')
      .waitFor();
    await screenshot(page, 'sponsor-program');

    // an organization owner redeems a code; the program needs approval, so the enrollment is pending
    await operator('program fund', { program: program_id, credits: '500' });
    const issued = await operator('code issue', { program: program_id, 'expires-at': new Date(Date.now() + 10 * 86_400_000).toISOString(), 'max-uses': '5' });
    const beneficiary = await signedInOwner(service, 'web-sponsor-beneficiary');
    const other = await newPage(browser);
    await signInThroughForm(other.page, service, beneficiary);
    await other.page.getByRole('link', { name: 'Sponsor', exact: true }).click();
    await other.page.getByLabel('Program code').fill(issued.code);
    await other.page.getByRole('button', { name: 'Redeem' }).click();
    const enrolled = other.page.getByRole('status').filter({ hasText: 'Enrolled in Community pilot' });
    await enrolled.waitFor();
    expect(await enrolled.textContent()).toContain('pending');
    // the state as a badge before the sentence, not a capitalised word in the middle of it
    expect(await enrolled.locator('p').first().textContent()).toBe(
      'pending Enrolled in Community pilot. The sponsor decides on your enrollment; no credits are issued until then.',
    );
    // the organization's reference, which the sponsor needs to act on the enrollment, is offered to be passed on
    const reference = enrolled.locator('[data-technical]');
    expect(await reference.locator('summary').textContent()).toBe("Your organization's reference, for the sponsor");
    expect(await reference.locator('code').textContent()).toBe(beneficiary.org_id);
    expect(await technicalText(other.page)).toEqual([]);
    // the code is not echoed back on the page
    expect(await other.page.getByLabel('Program code').inputValue()).toBe('');
    await screenshot(other.page, 'sponsor-redeemed');
    await other.context.close();

    // the administrator approves the enrollment and allocates credits
    await page.reload();
    await page.getByRole('heading', { name: 'Decide an enrollment' }).waitFor();
    const decide = page.locator('section[aria-labelledby="decide-heading"]');
    // no list of enrollments exists to choose from: the form says where the reference comes from
    expect(await decide.textContent()).toContain('the organization sees its reference when it redeems your code, and gives it to you');
    await decide.getByLabel('Organization reference').fill(beneficiary.org_id);
    await decide.getByRole('button', { name: 'Approve' }).click();
    await decide.getByRole('status').getByText('active').waitFor();
    expect(await decide.getByRole('status').locator('p').first().textContent()).toBe(
      "The organization's enrollment is now active: approval issues no credits; allocate them below.",
    );
    const allocate = page.locator('section[aria-labelledby="allocate-heading"]');
    await allocate.getByLabel('Organization reference').fill(beneficiary.org_id);
    await allocate.getByLabel('Credits').fill('60');
    await allocate.getByRole('button', { name: 'Allocate' }).click();
    const allocated = allocate.getByRole('status');
    await allocated.waitFor();
    // in words; the organization and the ledger transaction only in the allocation's technical details
    expect(await allocated.locator('p').first().textContent()).toBe("Allocated 60 credits to the organization, from the program's pool.");
    expect(await allocated.locator('[data-technical]').textContent()).toContain(`Organization ${beneficiary.org_id}`);
    expect(await allocated.locator('[data-technical] code').textContent()).toMatch(/^txn_/);
    expect(await technicalText(page)).toEqual([]);
    const credits = await http(service, 'GET', `/v1/orgs/${beneficiary.org_id}/credits`, { token: beneficiary.session });
    expect(credits.body.available_credits).toBe(60);

    // one active recipient is below the minimum cohort (10): usage is suppressed, the pool is shown
    await page.reload();
    const report = page.locator('section[aria-labelledby="report-heading"]');
    await report.getByText('Usage is not shown').waitFor();
    // one sentence: what follows the colon goes on in lower case
    expect(await report.getByRole('note').textContent()).toBe(
      "Usage is not shown: fewer active recipients than the program's minimum cohort of 10; usage and recipient counts are withheld.",
    );
    expect(await report.textContent()).toContain('Pool balance440');
    expect(await report.textContent()).not.toContain('Active recipients');
    await screenshot(page, 'sponsor-report');
    await context.close();
  }, 180_000);
});
