// The app's screens as a list a test (plain-language.test.ts) and the docs (npm run docs:screens) walk in order, with
// real data: each visit leaves the page showing its screen, ready to be read. The walk is one person's path (sign in,
// a project, the README's paragraph, its intake, plan and review, an authoring session, settings, billing, sponsor),
// so a visit may use what an earlier one made (`state`). Add a screen by adding an entry where it belongs in the path.
import type { Page } from 'playwright-core';
import { runOperator } from '../../runtime/operator.ts';
import { signInThroughForm } from '../support/browser.ts';
import type { TestService, TestUser } from '../support/harness.ts';

/** The README's example paragraph (README.md, "Paste the paragraph"). */
export const README_PARAGRAPH = [
  'Problem: heart failure patients are readmitted to hospital within 30 days of discharge.',
  'Our solution: a remote monitoring app that nurses use to review daily weight and symptoms.',
  'Intended users: heart failure nurses in community care.',
  'Stage: idea, nothing is built yet.',
].join('\n');

export type WalkContext = { page: Page; service: TestService; user: TestUser; state: Record<string, string> };
export type Screen = {
  /** the screenshot's file name: docs/screens/<name>.png and test-output/browser/plain-<name>.png */
  name: string;
  /** what the screen shows, for the docs table */
  caption: string;
  visit(ctx: WalkContext): Promise<void>;
};

const PROJECT_TITLE = 'Heart failure remote monitoring';

/** Sets up what the walk needs that a person would get from an operator: credits, a credit pack, a sponsor role. */
export async function prepareWalk(service: TestService, user: TestUser, options: { price_id?: string } = {}): Promise<void> {
  await runOperator(service.db, { command: 'grant-credits', flags: { org: user.org_id, credits: '20000', reason: 'screens walk' } });
  if (options.price_id) {
    await runOperator(service.db, { command: 'pack bind', flags: { key: 'starter', title: 'Starter pack', price: options.price_id, credits: '5000' }, config: service.config });
  }
  const institution = (await runOperator(service.db, { command: 'institution create', flags: { name: 'Northern Health Foundation' } })) as { institution_id: string };
  await runOperator(service.db, { command: 'institution verify', flags: { id: institution.institution_id, date: '2026-11-01' } });
  await runOperator(service.db, { command: 'sponsor-admin assign', flags: { institution: institution.institution_id, email: user.email } });
}

export const SCREENS: Screen[] = [
  {
    name: 'sign-in',
    caption: 'Sign in',
    async visit({ page, service }) {
      await page.goto(`${service.url}/`);
      await page.getByRole('button', { name: 'Sign in' }).waitFor();
    },
  },
  {
    name: 'projects-empty',
    caption: 'Projects, before the first one: what to do',
    async visit({ page, service, user }) {
      await signInThroughForm(page, service, user);
      await page.getByTestId('projects-empty').waitFor();
    },
  },
  {
    name: 'project-new',
    caption: "A new project: its four steps and the next action",
    async visit({ page, state }) {
      await page.getByLabel('New project title').fill(PROJECT_TITLE);
      await page.getByRole('button', { name: 'Create project' }).click();
      await page.getByRole('heading', { name: PROJECT_TITLE }).waitFor();
      await page.getByTestId('next-action').waitFor();
      state.project_url = page.url();
    },
  },
  {
    name: 'project-material',
    caption: 'The material, read and screened without AI',
    async visit({ page }) {
      await page.getByLabel('Paste text').fill(README_PARAGRAPH);
      await page.getByRole('button', { name: 'Add material' }).click();
      await page.getByTestId('source').first().getByText('processed').waitFor();
      await page.getByTestId('project-steps').getByText('Done: 1 source accepted').waitFor();
    },
  },
  {
    name: 'intake',
    caption: 'The intake beside its source: a card chosen, its cited line highlighted',
    async visit({ page, state }) {
      if (state.intake_url) await page.goto(state.intake_url);
      else await page.getByRole('button', { name: /Draft the intake from 1 processed source/ }).click();
      await page.getByTestId('source-pane').locator('[data-line]').first().waitFor({ timeout: 60_000 });
      await page.getByTestId('cited-line').first().waitFor();
      state.intake_url = page.url();
    },
  },
  {
    name: 'plan',
    caption: 'The plan: each decision and why, credits, the business questions',
    async visit({ page, state }) {
      if (state.plan_url) return void (await page.goto(state.plan_url));
      await page.getByRole('button', { name: 'Confirm this intake' }).click();
      await page.getByRole('heading', { name: 'Confirmed as revision 1' }).waitFor();
      await page.getByRole('button', { name: 'Plan the evaluations' }).click();
      await page.getByRole('heading', { name: 'Evaluation plan' }).waitFor();
      await page.getByTestId('decision').first().waitFor();
      state.plan_url = page.url();
    },
  },
  {
    name: 'review',
    caption: "The review: papers by title, each claim's three checks, excluded papers and why",
    async visit({ page, state }) {
      if (state.review_url) return void (await page.goto(state.review_url));
      await page.getByRole('button', { name: 'Approve the use of AI for the review' }).click();
      await page.getByText('approved', { exact: true }).waitFor();
      await page.getByRole('button', { name: 'Start the concept and evidence review' }).click();
      await page.getByTestId('disclaimer').waitFor({ timeout: 90_000 });
      state.review_url = page.url();
    },
  },
  {
    name: 'project',
    caption: 'A project after its review: the steps done, the next action',
    async visit({ page, state }) {
      await page.goto(state.project_url!);
      await page.getByTestId('review-item').getByText('succeeded').waitFor();
      await page.getByTestId('next-action').waitFor();
    },
  },
  {
    name: 'projects',
    caption: 'Projects, with the credits available in the header',
    async visit({ page, service }) {
      await page.goto(`${service.url}/`);
      await page.getByRole('link', { name: PROJECT_TITLE }).waitFor();
      await page.getByTestId('header-credits').waitFor();
    },
  },
  {
    name: 'authoring',
    caption: 'An authoring session: the questions in words',
    async visit({ page, state }) {
      if (state.authoring_url) return void (await page.goto(state.authoring_url));
      await page.goto(state.project_url!);
      await page.getByRole('button', { name: 'Start an authoring session' }).click();
      await page.getByRole('heading', { name: 'Checkpoint 1' }).waitFor({ timeout: 60_000 });
      await page.getByTestId('question').first().waitFor();
      // the offline provider cannot follow written instructions (the API refuses them): the box is replaced by a sentence
      await page.getByTestId('no-instructions').getByText('Written instructions need a hosted AI model.').waitFor();
      if ((await page.getByLabel('Ask for another AI iteration (optional instructions)').count()) > 0) throw new Error('instructions offered on an offline session');
      state.authoring_url = page.url();
    },
  },
  {
    name: 'settings',
    caption: 'Settings: tokens, members, provider keys, credits',
    async visit({ page, service }) {
      await page.goto(`${service.url}/settings`);
      await page.getByTestId('credits-available').waitFor();
      await page.getByTestId('member-row').first().waitFor();
    },
  },
  {
    name: 'billing',
    caption: 'Buying credits (when billing is on)',
    async visit({ page, service }) {
      await page.goto(`${service.url}/billing`);
      await page.getByTestId('pack').first().waitFor();
    },
  },
  {
    name: 'sponsor',
    caption: 'Sponsor programs (when the sponsor programme is on)',
    async visit({ page, service }) {
      await page.goto(`${service.url}/sponsor`);
      await page.getByRole('heading', { name: 'Institutions you administer' }).waitFor();
      await page.getByText('Northern Health Foundation').first().waitFor();
    },
  },
];
