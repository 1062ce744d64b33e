// The intake of one prose paragraph in Chromium (offline provider): drafted, corrected card by card (the business
// fields too, one cited from selected text), confirmed once, the confirmed revision read on its own page (from the
// draft, the plan's revision chip and its address), corrected into the next revision, and the plan showing the buyer
// entered. The page's height at 1280 px is measured; on a phone the material and the cards are two tabs.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOperator } from '../../runtime/operator.ts';
import { PHONE, launchBrowser, newPage, screenshot, signInThroughForm } from '../support/browser.ts';
import { http, signedInOwner, startTestService, type TestService, type TestUser } from '../support/harness.ts';

/** One paragraph of ordinary prose, as a person would paste it: no "Problem:" labels. */
const PARAGRAPH =
  'Heart failure patients in our district are often readmitted to hospital within 30 days of discharge because early warning signs are missed at home. ' +
  "We want to build a remote monitoring app that community heart failure nurses use to review each patient's daily weight and symptoms. " +
  'It would be used by the community heart failure nursing team. ' +
  'Nothing is built yet; we only have mock-ups. ' +
  'The likely buyer is the integrated care board, which commissions community services. ' +
  'Today, nurses phone patients once a week.';
const BUYER_WORDS = 'the integrated care board';
/**
 * Two screens at 1280 px (1,600 px) for the paragraph as drafted: the idea's cards two a row beside the material and the
 * stage, who would use and pay for it across the page below, what is not known yet above the confirmation, a citation's
 * place on one row with the card's tools. With every card filled (each citation then quotes its sentence) it may grow a
 * little past that.
 */
const INTAKE_HEIGHT_MAX = 1600;
const INTAKE_FILLED_HEIGHT_MAX = 1700;

const CORRECTIONS: Record<string, string> = {
  Problem: 'Heart failure patients are readmitted within 30 days because early warning signs are missed at home.',
  Solution: 'A remote monitoring app for daily weight and symptoms, reviewed by community heart failure nurses.',
  'Care setting': 'Community heart failure nursing, in patients’ homes.',
  'Proposed user': 'Community heart failure nurses.',
  Buyer: 'The integrated care board.',
  'Budget owner': 'The integrated care board’s community services budget.',
  'Current alternative': 'Nurses phone patients once a week.',
  Dependencies: 'Patients need a connected weighing scale.',
  'Value hypothesis': 'Fewer readmissions within 30 days save bed days.',
};
const USERS = 'Community heart failure nurses reviewing patients at home.';

let service: TestService;
let browser: Browser;
let owner: TestUser;

