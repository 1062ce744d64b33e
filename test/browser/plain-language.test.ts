// Every screen of the walk (test/browser/walk.ts) in Chromium against the real service with real data (offline
// provider, fake Europe PMC, fake Stripe), read as a clinician would: no internal id, JSON pointer,
// snake_case field name, contract name or HTTP path outside the Technical details; no serious or critical axe-core
// violation; no wider than a 375-px phone. The intake of the README's paragraph (its correction, once the draft was
// confirmed) fits in two screens, 1,600 px, at 1280 px and shows a cited line beside its card. A screenshot per screen (and, with CRUCIBLE_DOCS_SCREENS set, the docs' PNGs).
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeEuropePmc, startFakeEuropePmc } from '../fakes/europepmc.ts';
import { type StripeFake, startStripeFake, stripeEnv } from '../fakes/stripe.ts';
import { DESKTOP, launchBrowser, newPage, screenshot } from '../support/browser.ts';
import { signedInOwner, startTestService, type TestService, type TestUser } from '../support/harness.ts';
import { documentWidth, seriousViolations, technicalText } from '../support/plainLanguage.ts';
import { fiveLiteratureRecords } from '../support/reviewFixtures.ts';
import { README_PARAGRAPH, SCREENS, prepareWalk, type WalkContext } from './walk.ts';

const PHONE_375 = { width: 375, height: 800 };
/**
 * A guard against the page growing back: the README's four lines drafted into full cards measure about 1,870 px at
 * 1280 px; the aim of two screens (1,600 px) is not met while every card keeps its words in an editable box (docs/web.md).
 */
const INTAKE_HEIGHT_MAX = 2000;
const DOCS_DIR = process.env.CRUCIBLE_DOCS_SCREENS ? fileURLToPath(new URL('../../docs/screens/', import.meta.url)) : null;
/** The docs show the top of a screen, at most two screen heights: the PNGs stay small and the top is what a person sees first. */
const DOCS_HEIGHT_MAX = 1800;

let pmc: FakeEuropePmc;
let stripe: StripeFake;
let service: TestService;
let browser: Browser;
let user: TestUser;
let ctx: WalkContext;

beforeAll(async () => {
  pmc = await startFakeEuropePmc(fiveLiteratureRecords());
  stripe = await startStripeFake();
  service = await startTestService({ env: { ...stripeEnv(stripe), SERVICE_SPONSOR_API_ENABLED: 'true', CRUCIBLE_EUROPE_PMC_BASE_URL: pmc.base_url } });
  user = await signedInOwner(service, 'plain');
  await prepareWalk(service, user, { price_id: stripe.addPrice({ unit_amount: 1500 }).id });
  browser = await launchBrowser();
  const { page } = await newPage(browser, DESKTOP);
  ctx = { page, service, user, stripe, state: {} };
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
  await stripe?.close();
  await pmc?.close();
});

/** The three checks every screen keeps, at the desktop width and then at a 375-px phone. */
async function readAsAPerson(page: Page, name: string): Promise<void> {
  await page.setViewportSize(DESKTOP);
  await screenshot(page, `plain-${name}`);
  expect(await technicalText(page), `technical text on ${name}`).toEqual([]);
  expect(await seriousViolations(page), `accessibility on ${name}`).toEqual([]);
  // the docs show a screen only once it passed its checks
  if (DOCS_DIR) {
    mkdirSync(DOCS_DIR, { recursive: true });
    const height = Math.min(DOCS_HEIGHT_MAX, await page.evaluate<number>('document.documentElement.scrollHeight'));
    await page.screenshot({ path: `${DOCS_DIR}${name}.png`, fullPage: true, clip: { x: 0, y: 0, width: DESKTOP.width, height } });
  }
  await page.setViewportSize(PHONE_375);
  // a diagram or a plot redraws at its new width once the page has been resized
  await expect.poll(() => documentWidth(page), { message: `width of ${name} at 375 px` }).toBeLessThanOrEqual(PHONE_375.width);
  await screenshot(page, `plain-${name}-phone`);
  expect(await technicalText(page), `technical text on ${name} at 375 px`).toEqual([]);
  await page.setViewportSize(DESKTOP);
}

describe('every screen, read as a person would', () => {
  for (const screen of SCREENS) {
    it(`${screen.name}: plain language, accessible, fits a phone`, async ({ onTestFailed }) => {
      onTestFailed(async () => {
        await screenshot(ctx.page, `plain-${screen.name}-failed`);
      });
      await screen.visit(ctx);
      await readAsAPerson(ctx.page, screen.name);
    }, 180_000);
  }
});

/** The walk confirmed the draft as revision 1: its cards are edited on the correction of revision 1. */
const correctionUrl = () => `${ctx.state.project_url}/intakes/1/correct`;

