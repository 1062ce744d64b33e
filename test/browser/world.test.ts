// Worlds and runs in Chromium, as a clinician would use them: start from a sample world in one click, see the pathway
// as a diagram, select a step and change its duration in its form, see a problem in words (and on its line in the
// Advanced tab), save, estimate under a budget the user types (nothing pre-filled), run, and read the results by
// measure. On every screen: no technical text outside the technical details, no serious axe-core violation, nothing
// wider than a 375-px phone; the cost chart's tick labels lie inside the chart.
import type { Page } from 'playwright-core';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOperator } from '../../runtime/operator.ts';
import { launchBrowser, newPage, screenshot, signInThroughForm } from '../support/browser.ts';
import { http, signedInOwner, startTestService, type TestService, type TestUser } from '../support/harness.ts';
import { technicalText, expectReadableScreen } from '../support/plainLanguage.ts';

const PHONE_375 = { width: 375, height: 800 };
const DESKTOP = { width: 1280, height: 900 };
const SAMPLE = 'Remote monitoring for heart failure and emergency admissions';

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

/** The checks every screen keeps, at desktop and at a 375-px phone, with a screenshot of each. */
/** Every tick label of a chart's axis lies inside the chart's drawing and its figure (none is cut off). */
async function expectTicksInside(page: Page, testId: string) {
  const measure = (): Promise<{ inside: boolean; text: string }[]> =>
    page.evaluate(`(() => {
    const out = [];
    for (const figure of document.querySelectorAll('[data-testid="${testId}"]')) {
      const svg = figure.querySelector('svg');
      const outer = svg.getBoundingClientRect();
      const box = figure.getBoundingClientRect();
      for (const tick of svg.querySelectorAll('.axis-tick')) {
        const r = tick.getBoundingClientRect();
        const inside = r.left >= outer.left - 0.5 && r.right <= outer.right + 0.5 && r.top >= outer.top - 0.5 && r.bottom <= outer.bottom + 0.5
          && r.left >= box.left && r.right <= box.right;
        out.push({ inside, text: tick.textContent });
      }
    }
    return out;
  })()`);
  // the plots redraw at their new width once the page has been resized
  await expect.poll(async () => (await measure()).filter((b) => !b.inside)).toEqual([]);
  const boxes = await measure();
  expect(boxes.length).toBeGreaterThan(1);
  return boxes.map((b) => b.text);
}

