// The world editor's diagram as the whole editor, in Chromium, without the JSON tab: a pathway built from nothing
// (steps of each kind added, connected, renamed and one removed, by keyboard where a person would; arrivals with their
// unit; a measure; a variant that changes a value), saved, run and read; and a sample whose baseline edit now runs a
// variant against its own stated reason, flagged before saving and put right in the variant's form.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOperator } from '../../runtime/operator.ts';
import { launchBrowser, newPage, screenshot, signInThroughForm } from '../support/browser.ts';
import { http, signedInOwner, startTestService, type TestService, type TestUser } from '../support/harness.ts';
import { technicalText, expectReadableScreen } from '../support/plainLanguage.ts';

const DESKTOP = { width: 1280, height: 900 };
const GP_SAMPLE = 'GP practice triage with a digital front door';

let service: TestService;
let browser: Browser;
let user: TestUser;

beforeAll(async () => {
  service = await startTestService();
  user = await signedInOwner(service, 'web-world-diagram');
  await runOperator(service.db, { command: 'grant-credits', flags: { org: user.org_id, credits: '100000', reason: 'browser test' } });
  browser = await launchBrowser();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

async function openEditor(page: Page, title: string) {
  const project = await http(service, 'POST', '/v1/projects', { token: user.session, body: { title, org_id: user.org_id } });
  expect(project.status).toBe(201);
  await page.goto(`${service.url}/projects/${(project.body as { id: string }).id}/worlds/new`);
  await page.getByRole('heading', { name: 'New world' }).waitFor();
}

/** A node of the diagram by its title, opened by keyboard: Tab's focus, then Enter. */
async function openNode(page: Page, title: string) {
  const node = page
    .getByTestId('world-diagram')
    .locator('.react-flow__node')
    .filter({ has: page.locator('.world-node-title', { hasText: new RegExp(`^${title.replace(/[?]/g, '\\?')}$`) }) });
  // the node holds the keyboard's focus before Enter is pressed (a form field typed in just before may still be re-rendering)
  await expect
    .poll(async () => {
      await node.focus();
      return node.evaluate((element) => element === element.ownerDocument.activeElement);
    })
    .toBe(true);
  await page.keyboard.press('Enter');
  await page.getByTestId('step-form').getByRole('heading', { name: title }).waitFor();
}

/** Adds a step of a kind after the selected one, by keyboard: the kind chosen, the name typed, Enter. */
async function addStep(page: Page, kind: string, name: string) {
  await page.getByLabel('Add a step').selectOption(kind);
  await page.getByLabel('Its name').fill(name);
  await page.getByLabel('Its name').press('Enter');
  await page.getByTestId('step-form').getByRole('heading', { name }).waitFor();
}

const diagramText = (page: Page) => page.getByTestId('world-diagram').textContent();

describe('the diagram edits the whole world', () => {
  it('builds a pathway from nothing, with a variant, then saves, runs and reads it', async ({ onTestFailed }) => {
    const { context, page } = await newPage(browser, DESKTOP);
    onTestFailed(async () => {
      await screenshot(page, 'world-diagram-failed');
    });
    await signInThroughForm(page, service, user);
    await openEditor(page, 'Physiotherapy first contact');
    await page.getByRole('button', { name: 'Start from nothing' }).click();
    const whole = page.getByRole('group', { name: 'The whole world' });
    await whole.getByLabel('Name', { exact: true }).fill('Physiotherapy first contact');
    await page.getByLabel('What it models').fill('Patients book a physiotherapy assessment; some need treatment, others go home with advice.');
    await page.getByLabel('Repetitions per variant (runs of the model)').fill('4');

    // arrivals: the rate with its unit, read back by the diagram in the same unit
    await openNode(page, 'Patients');
    await page.getByLabel('Arrivals on average', { exact: true }).fill('3');
    expect(await page.getByLabel('Unit of arrivals on average').inputValue()).toBe('per_hour');
    await expect.poll(() => diagramText(page)).toContain('about 3 an hour, at random');

    // a care step after the arrivals, its time and its staff
    await addStep(page, 'service', 'Physiotherapy assessment');
    const form = page.getByTestId('step-form');
    expect(await form.getByLabel('Unit of average duration').inputValue()).toBe('minutes');
    await form.getByLabel('Average duration', { exact: true }).fill('30');
    await form.getByLabel('How many staff at once').fill('3');
    await expect.poll(() => diagramText(page)).toContain('30 minutes on average');
    expect(await diagramText(page)).toContain('Staff (3)');

    // a decision after it, a second way out, and a treatment step connected from the decision
    await addStep(page, 'branch', 'Needs treatment?');
    await addStep(page, 'exit', 'Discharged with advice');
    await openNode(page, 'Needs treatment?');
    await addStep(page, 'service', 'Treatment');
    await openNode(page, 'Needs treatment?');
    await form.getByLabel('Way 1 goes to').selectOption({ label: 'Treatment' });
    await form.getByLabel('Way 2 goes to').selectOption({ label: 'Discharged with advice' });
    await form.getByLabel('Share going to Treatment (%)', { exact: true }).fill('70');
    await form.getByLabel('Share going to Discharged with advice (%)', { exact: true }).fill('30');
    await form.getByText('now 100%').waitFor();
    await expect.poll(() => diagramText(page)).toContain('70%');

    // rename: the label changes everywhere, the id stays
    await openNode(page, 'Physiotherapy assessment');
    await form.getByLabel('Name', { exact: true }).fill('First assessment');
    await expect.poll(() => diagramText(page)).toContain('First assessment');

    // remove, by keyboard, after being told what depends on the step
    await addStep(page, 'delay', 'Paperwork');
    await form.getByRole('button', { name: 'Remove “Paperwork”' }).press('Enter');
    const confirm = page.getByTestId('remove-confirm');
    expect(await confirm.textContent()).toContain('“First assessment” goes on to it: it will go on to “Needs treatment?” instead');
    await confirm.getByRole('button', { name: 'Remove it' }).press('Enter');
    await expect.poll(() => diagramText(page)).not.toContain('Paperwork');
    await openNode(page, 'First assessment');
    expect(await form.getByLabel('Then goes to').inputValue()).toBe('needs_treatment');

    // a measure, in the whole world's form
    await page.getByRole('button', { name: 'Back to the whole world' }).click();
    await page.getByLabel('What to measure').selectOption('time_between');
    await page.getByLabel('From', { exact: true }).selectOption({ label: 'First assessment' });
    await page.getByLabel('To', { exact: true }).selectOption({ label: 'Discharged with advice' });
    await page.getByLabel('In', { exact: true }).selectOption('hours');
    await page.getByRole('button', { name: 'Add this measure' }).click();
    await expectReadableScreen(page, 'world-built-from-nothing');

    // the variant: the baseline with its change, made in the same form
    await page.getByLabel('The diagram shows').selectOption({ label: 'With the change (changes highlighted)' });
    const variant = page.getByTestId('variant-form');
    await variant.getByLabel('Name', { exact: true }).fill('Shorter assessment');
    await openNode(page, 'First assessment');
    const duration = form.locator('.quantity', { has: page.getByLabel('Average duration', { exact: true }) });
    await duration.getByRole('button', { name: 'Let variants change it' }).click();
    await form.getByLabel('Average duration', { exact: true }).fill('20');
    await expect.poll(() => diagramText(page)).toContain('20 minutes on average');
    expect(await diagramText(page)).toContain('changed in this variant');
    await page.getByRole('button', { name: 'Back to the variant' }).click();
    await variant.getByLabel('Why it changes').fill('a triage form shortens the assessment');
    expect(await variant.textContent()).toContain('in the baseline 30 minutes');
    expect(await page.getByTestId('variant-flags').count()).toBe(0);
    await expectReadableScreen(page, 'world-variant');
    await page.getByLabel('The diagram shows').selectOption({ label: 'Usual care (the baseline)' });
    await expect.poll(() => diagramText(page)).toContain('30 minutes on average');

    // checked, saved, run and read
    await page.getByRole('button', { name: 'Check' }).click();
    await page.getByText('The world is valid').waitFor();
    await page.getByRole('button', { name: 'Save this world' }).click();
    await page.getByRole('heading', { name: 'Physiotherapy first contact', level: 1 }).waitFor();
    const saved = await http(service, 'GET', `/v1/world-revisions/${page.url().split('/').pop()}`, { token: user.session });
    const world = (saved.body as { world: { steps: Array<{ id: string; label?: string }>; variants: Array<{ label: string; changes: unknown[] }> } }).world;
    expect(world.steps.find((s) => s.id === 'physiotherapy_assessment')?.label).toBe('First assessment');
    expect(world.variants.map((v) => [v.label, v.changes.length])).toEqual([
      ['Usual care', 0],
      ['Shorter assessment', 1],
    ]);
    await page.getByLabel('Budget (credits)').fill('500');
    await page.getByRole('button', { name: 'Estimate' }).click();
    await page.getByTestId('estimate').getByText('Ready to run.').waitFor();
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.getByText('Finished', { exact: true }).waitFor({ timeout: 120_000 });
    const measure = page.getByTestId('measure').filter({ has: page.getByRole('heading', { name: /^Time from First assessment to Discharged with advice/ }) });
    await measure.waitFor();
    expect(await measure.textContent()).toContain('Shorter assessment');
    expect(await technicalText(page)).toEqual([]);
    await screenshot(page, 'world-built-from-nothing-results');
    await context.close();
  }, 300_000);

  it('edits a variant in the same forms as the baseline: a step it adds, a step it changes and how many staff it has, saved and run', async ({
    onTestFailed,
  }) => {
    const { context, page } = await newPage(browser, DESKTOP);
    onTestFailed(async () => {
      await screenshot(page, 'world-variant-structure-failed');
    });
    await signInThroughForm(page, service, user);
    await openEditor(page, 'Online form before assessment');
    await page.getByRole('button', { name: 'Start from nothing' }).click();
    await page.getByRole('group', { name: 'The whole world' }).getByLabel('Name', { exact: true }).fill('Online form before assessment');
    await page.getByLabel('Repetitions per variant (runs of the model)').fill('3');

    // the baseline: patients arrive and are assessed by 2 staff
    await openNode(page, 'Patients');
    await page.getByLabel('Arrivals on average', { exact: true }).fill('2');
    await addStep(page, 'service', 'Assessment');
    const form = page.getByTestId('step-form');
    await form.getByLabel('Average duration', { exact: true }).fill('40');
    await form.getByLabel('How many staff at once').fill('2');
    await expect.poll(() => diagramText(page)).toContain('Staff (2)');

    // the variant, in the same forms: an online form after the assessment, and a third member of staff
    await page.getByRole('button', { name: 'Back to the whole world' }).click();
    await page.getByLabel('The diagram shows').selectOption({ label: 'With the change (changes highlighted)' });
    const variant = page.getByTestId('variant-form');
    await variant.getByLabel('Name', { exact: true }).fill('Online form and a third assessor');
    await openNode(page, 'Assessment');
    await addStep(page, 'delay', 'Online form');
    expect(await form.getByLabel('Unit of duration').inputValue()).toBe('hours');
    await form.getByLabel('Duration', { exact: true }).fill('2');
    await openNode(page, 'Assessment');
    expect(await form.getByLabel('Then goes to').inputValue()).toBe('online_form');
    await form.getByLabel('How many staff at once').fill('3');
    await expect.poll(() => diagramText(page)).toContain('Staff (3)');
    expect(await diagramText(page)).toContain('Online form');
    expect(await page.getByTestId('world-diagram').locator('.world-node.is-changed').count()).toBeGreaterThanOrEqual(2);
    await page.getByRole('button', { name: 'Back to the variant' }).click();
    const steps = await variant.getByTestId('variant-step-change').allTextContents();
    expect(steps.join('\n')).toContain('Adds “Online form” (time passes)');
    expect(steps.join('\n')).toContain("Changes “Assessment” from the baseline's");
    expect(await variant.getByTestId('variant-change').textContent()).toContain('in the baseline 2');
    await variant.getByLabel('Why its pathway changes').fill('patients fill in an online form after their assessment');
    await variant.getByLabel('Why it changes').fill('a third assessor is funded');
    await expectReadableScreen(page, 'world-variant-structure');

    // the baseline keeps its own pathway and staff
    await page.getByLabel('The diagram shows').selectOption({ label: 'Usual care (the baseline)' });
    await expect.poll(() => diagramText(page)).toContain('Staff (2)');
    expect(await diagramText(page)).not.toContain('Online form');

    await page.getByRole('button', { name: 'Check' }).click();
    await page.getByText('The world is valid').waitFor();
    await page.getByRole('button', { name: 'Save this world' }).click();
    await page.getByRole('heading', { name: 'Online form before assessment', level: 1 }).waitFor();
    const saved = await http(service, 'GET', `/v1/world-revisions/${page.url().split('/').pop()}`, { token: user.session });
    const world = (saved.body as { world: any }).world;
    expect(world.steps.map((s: { id: string }) => s.id).sort()).toEqual(['assessment', 'leaves']);
    const treatment = world.variants.find((v: { role: string }) => v.role === 'treatment');
    expect(treatment.label).toBe('Online form and a third assessor');
    expect(treatment.structure.add_steps.map((s: { id: string; next: string }) => [s.id, s.next])).toEqual([['online_form', 'leaves']]);
    expect(treatment.structure.replace_steps.map((s: { id: string; next: string }) => [s.id, s.next])).toEqual([['assessment', 'online_form']]);
    expect(treatment.structure.rationale).toBe('patients fill in an online form after their assessment');
    const staffSetting = world.resources[0].capacity.setting;
    expect(world.settings[staffSetting].value).toBe(2);
    expect(treatment.changes).toEqual([{ setting: staffSetting, value: 3, rationale: 'a third assessor is funded' }]);
    // the saved world says what the variant changes, in words
    const compared = page.locator('ul.variants');
    expect(await compared.textContent()).toContain('Adds “Online form” (time passes)');
    expect(await compared.textContent()).toContain('Staff available at once: 2 becomes 3');

    await page.getByLabel('Budget (credits)').fill('500');
    await page.getByRole('button', { name: 'Estimate' }).click();
    await page.getByTestId('estimate').getByText('Ready to run.').waitFor();
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.getByText('Finished', { exact: true }).waitFor({ timeout: 120_000 });
    expect(await page.locator('main').textContent()).toContain('Online form and a third assessor');
    expect(await technicalText(page)).toEqual([]);
    await screenshot(page, 'world-variant-structure-results');
    await context.close();
  }, 300_000);

  it('turns people away from a full queue to a step chosen in the form, counts them, and runs', async ({ onTestFailed }) => {
    const { context, page } = await newPage(browser, DESKTOP);
    onTestFailed(async () => {
      await screenshot(page, 'world-queue-limit-failed');
    });
    await signInThroughForm(page, service, user);
    await openEditor(page, 'Walk-in clinic');
    await page.getByRole('button', { name: 'Start from nothing' }).click();
    await page.getByRole('group', { name: 'The whole world' }).getByLabel('Name', { exact: true }).fill('Walk-in clinic');
    await page.getByLabel('Repetitions per variant (runs of the model)').fill('3');
    await openNode(page, 'Patients');
    await page.getByLabel('Arrivals on average', { exact: true }).fill('3');
    await addStep(page, 'service', 'Walk-in clinic');
    const form = page.getByTestId('step-form');
    await form.getByLabel('Average duration', { exact: true }).fill('30');
    await form.getByLabel('How many staff at once').fill('1');
    await addStep(page, 'exit', 'Sent to another clinic');

    // the queue limit in words: full at 3 waiting, those turned away go to another clinic
    await openNode(page, 'Walk-in clinic');
    expect(await form.textContent()).toContain('Everyone waits, however long the queue.');
    await form.getByLabel('Turn people away when the queue is full').check();
    await form.getByLabel('Full when this many are already waiting', { exact: true }).fill('3');
    await form.getByLabel('People turned away go to').selectOption({ label: 'Sent to another clinic' });
    await expect.poll(() => diagramText(page)).toContain('turned away: queue full');
    await expectReadableScreen(page, 'world-queue-limit');

    // counted in the whole world's form
    await page.getByRole('button', { name: 'Back to the whole world' }).click();
    await page.getByLabel('What to measure').selectOption('turned_away');
    await page.getByLabel('Step', { exact: true }).selectOption({ label: 'Walk-in clinic' });
    await page.getByRole('button', { name: 'Add this measure' }).click();
    await page.getByRole('button', { name: 'Check' }).click();
    await page.getByText('The world is valid').waitFor();
    await page.getByRole('button', { name: 'Save this world' }).click();
    await page.getByRole('heading', { name: 'Walk-in clinic', level: 1 }).waitFor();
    const saved = await http(service, 'GET', `/v1/world-revisions/${page.url().split('/').pop()}`, { token: user.session });
    const world = (saved.body as { world: any }).world;
    expect(world.steps.find((s: { id: string }) => s.id === 'walk_in_clinic').queue_limit).toEqual({ max_waiting: 3, to: 'sent_to_another_clinic' });
    expect(world.measured.at(-1)).toMatchObject({ kind: 'count', event: { step: 'walk_in_clinic', at: 'turned_away' } });

    await page.getByLabel('Budget (credits)').fill('500');
    await page.getByRole('button', { name: 'Estimate' }).click();
    await page.getByTestId('estimate').getByText('Ready to run.').waitFor();
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.getByText('Finished', { exact: true }).waitFor({ timeout: 120_000 });
    await page
      .getByTestId('measure')
      .filter({ has: page.getByRole('heading', { name: /^People turned away at Walk-in clinic/ }) })
      .waitFor();
    expect(await technicalText(page)).toEqual([]);
    await screenshot(page, 'world-queue-limit-results');
    await context.close();
  }, 300_000);

  it('sends people by a rule on a characteristic of the people arriving, set in the forms, and runs', async ({ onTestFailed }) => {
    const { context, page } = await newPage(browser, DESKTOP);
    onTestFailed(async () => {
      await screenshot(page, 'world-rules-failed');
    });
    await signInThroughForm(page, service, user);
    await openEditor(page, 'Urgent referrals');
    await page.getByRole('button', { name: 'Start from nothing' }).click();
    await page.getByRole('group', { name: 'The whole world' }).getByLabel('Name', { exact: true }).fill('Urgent referrals');
    await page.getByLabel('Repetitions per variant (runs of the model)').fill('3');

    // the people arriving: 30% urgent, 70% routine
    await openNode(page, 'Patients');
    const form = page.getByTestId('step-form');
    await form.getByLabel('A new characteristic').fill('Urgency');
    await form.getByRole('button', { name: 'Add this characteristic' }).click();
    await form.getByLabel('Urgency: value 1').fill('urgent');
    await form.getByLabel('Share of people who are urgent').fill('30');
    await form.getByLabel('Urgency: value 2').fill('routine');
    await form.getByLabel('Share of people who are routine').fill('70');

    // a decision by rule: urgent patients to a same-day clinic, everyone else leaves
    await addStep(page, 'branch', 'Urgent?');
    await addStep(page, 'exit', 'Same-day clinic');
    await openNode(page, 'Urgent?');
    await form.getByLabel('How people are sent on').selectOption('rules');
    await form.getByLabel('Rule 1: characteristic').selectOption({ label: 'Urgency' });
    await form.getByLabel('Rule 1: how it compares').selectOption('eq');
    await form.getByLabel('Rule 1: value').selectOption('urgent');
    await form.getByLabel('Rule 1 goes to').selectOption({ label: 'Same-day clinic' });
    await form.getByLabel('Everyone else goes to').selectOption({ label: 'Leaves the pathway' });
    expect(await form.getByTestId('rule').textContent()).toContain('Rule 1: when urgency is urgent');
    await expect.poll(() => diagramText(page)).toContain('Urgency is urgent');
    expect(await diagramText(page)).toContain('otherwise');
    await expectReadableScreen(page, 'world-rules');

    await page.getByRole('button', { name: 'Back to the whole world' }).click();
    await page.getByLabel('What to measure').selectOption('count');
    await page.getByLabel('Step', { exact: true }).selectOption({ label: 'Same-day clinic' });
    await page.getByRole('button', { name: 'Add this measure' }).click();
    await page.getByRole('button', { name: 'Check' }).click();
    await page.getByText('The world is valid').waitFor();
    await page.getByRole('button', { name: 'Save this world' }).click();
    await page.getByRole('heading', { name: 'Urgent referrals', level: 1 }).waitFor();
    const saved = await http(service, 'GET', `/v1/world-revisions/${page.url().split('/').pop()}`, { token: user.session });
    const world = (saved.body as { world: any }).world;
    expect(world.arrivals[0].attributes).toEqual([
      {
        name: 'urgency',
        values: [
          { value: 'urgent', probability: 0.3 },
          { value: 'routine', probability: 0.7 },
        ],
      },
    ]);
    expect(world.steps.find((s: { id: string }) => s.id === 'urgent')).toMatchObject({
      by: 'rules',
      options: [{ when: [{ attribute: 'urgency', op: 'eq', value: 'urgent' }], next: 'same_day_clinic' }],
      otherwise: 'leaves',
    });
    await page.getByLabel('Budget (credits)').fill('500');
    await page.getByRole('button', { name: 'Estimate' }).click();
    await page.getByTestId('estimate').getByText('Ready to run.').waitFor();
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.getByText('Finished', { exact: true }).waitFor({ timeout: 120_000 });
    await page
      .getByTestId('measure')
      .filter({ has: page.getByRole('heading', { name: /^People reaching Same-day clinic/ }) })
      .waitFor();
    expect(await technicalText(page)).toEqual([]);
    await screenshot(page, 'world-rules-results');
    await context.close();
  }, 300_000);

  it('connects a step to another by dragging from its lower edge, as by keyboard', async ({ onTestFailed }) => {
    const { context, page } = await newPage(browser, DESKTOP);
    onTestFailed(async () => {
      await screenshot(page, 'world-drag-connect-failed');
    });
    await signInThroughForm(page, service, user);
    await openEditor(page, 'Drag to connect');
    await page.getByRole('button', { name: 'Start from nothing' }).click();
    await openNode(page, 'Patients');
    await addStep(page, 'delay', 'Paperwork');
    await addStep(page, 'exit', 'Discharged');
    await openNode(page, 'Paperwork');
    const form = page.getByTestId('step-form');
    expect(await form.getByLabel('Then goes to').inputValue()).toBe('leaves');

    // drag from the lower edge of "Paperwork" to "Discharged"
    const node = (title: string) =>
      page
        .getByTestId('world-diagram')
        .locator('.react-flow__node')
        .filter({ has: page.locator('.world-node-title', { hasText: new RegExp(`^${title}$`) }) });
    const from = await node('Paperwork').locator('.react-flow__handle-bottom').boundingBox();
    const to = await node('Discharged').locator('.react-flow__handle-top').boundingBox();
    expect(from).not.toBeNull();
    expect(to).not.toBeNull();
    await page.mouse.move(from!.x + from!.width / 2, from!.y + from!.height / 2);
    await page.mouse.down();
    await page.mouse.move(to!.x + to!.width / 2, to!.y + to!.height / 2, { steps: 12 });
    await page.mouse.up();
    await expect.poll(() => form.getByLabel('Then goes to').inputValue()).toBe('discharged');
    await screenshot(page, 'world-drag-connect');
    await context.close();
  }, 120_000);

  it('flags a variant that a baseline edit turned against its own reason, and the variant is put right in its form', async ({ onTestFailed }) => {
    const { context, page } = await newPage(browser, DESKTOP);
    onTestFailed(async () => {
      await screenshot(page, 'world-variant-flags-failed');
    });
    await signInThroughForm(page, service, user);
    await openEditor(page, 'GP triage');
    await page.getByRole('button', { name: GP_SAMPLE }).click();
    // the diagram reads the sample in people's units
    await expect.poll(() => diagramText(page)).toContain('about 455 a week, by hour of the week');
    expect(await diagramText(page)).toContain('GP appointment');
    expect(await page.getByLabel('Simulated period', { exact: true }).inputValue()).toBe('28');
    expect(await page.getByLabel('Unit of simulated period').inputValue()).toBe('days');
    // the week's timetable as a small table of arrivals per hour
    await openNode(page, 'Requests');
    expect(await page.getByLabel('How people arrive').inputValue()).toBe('week');
    expect(await page.getByLabel('Monday, 08:00 to 09:00').inputValue()).toBe('14');
    await page.getByLabel('Saturday, 10:00 to 11:00').fill('4');
    await expect.poll(() => diagramText(page)).toContain('about 459 a week, by hour of the week');
    await expectReadableScreen(page, 'world-arrivals-timetable');
    await page.getByRole('button', { name: 'Back to the whole world' }).click();

    // the baseline's shares, as percentages: self-care up to 40%, GP down to 30%
    await openNode(page, 'Route');
    const form = page.getByTestId('step-form');
    expect(await form.getByLabel('Share going to Self care (%)', { exact: true }).inputValue()).toBe('20');
    await form.getByLabel('Share going to Self care (%)', { exact: true }).fill('40');
    await form.getByLabel('Share going to GP appointment (%)', { exact: true }).fill('30');
    const flags = page.getByTestId('variant-flags');
    await flags.waitFor();
    expect(await flags.textContent()).toContain(
      '“Online triage form” now lowers the share of requests resolved with self-care advice (40% in “Phone triage only”, 30% in this variant), which it says it raises (“assumed: more requests resolved with advice”).',
    );
    expect(await flags.textContent()).toContain(
      '“Online triage form” now raises the share of requests booked with a GP (30% in “Phone triage only”, 40% in this variant), which it lowered when the world was opened',
    );
    await expectReadableScreen(page, 'world-variant-flags');

    // the variant, seen as the baseline with its changes highlighted, put right in its own form
    await page.getByRole('button', { name: 'Back to the whole world' }).click();
    await page.getByLabel('The diagram shows').selectOption({ label: 'Online triage form (changes highlighted)' });
    await expect.poll(() => page.getByTestId('world-diagram').locator('.world-node.is-changed').count()).toBeGreaterThanOrEqual(2);
    const variant = page.getByTestId('variant-form');
    await variant.getByLabel('The share of requests resolved with self-care advice in this variant').fill('50');
    await variant.getByLabel('The share of requests booked with a GP in this variant').fill('30');
    await expect
      .poll(() => flags.textContent())
      .toContain('sets the share of requests booked with a GP to 30%, the same as “Phone triage only”: this change does nothing.');
    await variant.getByLabel('The share of requests booked with a GP in this variant').fill('20');
    await expect.poll(() => page.getByTestId('variant-flags').count()).toBe(0);
    await screenshot(page, 'world-variant-put-right');
    await page.getByRole('button', { name: 'Check' }).click();
    await page.getByText('The world is valid').waitFor();
    await context.close();
  }, 240_000);
});