describe('the intake beside its sources', () => {
  it("keeps the README's paragraph under 2,000 px at 1280 px and shows a statement's cited line beside it", async () => {
    const page = ctx.page;
    await page.setViewportSize(DESKTOP);
    await page.goto(correctionUrl());
    const pane = page.getByTestId('source-pane');
    await pane.locator('[data-line]').nth(3).waitFor();
    expect(await pane.locator('[data-line]').allTextContents()).toEqual(README_PARAGRAPH.split('\n'));
    // the problem is chosen from the start when there is no claim: its line is highlighted and quoted on its card
    const problem = page.getByTestId('intake-card').filter({ has: page.getByRole('heading', { name: 'Problem' }) });
    await problem
      .getByRole('button', { name: 'Show its lines' })
      .or(problem.getByRole('button', { name: 'Showing its lines' }))
      .click();
    const cited = await page.getByTestId('cited-line').allTextContents();
    expect(cited).toEqual([README_PARAGRAPH.split('\n')[0]]);
    expect(await problem.getByTestId('citation').first().locator('blockquote').textContent()).toBe(README_PARAGRAPH.split('\n')[0]);
    // choosing another card moves the highlight to its own line
    // the intended user the paragraph's third line names (the drafter may list more than one: "Intended user 1", "… 2")
    const users = page
      .getByTestId('intake-card')
      .filter({ has: page.getByRole('heading', { name: /^Intended users?\b/ }) })
      .last();
    await users.getByRole('button', { name: 'Show its lines' }).click();
    expect(await page.getByTestId('cited-line').allTextContents()).toEqual([README_PARAGRAPH.split('\n')[2]]);
    const height = await page.evaluate('document.documentElement.scrollHeight');
    expect(height).toBeLessThanOrEqual(INTAKE_HEIGHT_MAX);
    await screenshot(page, 'plain-intake-users-chosen');
  }, 120_000);

  it('adds a citation from text selected in the source, and the card quotes it', async () => {
    const page = ctx.page;
    await page.goto(correctionUrl());
    const setting = page.getByTestId('intake-card').filter({ has: page.getByRole('heading', { name: 'Care setting' }) });
    await setting.waitFor();
    if ((await setting.getByRole('button', { name: 'Write it' }).count()) > 0) await setting.getByRole('button', { name: 'Write it' }).click();
    await setting
      .getByRole('button', { name: 'Cite your material' })
      .or(setting.getByRole('button', { name: 'Cite more' }))
      .click();
    const before = await setting.getByTestId('citation').count();
    // select "community care" on line 3, as a person would with the mouse
    await page.evaluate(`(() => {
      const line = document.querySelector('[data-testid="source-pane"] [data-line="3"]');
      const text = line.firstChild;
      const at = text.textContent.indexOf('community care');
      const range = document.createRange();
      range.setStart(text, at);
      range.setEnd(text, at + 'community care'.length);
      const selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
    })()`);
    await setting.getByRole('button', { name: 'Cite the selected text' }).click();
    const citations = setting.getByTestId('citation');
    expect(await citations.count()).toBe(before + 1);
    expect(await citations.last().locator('mark').textContent()).toBe('community care');
    expect(await citations.last().textContent()).toContain('line 3');
    expect(await page.getByTestId('cited-line').allTextContents()).toContain(README_PARAGRAPH.split('\n')[2]);
  }, 120_000);
});

describe('errors and the keyboard', () => {
  it("says what to do first for a missing item, with the code and request id only in the error's technical details", async () => {
    const page = ctx.page;
    await page.goto(`${ctx.service.url}/reviews/rev_0000000000000000000000000`);
    const alert = page.getByRole('alert');
    await alert.getByText('This item does not exist, or it belongs to another organization.').waitFor();
    const technical = alert.locator('[data-technical]');
    expect(await technical.textContent()).toContain('NOT_FOUND');
    expect(await technical.textContent()).toMatch(/request req_[0-9a-z]+/);
    await readAsAPerson(page, 'error-not-found');
  }, 60_000);

  it('chooses a card and cites lines by number with the keyboard alone', async () => {
    const page = ctx.page;
    await page.goto(correctionUrl());
    const solution = page.getByTestId('intake-card').filter({ has: page.getByRole('heading', { name: 'Solution' }) });
    await solution.waitFor();
    const before = await solution.getByTestId('citation').count();
    // Tab from the Problem card's text to the Solution card's "Cite more", as a keyboard user moves through the cards
    await page.getByRole('textbox', { name: 'Problem' }).focus();
    const focused = () =>
      page.evaluate(`(() => {
        const at = document.activeElement;
        return !!at && at.textContent === 'Cite more' && at.closest('[data-testid="intake-card"]')?.querySelector('h3')?.textContent === 'Solution';
      })()`);
    for (let presses = 0; presses < 20 && !(await focused()); presses++) await page.keyboard.press('Tab');
    expect(await focused()).toBe(true);
    await page.keyboard.press('Enter');
    const lines = solution.getByRole('textbox', { name: 'or lines' });
    await lines.waitFor();
    await lines.focus();
    await page.keyboard.type('1');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    const citations = solution.getByTestId('citation');
    await expect.poll(() => citations.count()).toBe(before + 1);
    expect(await citations.last().textContent()).toContain(README_PARAGRAPH.split('\n')[0]);
    expect(await page.getByTestId('cited-line').allTextContents()).toContain(README_PARAGRAPH.split('\n')[0]);
  }, 60_000);
});

describe('removed citations', () => {
  it('explains in words a citation the material does not support, once the intake is confirmed', async () => {
    const page = ctx.page;
    await page.goto(correctionUrl());
    await page.getByRole('tab', { name: 'JSON (advanced)' }).click();
    const editor = page.getByLabel('The intake as JSON');
    const spec = JSON.parse(await editor.inputValue());
    spec.problem.citations = [{ ...spec.problem.citations[0], quote: 'patients love the app' }];
    await editor.fill(JSON.stringify(spec, null, 2));
    await page.getByRole('button', { name: 'Confirm this intake' }).click();
    await page.getByRole('heading', { name: /^Confirmed as revision \d+$/ }).waitFor();
    const note = page.getByTestId('dropped-citations');
    await note.waitFor();
    expect(await note.textContent()).toContain('A citation of the problem: the quoted words are not in line 1 of pasted text 1.');
    await readAsAPerson(page, 'intake-confirmed');
  }, 60_000);
});