describe('worlds and runs in the browser', () => {
  it('builds a world from a sample in the diagram, changes a step in its form, saves, estimates and runs it', async ({ onTestFailed }) => {
    const { context, page } = await newPage(browser, DESKTOP);
    onTestFailed(async () => {
      await screenshot(page, 'world-flow-failed');
    });
    // the diagram, the editor and the plots live within the page's Content-Security-Policy (no eval, no inline script)
    const refused: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) refused.push(message.text());
    });
    page.on('pageerror', (error) => refused.push(error.message));
    const project = await http(service, 'POST', '/v1/projects', { token: user.session, body: { title: 'Remote monitoring', org_id: user.org_id } });
    expect(project.status).toBe(201);
    const project_id = (project.body as { id: string }).id;
    await signInThroughForm(page, service, user);
    await page.goto(`${service.url}/projects/${project_id}/worlds/new`);
    await page.getByRole('heading', { name: 'New world' }).waitFor();

    await page.getByRole('button', { name: SAMPLE }).waitFor();
    await expectReadableScreen(page, 'world-samples');
    // one click on a sample: its pathway is drawn, arrivals to exits
    await page.getByRole('button', { name: SAMPLE }).click();
    const diagram = page.getByTestId('world-diagram');
    await diagram.locator('.react-flow__node').first().waitFor();
    expect(await diagram.locator('.react-flow__node').count()).toBe(5);
    expect(await diagram.locator('.react-flow__edge').count()).toBeGreaterThanOrEqual(4);
    expect(await diagram.textContent()).toContain('Cardiology ward beds (5)');

    // keyboard: a step is reached with Tab and opened with Enter
    await diagram
      .locator('.react-flow__node')
      .filter({ has: page.locator('.world-node-title', { hasText: /^Follow up$/ }) })
      .focus();
    await page.keyboard.press('Enter');
    await page
      .getByTestId('step-form')
      .getByRole('heading', { name: /Follow up/ })
      .waitFor();
    await page.getByRole('button', { name: 'Back to the whole world' }).click();
    // the whole world's form: fewer repetitions, so the run is quick on a busy machine
    await page.getByLabel('Repetitions per variant (runs of the model)').fill('5');
    // select the admission step in the diagram and change its duration in its form
    await diagram
      .locator('.react-flow__node')
      .filter({ has: page.locator('.world-node-title', { hasText: /^Admission$/ }) })
      .click();
    const form = page.getByTestId('step-form');
    await form.getByRole('heading', { name: /Admission/ }).waitFor();
    expect(await form.getByLabel('Resource').inputValue()).toBe('ward_bed');
    await form.getByLabel('Average duration', { exact: true }).fill('6');
    await form.getByLabel('Spread, as a standard deviation', { exact: true }).fill('3');
    // the diagram follows the form
    await expect.poll(() => diagram.textContent()).toContain('6 days on average');
    await expectReadableScreen(page, 'world-editor');

    // the Advanced tab: the same world as JSON, with the form's changes
    await page.getByRole('tab', { name: 'Advanced (JSON)' }).click();
    const editor = page.getByTestId('json-editor');
    await editor.locator('.cm-content').waitFor();
    // CodeMirror draws only the lines in view: the document is read from the editor itself (EditorView.findFromDOM's way)
    const documentText = () => page.evaluate<string>(`document.querySelector('.cm-content').cmTile.root.view.state.doc.toString()`);
    const json = JSON.parse(await documentText());
    expect(json.steps.find((s: { id: string }) => s.id === 'admission').duration).toEqual({ dist: 'lognormal', mean: { setting: 'length_of_stay' }, sd: 3 });
    expect(json.settings.length_of_stay.value).toBe(6);
    expect(json.replications).toBe(5);
    // completion from the published schema: a property the world does not have yet is offered
    await editor.locator('.cm-content').click();
    await page.keyboard.press('ControlOrMeta+Home');
    await page.keyboard.press('End');
    await page.keyboard.press('Enter');
    await page.keyboard.type('"stop');
    await page.locator('.cm-tooltip-autocomplete').getByText('stop_when').waitFor();
    await page.keyboard.press('Escape');
    // a problem is marked on its line: a horizon before the warm-up
    await editor.locator('.cm-content').click();
    await page.keyboard.press('ControlOrMeta+a');
    // and a step whose patients give up waiting without a maximum wait or a patience time
    const admission_renege = json.steps.map((s: { id: string }) => (s.id === 'admission' ? { ...s, renege_to: 'discharged_from_service' } : s));
    await page.keyboard.insertText(JSON.stringify({ ...json, horizon: -1, steps: admission_renege }, null, 2));
    // CodeMirror draws the lines in view only: back to the top, where the horizon is
    await page.keyboard.press('ControlOrMeta+Home');
    const marked = editor.locator('.cm-lintRange-error');
    await marked.first().waitFor();
    const markedLines = await editor.locator('.cm-line', { has: page.locator('.cm-lintRange-error') }).allInnerTexts();
    expect(markedLines.map((line) => line.trim())).toContain('"horizon": -1,');
    await screenshot(page, 'world-editor-json-problem');
    // saving says what to fix in words, never an API path or a pointer
    await page.getByRole('button', { name: 'Save this world' }).click();
    const problems = page.getByTestId('world-problems');
    await problems.waitFor();
    expect(await problems.textContent()).toMatch(/Simulated period: must be more than 0/);
    // the step by its name and what to change, in a sentence: no field name
    await problems.getByText('“Admission”: patients who give up waiting need a maximum wait or a patience time.').waitFor();
    expect(await problems.textContent()).not.toMatch(/renege/i);
    expect(await technicalText(page)).toEqual([]);
    await screenshot(page, 'world-editor-problems');
    await page.getByRole('tab', { name: 'Pathway' }).click();
    await page.getByRole('button', { name: 'Back to the whole world' }).click();
    await page.getByLabel('Simulated period', { exact: true }).fill('730');
    // the Advanced tab's document is the world: the step's change goes back out with it
    await page.getByRole('tab', { name: 'Advanced (JSON)' }).click();
    await editor.locator('.cm-content').click();
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.insertText(JSON.stringify({ ...json, horizon: 730 }, null, 2));
    await page.getByRole('tab', { name: 'Pathway' }).click();
    await page.getByRole('button', { name: 'Check' }).click();
    await page.getByText('The world is valid').waitFor();

    await page.getByRole('button', { name: 'Save this world' }).click();
    await page.getByRole('heading', { name: SAMPLE, level: 1 }).waitFor();
    expect(page.url()).toMatch(/\/world-revisions\/wrev_/);
    const revision_id = page.url().split('/').pop()!;
    const saved = await http(service, 'GET', `/v1/world-revisions/${revision_id}`, { token: user.session });
    const world = (
      saved.body as {
        world: { steps: Array<{ id: string; duration?: unknown }>; settings: Record<string, { value: number }>; replications: number; horizon: number };
      }
    ).world;
    expect(world.steps.find((s) => s.id === 'admission')!.duration).toEqual({ dist: 'lognormal', mean: { setting: 'length_of_stay' }, sd: 3 });
    expect(world.settings.length_of_stay!.value).toBe(6);
    expect([world.replications, world.horizon]).toEqual([5, 730]);

    // spec: WorldSpec and run — nothing is pre-filled as a budget; a budget that is not a whole number is refused in words
    const budget = page.getByLabel('Budget (credits)');
    expect(await budget.inputValue()).toBe('');
    expect(await page.getByRole('button', { name: 'Run', exact: true }).isDisabled()).toBe(true);
    await budget.fill('0');
    await page.getByRole('button', { name: 'Estimate' }).click();
    await page.getByText('Type a whole number of credits, 1 or more.').waitFor();
    await budget.fill('50');
    await page.getByRole('button', { name: 'Estimate' }).click();
    const estimate = page.getByTestId('estimate');
    await estimate.getByText('Ready to run.').waitFor();
    expect(await estimate.textContent()).toContain('up to 50 credits, charged at actual use');
    await expectReadableScreen(page, 'world-revision');
    const header = page.getByTestId('header-credits');
    const available = async () => Number((await header.textContent())?.replaceAll(',', ''));
    const before_run = await available();
    await page.getByRole('button', { name: 'Run', exact: true }).click();

    // the results, by measure: the comparison first, then each variant, with labels and units
    await page.getByRole('heading', { name: `Simulation: ${SAMPLE}` }).waitFor();
    await page.getByTestId('cost-chart').waitFor({ timeout: 120_000 });
    await page.getByText('Finished', { exact: true }).waitFor();
    // the repetitions said once, per variant, and the comparisons by their pairs
    expect(await page.getByTestId('repetitions').textContent()).toBe('All 10 repetitions done: 5 for each of the 2 variants');
    expect(await page.getByTestId('measure').first().locator('p.comparison').textContent()).toContain(
      'from 5 pairs of repetitions run under the same conditions',
    );
    // a mean's interval never reads below 0 (nor a share above 100%): each cut bound has its note, the stored one is as computed
    const run_id = page.url().split('/').pop()!;
    // the header's balance follows the run's charge once it ends, without a reload
    const charged = await http(service, 'GET', `/v1/runs/${run_id}`, { token: user.session });
    expect(charged.body.credits_used).toBeGreaterThan(0);
    await expect.poll(available).toBe(before_run - (charged.body.credits_used as number));
    const stored = await http(service, 'GET', `/v1/runs/${run_id}/results`, { token: user.session });
    const cut = (stored.body.metrics as Array<{ unit: string; interval_95: { low: number | null; high: number | null } }>).filter(
      (m) => (m.interval_95.low ?? 0) < 0 || (m.unit === 'fraction' && (m.interval_95.high ?? 0) > 1),
    );
    const means = await page.getByTestId('variant-mean').allInnerTexts();
    expect(means).toHaveLength(10);
    expect(means.filter((line) => /95% interval [−-]/.test(line))).toEqual([]);
    expect(await page.getByTestId('few-repetitions').count()).toBe(cut.length);
    const measures = page.getByTestId('measure');
    expect(await measures.count()).toBe(5);
    const admissions = measures.filter({ has: page.getByRole('heading', { name: /^Emergency admissions/ }) });
    const paragraphs = await admissions.locator('p, li').allInnerTexts();
    // what the comparison means, in a sentence with its unit and how sure it is; a variant's label inside a sentence goes
    // on in lower case, and keeps its capital where it starts one
    expect(paragraphs[0]).toMatch(
      /^What this means: Remote monitoring (lowers|raises) emergency admissions by about [\d,.]+ per repetition compared with usual care \(95% interval .*, from 5 pairs of repetitions run under the same conditions\); the interval (excludes no change, so this is a clear difference in the model|includes no change, so the model does not show a clear difference)\.$/,
    );
    expect(paragraphs.find((p) => p.startsWith('Usual care: '))).toMatch(
      /^Usual care: [\d,.]+ on average per repetition \(95% interval [\d,.]+ to [\d,.]+, from 5 repetitions\)$/,
    );
    // admissions per enrolled patient: each patient is admitted at most once, so it reads as a percentage of arrivals
    const perPatient = measures.filter({ has: page.getByRole('heading', { name: /^Admissions per enrolled patient/ }) });
    expect(await perPatient.getByRole('heading').textContent()).toBe('Admissions per enrolled patient (percent of arrivals)');
    expect(await perPatient.getByTestId('variant-mean').first().textContent()).toMatch(
      /^Usual care: [\d.]+% of arrivals \(95% interval [\d.]+% to [\d.]+%, from 5 repetitions\)$/,
    );
    expect(await perPatient.getByTestId('what-this-means').textContent()).toMatch(/ by about [\d.]+ percentage points compared with usual care /);
    expect(await admissions.getByTestId('differences-chart').locator('figcaption').textContent()).toMatch(/^Difference from usual care: /);
    expect(paragraphs.some((p) => p.startsWith('Usual care: '))).toBe(true);
    expect(await page.getByTestId('means-chart').count()).toBe(5);
    expect(await page.locator('[data-testid="means-chart"] .interval').count()).toBe(10);
    const occupancy = measures.filter({ has: page.getByRole('heading', { name: /^Bed occupancy/ }) });
    expect(await occupancy.textContent()).toMatch(/\d%/);
    // a share's axis reads in whole percentage points, zero as 0 (no floating-point noise)
    const occupancyTicks = await occupancy.locator('[data-testid="differences-chart"] .axis-tick').allTextContents();
    expect(occupancyTicks.length).toBeGreaterThan(1);
    expect(occupancyTicks.filter((t) => !/^[-+−]?\d+ pts$/.test(t))).toEqual([]);
    // the cost axis is whole: every label in the box, with a currency sign and thousands separators
    const ticks = await expectTicksInside(page, 'cost-chart');
    expect(ticks.some((t) => /^£\d{1,3}(,\d{3})+$/.test(t!))).toBe(true);
    await expectTicksInside(page, 'means-chart');
    await expectTicksInside(page, 'differences-chart');
    await expectReadableScreen(page, 'run-results');
    await page.setViewportSize(PHONE_375);
    await expectTicksInside(page, 'cost-chart');
    await page.setViewportSize(DESKTOP);

    // the event trace, paged, behind its own disclosure
    await page.getByTestId('events').locator('summary').click();
    const rows = page.getByTestId('events').locator('tbody');
    await rows.locator('tr').first().waitFor();
    const firstEvents = await rows.textContent();
    expect(firstEvents).toContain('Usual care');
    // each moment as a day and a clock time; people numbered in the order they arrive, never a number given twice
    const cells = await rows.locator('tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')));
    expect(cells.filter((row) => !/^day \d+, \d\d:\d\d$/.test(row[1]!))).toEqual([]);
    const arrived = cells.filter((row) => row[3] === 'arrives').map((row) => row[2]);
    expect(arrived.length).toBeGreaterThan(1);
    expect(arrived).toEqual(arrived.map((_, index) => `Person ${index + 1}`));
    await screenshot(page, 'run-events');
    await page.getByTestId('events').getByRole('button', { name: 'Next' }).click();
    await expect.poll(() => rows.textContent()).not.toBe(firstEvents);
    expect(await technicalText(page)).toEqual([]);

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download all results (ZIP)' }).click()]);
    expect(download.suggestedFilename()).toMatch(/\.zip$/);
    expect(refused).toEqual([]);
    await context.close();
  }, 300_000);
});