beforeAll(async () => {
  service = await startTestService();
  owner = await signedInOwner(service, 'web-intake');
  await runOperator(service.db, { command: 'grant-credits', flags: { org: owner.org_id, credits: '10000', reason: 'browser test' } });
  browser = await launchBrowser();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

const card = (page: Page, title: string) => page.getByTestId('intake-card').filter({ has: page.getByRole('heading', { name: title, exact: true }) });

/** Writes a card's words, whether the draft found the field ("Write it") or not. */
async function fillCard(page: Page, title: string, text: string): Promise<void> {
  const write = card(page, title).getByRole('button', { name: 'Write it' });
  if ((await write.count()) > 0) await write.click();
  await page.getByRole('textbox', { name: title, exact: true }).fill(text);
}

/** Writes a list field's first card: titled "Intended users" when it holds one item, "Intended user 1" when several. */
async function fillListCard(page: Page, title: string, first: string, text: string): Promise<void> {
  if ((await page.getByRole('heading', { name: first, exact: true }).count()) > 0) await fillCard(page, first, text);
  else await fillCard(page, title, text);
}

/** Selects `words` in the material pane, as a person would with the mouse. */
async function selectInMaterial(page: Page, words: string): Promise<void> {
  const found = await page.evaluate<boolean>(`(() => {
    const wanted = ${JSON.stringify(words)};
    for (const line of document.querySelectorAll('[data-testid="source-pane"] [data-line]')) {
      const text = line.firstChild;
      const at = text && text.textContent ? text.textContent.indexOf(wanted) : -1;
      if (!text || at < 0) continue;
      const range = document.createRange();
      range.setStart(text, at);
      range.setEnd(text, at + wanted.length);
      const selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      return true;
    }
    return false;
  })()`);
  expect(found).toBe(true);
}

async function newProjectWithParagraph(title: string): Promise<string> {
  const project = await http(service, 'POST', '/v1/projects', { token: owner.session, body: { title, org_id: owner.org_id } });
  expect(project.status).toBe(201);
  const extracted = await http(service, 'POST', '/v1/intakes/extract', { token: owner.session, body: { project_id: project.body.id, text: PARAGRAPH } });
  expect(extracted.status).toBe(201);
  expect(extracted.body.sources[0].status).toBe('processed');
  return project.body.id;
}

/** The names "Not known yet" lists (an empty card's title, or a field's name before its question). */
const unknowns = async (page: Page) => (await page.getByTestId('unknown').allTextContents()).map((text) => text.split(':')[0]!.trim());

/** Every card corrected: the idea, then who would use and pay for it, the buyer cited from the selected words. */
async function correctCardByCard(page: Page): Promise<void> {
  for (const title of ['Problem', 'Solution', 'Care setting']) await fillCard(page, title, CORRECTIONS[title]!);
  await fillListCard(page, 'Intended users', 'Intended user 1', USERS);
  await page.getByRole('combobox', { name: 'Stage' }).selectOption('idea');
  for (const title of ['Proposed user', 'Buyer', 'Budget owner', 'Current alternative', 'Dependencies', 'Value hypothesis']) {
    if (title === 'Dependencies') await fillListCard(page, title, 'Dependency 1', CORRECTIONS[title]!);
    else await fillCard(page, title, CORRECTIONS[title]!);
    // filling a card takes its field off "Not known yet" at once
    expect(await unknowns(page)).not.toContain(title);
  }
  // the buyer cited the same way as the idea: choose the card, select the words, cite them
  const buyer = card(page, 'Buyer');
  // whatever the draft cited for the buyer is replaced by the cited words
  while ((await buyer.getByRole('button', { name: 'Remove citation' }).count()) > 0)
    await buyer.getByRole('button', { name: 'Remove citation' }).first().click();
  await buyer.getByRole('button', { name: 'Cite your material' }).click();
  await selectInMaterial(page, BUYER_WORDS);
  await buyer.getByRole('button', { name: 'Cite the selected text' }).click();
  const citation = buyer.getByTestId('citation');
  await citation.waitFor();
  // the citation shows its sentence, the cited words marked, and the line in small type: not the whole paragraph
  expect(await citation.locator('mark').textContent()).toBe(BUYER_WORDS);
  expect(await citation.locator('blockquote').textContent()).toBe('The likely buyer is the integrated care board, which commissions community services.');
  expect(await citation.textContent()).toContain('pasted text 1, line 1');
  expect(await page.getByTestId('cited-line').count()).toBe(1);
}

describe('a prose paragraph from draft to plan', () => {
  it('drafts, corrects card by card, confirms once, reads and corrects the revision, and plans with the buyer entered', async ({ onTestFailed }) => {
    const project_id = await newProjectWithParagraph('Heart failure at home');
    const { context, page } = await newPage(browser);
    onTestFailed(async () => {
      await screenshot(page, 'intake-flow-failed');
    });
    await signInThroughForm(page, service, owner);
    await page.goto(`${service.url}/projects/${project_id}`);
    await page.getByRole('button', { name: /Draft the intake from 1 processed source/ }).click();
    await page.getByTestId('source-pane').locator('[data-line]').first().waitFor({ timeout: 60_000 });
    await page.getByText('Drafted. Check each card').waitFor();
    const draft_url = page.url();
    // the built-in drafter read the prose: every part the paragraph states is drafted, none left "not stated"
    const drafted_unknowns = await unknowns(page);
    for (const stated of ['Problem', 'Solution', 'Intended users', 'Care setting', 'Stage', 'Proposed user', 'Buyer', 'Current alternative'])
      expect(drafted_unknowns, stated).not.toContain(stated);
    expect(await page.locator('main').textContent()).toMatch(/Found 7 of 8 parts in your material/);
    // every status and tag in words (what is on screen: the technical details stay closed)
    // biome-ignore lint/performance/useDomNodeTextContent: what is rendered, without the closed technical details
    const screen = await page.locator('main').innerText();
    expect(screen.match(/\b(queued|drafting|succeeded|operational|other|clinical|economic|technical)\b|\b1 lines\b/)?.[0]).toBeUndefined();
    const height = await page.evaluate<number>('document.documentElement.scrollHeight');
    console.info(`intake of one paragraph at 1280 px: ${height} px tall`);
    await screenshot(page, 'intake-paragraph-drafted');
    expect(height).toBeLessThanOrEqual(INTAKE_HEIGHT_MAX);

    // the same draft open in a second tab, to try a second confirmation later
    const second = await context.newPage();
    await second.goto(draft_url);
    await second.getByRole('button', { name: 'Confirm this intake' }).waitFor();

    await correctCardByCard(page);
    const open = await unknowns(page);
    for (const title of ['Problem', 'Solution', 'Intended users', 'Care setting', 'Stage', ...Object.keys(CORRECTIONS)]) expect(open).not.toContain(title);
    const corrected_height = await page.evaluate<number>('document.documentElement.scrollHeight');
    console.info(`the same intake with every card filled: ${corrected_height} px tall`);
    await screenshot(page, 'intake-paragraph-corrected');
    expect(corrected_height).toBeLessThanOrEqual(INTAKE_FILLED_HEIGHT_MAX);

    await page.getByRole('button', { name: 'Confirm this intake' }).click();
    await page.getByRole('heading', { name: 'Confirmed as revision 1' }).waitFor();
    // the confirmed state, not the stale "Drafted. Check each card…"
    expect(await page.getByTestId('draft-status').textContent()).toContain('Confirmed as revision 1 — see it.');
    expect(await page.getByText('Drafted. Check each card').count()).toBe(0);
    await screenshot(page, 'intake-paragraph-confirmed');

    const revision = await http(service, 'GET', `/v1/projects/${project_id}/intakes/1`, { token: owner.session });
    const spec = revision.body.spec;
    expect(spec.business.buyer.text).toBe(CORRECTIONS.Buyer);
    expect(spec.business.buyer.citations).toEqual([expect.objectContaining({ quote: BUYER_WORDS })]);
    expect(spec.problem.text).toBe(CORRECTIONS.Problem);
    expect(spec.stage.value).toBe('idea');
    // a field that holds a value is not also unknown
    const unknown_fields = spec.unknowns.map((u: { field: string }) => u.field);
    for (const field of ['problem', 'proposed_solution', 'intended_users', 'care_setting', 'stage', 'business.buyer', 'business.budget_owner'])
      expect(unknown_fields).not.toContain(field);

    // a second confirmation of the same draft, from the other tab, is refused: that tab then says which revision holds it
    await second.getByRole('button', { name: 'Confirm this intake' }).click();
    await second.getByTestId('draft-status').getByText('Confirmed as revision 1').waitFor();
    expect(await second.getByTestId('confirmed-once').textContent()).toContain('A draft is confirmed once.');
    expect(await second.getByRole('button', { name: 'Confirm this intake' }).count()).toBe(0);
    await screenshot(second, 'intake-second-confirm-refused');
    await second.close();
    expect((await http(service, 'GET', `/v1/projects/${project_id}/intakes`, { token: owner.session })).body.data).toHaveLength(1);

    // the draft, opened again, says it was confirmed and offers no second confirmation
    await page.goto(draft_url);
    await page.getByTestId('draft-status').getByText('Confirmed as revision 1').waitFor();
    expect(await page.getByRole('button', { name: 'Confirm this intake' }).count()).toBe(0);
    await page.getByTestId('draft-status').getByRole('link', { name: 'see it' }).click();

    // the revision's own page: read-only, with its citations
    await page.getByRole('heading', { name: 'Your intake, revision 1' }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/projects/${project_id}/intakes/1`);
    await card(page, 'Buyer').getByText(CORRECTIONS.Buyer).waitFor();
    expect(await card(page, 'Buyer').locator('mark').textContent()).toBe(BUYER_WORDS);
    expect(await page.getByRole('textbox').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Confirm this intake' }).count()).toBe(0);
    // the breadcrumb names the project and the step
    await page.getByTestId('breadcrumb').getByText('Intake, revision 1').waitFor();
    expect(await page.getByTestId('breadcrumb').innerText()).toMatch(/Projects\s*\/?\s*Heart failure at home\s*\/?\s*Intake, revision 1/);
    await screenshot(page, 'intake-revision');

    // "Correct it" starts the next revision from this one
    await page.getByRole('button', { name: 'Correct it' }).click();
    await page.getByRole('heading', { name: 'Correct your intake' }).waitFor();
    expect(await page.getByRole('textbox', { name: 'Buyer', exact: true }).inputValue()).toBe(CORRECTIONS.Buyer);
    const buyer_now = 'The integrated care board, through its community services commissioner.';
    await page.getByRole('textbox', { name: 'Buyer', exact: true }).fill(buyer_now);
    await page.getByRole('button', { name: 'Confirm this intake' }).click();
    await page.getByRole('heading', { name: 'Confirmed as revision 2' }).waitFor();
    const corrected = await http(service, 'GET', `/v1/projects/${project_id}/intakes/2`, { token: owner.session });
    expect(corrected.body.spec.business.buyer.text).toBe(buyer_now);
    expect(corrected.body.spec.business.buyer.citations).toEqual([expect.objectContaining({ quote: BUYER_WORDS })]);
    expect(corrected.body.draft_id).toBeNull();

    // the plan is made from revision 2 and shows the buyer entered, with its cited line
    await page.getByRole('button', { name: 'Plan the evaluations' }).click();
    await page.getByRole('heading', { name: 'Business questions' }).waitFor();
    const buyer_row = page.getByTestId('business-question').filter({ has: page.locator('dt', { hasText: /^Buyer$/ }) });
    expect(await buyer_row.locator('dd > q').textContent()).toBe(buyer_now);
    expect(await buyer_row.textContent()).not.toContain('unknown');
    await screenshot(page, 'intake-plan-buyer');

    // the plan's revision chip leads to the revision it was made from
    await page.getByRole('link', { name: 'intake revision 2' }).click();
    await page.getByRole('heading', { name: 'Your intake, revision 2' }).waitFor();
    await card(page, 'Buyer').getByText(buyer_now).waitFor();

    // the address the project page links to, for an older revision: it says a newer one exists
    await page.goto(`${service.url}/projects/${project_id}/intakes/1`);
    await page.getByRole('heading', { name: 'Your intake, revision 1' }).waitFor();
    await page.getByTestId('revision-status').getByRole('link', { name: 'revision 2' }).waitFor();
    await context.close();
  }, 240_000);

  it('shows the material and the cards as two tabs on a phone', async ({ onTestFailed }) => {
    const project_id = await newProjectWithParagraph('Heart failure on a phone');
    const { context, page } = await newPage(browser, PHONE);
    onTestFailed(async () => {
      await screenshot(page, 'intake-phone-failed');
    });
    await signInThroughForm(page, service, owner);
    await page.goto(`${service.url}/projects/${project_id}`);
    await page.getByRole('button', { name: /Draft the intake from 1 processed source/ }).click();
    await page.getByText('Drafted. Check each card').waitFor({ timeout: 60_000 });
    const tabs = page.getByRole('tablist', { name: 'Material or intake' });
    // the cards first; the material one tap away
    expect(await tabs.getByRole('tab', { name: 'The intake' }).getAttribute('aria-selected')).toBe('true');
    await page.getByRole('heading', { name: 'Buyer', exact: true }).waitFor();
    expect(await page.getByTestId('source-pane').isVisible()).toBe(false);
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(PHONE.width);
    await screenshot(page, 'intake-phone-cards');
    await tabs.getByRole('tab', { name: 'Your material' }).click();
    await page.getByTestId('source-pane').waitFor();
    expect(await page.getByRole('heading', { name: 'Buyer', exact: true }).isVisible()).toBe(false);
    expect(await page.getByTestId('source-pane').locator('[data-line]').first().textContent()).toBe(PARAGRAPH);
    await screenshot(page, 'intake-phone-material');
    await context.close();
  }, 120_000);
});
