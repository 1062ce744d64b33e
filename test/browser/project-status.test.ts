// The project page tells the truth, and a new organization can start: a review that failed because the literature
// service was unreachable reads as failed in words (not done) with a "Try again" that shows its cost and starts a new
// review; the breadcrumb names the project and the step; an organization with no credits is told how to add them here.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOperator } from '../../runtime/operator.ts';
import { createDraft, markDraftEnded, markDraftStarted } from '../../store/intake/drafts.ts';
import { type FakeEuropePmc, startFakeEuropePmc } from '../fakes/europepmc.ts';
import { launchBrowser, newPage, screenshot, signInThroughForm } from '../support/browser.ts';
import { eventually, http, signedInOwner, startTestService, type TestService, type TestUser } from '../support/harness.ts';
import { fiveLiteratureRecords, ideaStageIntake, withoutCitations } from '../support/reviewFixtures.ts';

let service: TestService;
let pmc: FakeEuropePmc;
let browser: Browser;

beforeAll(async () => {
  pmc = await startFakeEuropePmc(fiveLiteratureRecords());
  service = await startTestService({ env: { CRUCIBLE_EUROPE_PMC_BASE_URL: pmc.base_url } });
  browser = await launchBrowser();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
  await pmc?.close();
});

async function finished(user: TestUser, review_id: string): Promise<{ status: string; failure: { code: string } | null }> {
  return eventually(async () => {
    const read = await http(service, 'GET', `/v1/reviews/${review_id}`, { token: user.session });
    return ['succeeded', 'failed', 'canceled'].includes(read.body.status) ? read.body : null;
  }, 60_000);
}

/** A project with a confirmed idea-stage intake and an approved plan that recommends the review (through the API). */
async function plannedProject(user: TestUser, title: string): Promise<{ project_id: string; plan_id: string }> {
  const project = await http(service, 'POST', '/v1/projects', { token: user.session, body: { title, org_id: user.org_id } });
  await http(service, 'POST', `/v1/projects/${project.body.id}/intakes`, { token: user.session, body: { spec: withoutCitations(ideaStageIntake()) } });
  const plan = await http(service, 'POST', `/v1/projects/${project.body.id}/evaluation-plans`, { token: user.session, body: {} });
  const approved = await http(service, 'POST', `/v1/projects/${project.body.id}/evaluation-plans/${plan.body.id}/approve`, {
    token: user.session,
    body: { scope: 'hosted_inference' },
  });
  expect(approved.status).toBe(200);
  return { project_id: project.body.id, plan_id: plan.body.id };
}

