// Billing in Chromium against the real service and the local stateful Stripe fake (driven by the real `stripe` SDK):
// the Billing screen appears only with the flag on; Buy goes to the provider's checkout page; coming back shows the
// purchase pending (a redirect alone never shows "paid"), and the page turns to paid once the provider's signed event
// has completed the intent.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOperator } from '../../runtime/operator.ts';
import { type StripeFake, startStripeFake, stripeEnv } from '../fakes/stripe.ts';
import { launchBrowser, newPage, screenshot, signInThroughForm } from '../support/browser.ts';
import { http, signedInMember, signedInOwner, startTestService, type TestService, type TestUser } from '../support/harness.ts';

const PACK_CREDITS = 5000;
let stripe: StripeFake;
let service: TestService;
let browser: Browser;
let owner: TestUser;

/** What the first badge shows: its text as written and the case the page gives the whole of it and its first letter. */
async function badgeCase(page: Page): Promise<{ text: string | null; whole: string; first_letter: string }> {
  // strings: the tests' type check has no DOM library (as in test/support/plainLanguage.ts)
  return page.evaluate(`(() => {
    const element = document.querySelector('.status');
    return { text: element.textContent, whole: getComputedStyle(element).textTransform, first_letter: getComputedStyle(element, '::first-letter').textTransform };
  })()`);
}

/** Elements the page shows in Title Case ("Waiting For You"): none should be. */
async function capitalizedElements(page: Page): Promise<string[]> {
  return page.evaluate<string[]>(
    "[...document.querySelectorAll('body *')].filter((element) => getComputedStyle(element).textTransform === 'capitalize').map((element) => element.outerHTML)",
  );
}

beforeAll(async () => {
  stripe = await startStripeFake();
  service = await startTestService({ env: stripeEnv(stripe) });
  owner = await signedInOwner(service, 'web-billing');
  const price = stripe.addPrice({ unit_amount: 1500 });
  await runOperator(service.db, {
    command: 'pack bind',
    flags: { key: 'starter', title: 'Starter pack', price: price.id, credits: String(PACK_CREDITS) },
    config: service.config,
  });
  browser = await launchBrowser();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
  await stripe?.close();
});

describe('buying credits in the browser', () => {
  it('goes to Checkout, comes back to a pending purchase, and shows it paid only after the provider confirms', async ({ onTestFailed }) => {
    const { context, page } = await newPage(browser);
    onTestFailed(async () => {
      await screenshot(page, 'billing-failed');
    });
    // The provider's hosted checkout page is not ours to serve: the browser's request for it is answered with a stand-in.
    await page.route('https://checkout.stripe.test/**', (route) =>
      route.fulfill({ status: 200, contentType: 'text/html', body: '<h1>Checkout (stand-in)</h1>' }),
    );
    await signInThroughForm(page, service, owner);
    await page.getByRole('link', { name: 'Billing' }).click();
    await page.getByRole('heading', { name: 'Credit packs' }).waitFor();
    const pack = page.getByTestId('pack').filter({ hasText: 'Starter pack' });
    await pack.waitFor();
    expect(await pack.textContent()).toContain('5,000 credits');
    expect(await pack.textContent()).toContain('$15.00');
    await page.getByText('Test mode').waitFor();
    await screenshot(page, 'billing-packs');

    await pack.getByRole('button', { name: 'Buy Starter pack' }).click();
    await page.waitForURL(/^https:\/\/checkout\.stripe\.test\/c\/pay\//);
    const session_id = new URL(page.url()).pathname.split('/').pop()!;
    const session = stripe.sessions.get(session_id);
    expect(session).toBeDefined();
    // Checkout returns to the success URL the service gave it; here its path and query on the service under test
    const success = new URL(session!.success_url);
    expect(success.pathname).toBe('/billing/done');
    const intent_id = success.searchParams.get('intent_id')!;
    expect(intent_id).toMatch(/^pi_/);

    // back from Checkout without the provider's confirmation: pending, never "paid"
    await page.goto(`${service.url}${success.pathname}${success.search}`);
    const status = page.getByTestId('purchase-status');
    await status.getByText('Waiting for the payment provider to confirm the payment.').waitFor();
    expect(await status.textContent()).not.toContain('Paid');
    // the provider's test mode said as what it means to the buyer, not as "Mode: test"
    expect(await page.getByTestId('test-purchase').textContent()).toBe('Test purchase: no real card is charged.');
    expect(await page.locator('dl.spec dt').allTextContents()).toEqual(['For', 'Started', 'Checkout link expires']);
    // the badge reads in sentence case: its first letter raised, the rest as written (never "Title Case")
    expect(await badgeCase(page)).toEqual({ text: 'pending', whole: 'none', first_letter: 'uppercase' });
    expect(await capitalizedElements(page)).toEqual([]);
    const header = page.getByTestId('header-credits');
    const credits = async () => Number((await header.textContent())?.replaceAll(',', ''));
    const before = await credits();
    await screenshot(page, 'billing-pending');

    // the customer pays; the provider's signed event reaches the webhook; the page, polling, turns to paid
    stripe.markPaid(session_id);
    const { body, signature } = stripe.signedEvent('checkout.session.completed', session_id);
    const delivered = await http(service, 'POST', '/v1/billing/stripe/webhook', {
      raw: body,
      headers: { 'content-type': 'application/json', 'stripe-signature': signature },
    });
    expect(delivered.status).toBe(200);
    await status.getByText(/Paid: 5,000 credits were added/).waitFor({ timeout: 60_000 });
    // the header's balance follows the purchase without a reload
    await expect.poll(credits).toBe(before + PACK_CREDITS);
    const purchase = await http(service, 'GET', `/v1/billing/purchases/${intent_id}`, { token: owner.session });
    expect(purchase.body.status).toBe('completed');
    expect(await status.locator('code').textContent()).toBe(purchase.body.transaction_id);
    // once paid, the checkout link's expiry no longer matters to the buyer
    expect(await page.locator('dl.spec dt').allTextContents()).toEqual(['For', 'Started']);
    await screenshot(page, 'billing-paid');
    await context.close();
  }, 180_000);

  it('shows packs without a Buy button to a member who is not an owner or admin', async () => {
    const member = await signedInMember(service, owner.org_id, 'member');
    const { context, page } = await newPage(browser);
    await signInThroughForm(page, service, member);
    await page.getByRole('link', { name: 'Billing' }).click();
    await page.getByTestId('pack').first().waitFor();
    expect(await page.getByRole('button', { name: /^Buy/ }).count()).toBe(0);
    await page.getByText('Only an organization owner or admin can buy credits; you are member.').waitFor();
    await context.close();
  });
});

describe('without the billing flag', () => {
  it('offers no Billing screen', async () => {
    const plain = await startTestService({ mode: 'api' });
    try {
      const user = await signedInOwner(plain, 'web-no-billing');
      const { context, page } = await newPage(browser);
      await signInThroughForm(page, plain, user);
      expect(await page.getByRole('link', { name: 'Billing' }).count()).toBe(0);
      expect(await page.getByRole('link', { name: 'Sponsor' }).count()).toBe(0);
      await page.goto(`${plain.url}/billing`);
      await page.getByRole('heading', { name: 'Not found' }).waitFor();
      await screenshot(page, 'billing-off');
      await context.close();
    } finally {
      await plain.stop();
    }
  }, 120_000);
});