describe('the project page', () => {
  it('shows a review that failed because the literature service was unreachable as failed, in words, with Try again', async ({ onTestFailed }) => {
    const user = await signedInOwner(service, 'web-failed-review');
    await runOperator(service.db, { command: 'grant-credits', flags: { org: user.org_id, credits: '1000', reason: 'browser test' } });
    const { project_id, plan_id } = await plannedProject(user, 'Falls clinic waiting list');
    pmc.down = 'connection_closed';
    let failed: { status: string; failure: { code: string } | null };
    try {
      const started = await http(service, 'POST', `/v1/projects/${project_id}/reviews`, { token: user.session, body: { plan_id } });
      expect(started.status).toBe(201);
      failed = await finished(user, started.body.id);
    } finally {
      pmc.down = false;
    }
    expect(failed).toMatchObject({ status: 'failed', failure: { code: 'LITERATURE_UNAVAILABLE' } });

    const { page } = await newPage(browser);
    onTestFailed(async () => {
      await screenshot(page, 'project-failed-review-test-failed');
    });
    await signInThroughForm(page, service, user);
    await page.goto(`${service.url}/projects/${project_id}`);
    const steps = page.getByTestId('project-steps');
    await steps.getByTestId('step-failure').waitFor();
    const failedStep = steps.getByTestId('step-failed');
    await expect(failedStep.textContent()).resolves.toContain('Concept and evidence review');
    await expect(failedStep.getByTestId('step-failure').textContent()).resolves.toBe(
      "The literature service can't be reached from this server. Nothing was charged.",
    );
    // biome-ignore lint/performance/useDomNodeTextContent: what is on screen is the point (a closed disclosure's content is not)
    const text = await steps.innerText();
    expect(text).not.toMatch(/Every step|Done: A review|retried|getaddrinfo|ECONNRESET|LITERATURE_UNAVAILABLE/);
    await expect(steps.getByTestId('step-done').count()).resolves.toBe(3); // material (none needed: an imported intake), intake, plan
    await expect(page.getByTestId('next-action').textContent()).resolves.toContain('did not finish');
    // the code and the raw detail are kept for support, inside the disclosure
    const technical = failedStep.locator('details');
    await expect(technical.locator('summary').textContent()).resolves.toBe('Technical details of this failure');
    await expect(technical.textContent()).resolves.toContain('LITERATURE_UNAVAILABLE');
    await expect(failedStep.textContent()).resolves.toMatch(
      /Starts a new review of the same plan\. It holds up to 307 credits while it runs and is charged at actual use\./,
    );
    const crumb = page.getByTestId('breadcrumb');
    await expect(crumb.textContent()).resolves.toBe('ProjectsFalls clinic waiting list');
    await screenshot(page, 'project-review-failed');

    await failedStep.getByRole('button', { name: 'Try again' }).click();
    await page.waitForURL(/\/reviews\/rev/);
    // the trail names the step once the review (and through it the plan) has loaded
    await page.getByTestId('breadcrumb').getByText('Concept and evidence review').waitFor();
    await expect(page.getByTestId('breadcrumb').textContent()).resolves.toBe('ProjectsFalls clinic waiting listEvaluation planConcept and evidence review');
    const again = page.url().split('/reviews/')[1]!;
    await expect(finished(user, again)).resolves.toMatchObject({ status: 'succeeded' });
    await page.goto(`${service.url}/projects/${project_id}`);
    await page.getByText('Every step the plan recommends is done.').waitFor();
    await expect(steps.getByTestId('step-failed').count()).resolves.toBe(0);
    await screenshot(page, 'project-review-done-after-try-again');

    // the plan page too names the project and the step, and no "Projects / Project /" trail shows
    await page.goto(`${service.url}/projects/${project_id}/plans/${plan_id}`);
    await page.getByTestId('decision').first().waitFor();
    await expect(page.getByTestId('breadcrumb').textContent()).resolves.toBe('ProjectsFalls clinic waiting listEvaluation plan');
    await expect(page.getByText(/Projects \/ Project \//).isVisible()).resolves.toBe(false);
  });

  it('shows an intake draft that failed, in words, with Try again that leads back to the material', async () => {
    const user = await signedInOwner(service, 'web-failed-draft');
    const project = await http(service, 'POST', '/v1/projects', { token: user.session, body: { title: 'Wound photo triage', org_id: user.org_id } });
    // a draft whose hosted provider stayed away: the row as the drafting workflow leaves it
    const draft = await service.db.transaction(async (tx) => {
      const created = await createDraft(tx, {
        project_id: project.body.id,
        org_id: user.org_id,
        source_ids: [],
        skipped_source_ids: [],
        byok_provider: null,
        credits_max: 40,
        created_by: user.user_id,
      });
      await markDraftStarted(tx, created.id);
      await markDraftEnded(tx, {
        id: created.id,
        status: 'failed',
        failure: { code: 'PROVIDER_ERROR', message: 'openai did not answer within 120 seconds, 4 times' },
        usage: null,
      });
      return created;
    });
    const { page } = await newPage(browser);
    await signInThroughForm(page, service, user);
    await page.goto(`${service.url}/projects/${project.body.id}`);
    const steps = page.getByTestId('project-steps');
    const failedStep = steps.getByTestId('step-failed');
    await failedStep.waitFor();
    await expect(failedStep.textContent()).resolves.toContain('Drafting failed');
    await expect(failedStep.getByTestId('step-failure').textContent()).resolves.toBe(
      'The AI provider gave no usable answer: it could not be reached, did not answer in time, was too busy, or answered with something the service could not use. Nothing was charged. Try again later.',
    );
    // biome-ignore lint/performance/useDomNodeTextContent: what is on screen is the point (a closed disclosure's content is not)
    expect(await steps.innerText()).not.toMatch(/PROVIDER_ERROR|openai|retried/);
    await expect(failedStep.getByRole('link', { name: 'See the failed draft' }).getAttribute('href')).resolves.toContain(draft.id);
    await screenshot(page, 'project-draft-failed');
    await failedStep.getByRole('link', { name: 'Try again' }).click();
    await page.waitForURL(/#material-heading$/);
  });

  it('tells an organization with no credits how to add them on this service', async () => {
    const user = await signedInOwner(service, 'web-no-credits');
    const { page } = await newPage(browser);
    await signInThroughForm(page, service, user);
    await expect(page.getByTestId('header-credits').textContent()).resolves.toBe('0');
    const embedded = service.config.database_url === null;
    await page.getByRole('link', { name: 'How to add credits' }).click();
    await page.getByRole('heading', { name: 'Adding credits' }).waitFor();
    const advice = page.getByTestId('add-credits');
    if (embedded) {
      await expect(advice.locator('pre').textContent()).resolves.toBe(
        `npm run -s operator -- grant-credits --org ${user.org_id} --credits 500 --reason "more credits"`,
      );
    } else {
      await expect(advice.textContent()).resolves.toContain('Ask the person who runs this service to add credits.');
    }
    await screenshot(page, 'settings-add-credits');

    // a step that costs credits says the same, after the numbers
    const project = await http(service, 'POST', '/v1/projects', { token: user.session, body: { title: 'Virtual ward triage', org_id: user.org_id } });
    await page.goto(`${service.url}/projects/${project.body.id}`);
    await page.getByLabel('Paste text').fill('Patients wait twelve weeks for a falls clinic appointment.');
    await page.getByRole('button', { name: 'Add material' }).click();
    await page.getByTestId('source').first().getByText('processed').waitFor();
    await page.getByRole('button', { name: /Draft the intake from 1 processed source/ }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'does not have enough credits' });
    await expect(alert.locator('.error-message').textContent()).resolves.toMatch(
      /^Your organization does not have enough credits for this: it has 0 available and this needs \d+\.$/,
    );
    await expect(alert.getByTestId('add-credits').textContent()).resolves.toContain(
      embedded ? 'This service runs on your computer' : 'Ask the person who runs',
    );
    await screenshot(page, 'project-draft-without-credits');
  });
});
