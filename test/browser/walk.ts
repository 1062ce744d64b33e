// The app's screens as a list a test (plain-language.test.ts) and the docs (npm run docs:screens) walk in order, with
// real data: each visit leaves the page showing its screen, ready to be read. The walk is one person's path (sign in,
// a project, the README's paragraph, its intake, plan and review, an authoring session, a world and its run, settings,
// billing and a purchase, sponsor and a program),
// so a visit may use what an earlier one made (`state`). Add a screen by adding an entry where it belongs in the path.
import type { Page } from 'playwright-core';
import { runOperator } from '../../runtime/operator.ts';
import { signInThroughForm } from '../support/browser.ts';
import type { StripeFake } from '../fakes/stripe.ts';
import { http, type TestService, type TestUser } from '../support/harness.ts';

/** The README's example paragraph (README.md, "Paste the paragraph"). */
export const README_PARAGRAPH = [
  'Problem: heart failure patients are readmitted to hospital within 30 days of discharge.',
  'Our solution: a remote monitoring app that nurses use to review daily weight and symptoms.',
  'Intended users: heart failure nurses in community care.',
  'Stage: idea, nothing is built yet.',
].join('\n');

/** `stripe`: the provider's fake, so the purchase can be paid as the provider would confirm it. */
export type WalkContext = { page: Page; service: TestService; user: TestUser; stripe?: StripeFake; state: Record<string, string> };
export type Screen = {
  /** the screenshot's file name: docs/screens/<name>.png and test-output/browser/plain-<name>.png */
  name: string;
  /** what the screen shows, for the docs table */
  caption: string;
  visit(ctx: WalkContext): Promise<void>;
};

const PROJECT_TITLE = 'Heart failure remote monitoring';
const SAMPLE_WORLD = 'Remote monitoring for heart failure and emergency admissions';

/** Sets up what the walk needs that a person would get from an operator: credits, a credit pack, a sponsor role. */
export async function prepareWalk(service: TestService, user: TestUser, options: { price_id?: string } = {}): Promise<void> {
  await runOperator(service.db, { command: 'grant-credits', flags: { org: user.org_id, credits: '20000', reason: 'screens walk' } });
  if (options.price_id) {
    await runOperator(service.db, {
      command: 'pack bind',
      flags: { key: 'starter', title: 'Starter pack', price: options.price_id, credits: '5000' },
      config: service.config,
    });
  }
  const institution = (await runOperator(service.db, { command: 'institution create', flags: { name: 'Northern Health Foundation' } })) as {
    institution_id: string;
  };
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
    caption: 'A new project: its four steps and the next action',
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
    name: 'intake-revision',
    caption: 'A confirmed intake revision on its own page: read-only with its citations, and Correct it',
    async visit({ page, state }) {
      // the plan's revision chip leads to it
      await page.goto(state.plan_url!);
      await page.getByRole('link', { name: 'intake revision 1' }).click();
      await page.getByRole('heading', { name: 'Your intake, revision 1' }).waitFor();
      await page.getByTestId('cited-line').first().waitFor();
      await page.getByRole('button', { name: 'Correct it' }).waitFor();
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
      if ((await page.getByLabel('Ask for another AI iteration (optional instructions)').count()) > 0)
        throw new Error('instructions offered on an offline session');
      state.authoring_url = page.url();
    },
  },
  {
    name: 'world-editor',
    caption: "The world editor: the care pathway as a diagram, a step's form open",
    async visit({ page, state }) {
      await page.goto(`${state.project_url}/worlds/new`);
      await page.getByRole('button', { name: SAMPLE_WORLD }).click();
      const diagram = page.getByTestId('world-diagram');
      await diagram.locator('.react-flow__node').first().waitFor();
      // fewer repetitions, so the run below is quick on a busy machine
      await page.getByLabel('Repetitions per variant (runs of the model)').fill('5');
      await diagram
        .locator('.react-flow__node')
        .filter({ has: page.locator('.world-node-title', { hasText: /^Admission$/ }) })
        .click();
      const form = page.getByTestId('step-form');
      await form.getByRole('heading', { name: /Admission/ }).waitFor();
      await form.getByLabel('Average duration', { exact: true }).fill('6');
      await page.waitForFunction(`document.querySelector('[data-testid="world-diagram"]').textContent.includes('6 days on average')`);
    },
  },
  {
    name: 'world-revision',
    caption: 'A saved world in words: what is compared and measured, the estimate for a budget you type',
    async visit({ page, state }) {
      if (state.world_revision_url) return void (await page.goto(state.world_revision_url));
      await page.getByRole('button', { name: 'Save this world' }).click();
      await page.getByRole('heading', { name: SAMPLE_WORLD, level: 1 }).waitFor();
      await page.getByLabel('Budget (credits)').fill('50');
      await page.getByRole('button', { name: 'Estimate' }).click();
      await page.getByTestId('estimate').getByText('Ready to run.').waitFor();
      state.world_revision_url = page.url();
    },
  },
  {
    name: 'run-results',
    caption: 'Run results by measure: the comparison first, intervals, costs with their range',
    async visit({ page, state }) {
      if (state.run_url) return void (await page.goto(state.run_url));
      await page.getByRole('button', { name: 'Run', exact: true }).click();
      await page.getByRole('heading', { name: `Simulation: ${SAMPLE_WORLD}` }).waitFor();
      await page.getByTestId('cost-chart').waitFor({ timeout: 120_000 });
      await page.getByText('Finished', { exact: true }).waitFor();
      state.run_url = page.url();
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
    name: 'purchase',
    caption: 'A purchase, paid once the provider confirmed it',
    async visit({ page, service, stripe, state }) {
      if (state.purchase_url) return void (await page.goto(state.purchase_url));
      if (!stripe) throw new Error('the purchase screen needs the Stripe fake');
      // the provider's hosted checkout page is not ours to serve: the browser's request for it gets a stand-in
      await page.route('https://checkout.stripe.test/**', (route) =>
        route.fulfill({ status: 200, contentType: 'text/html', body: '<h1>Checkout (stand-in)</h1>' }),
      );
      await page.getByTestId('pack').first().getByRole('button', { name: /^Buy/ }).click();
      await page.waitForURL(/^https:\/\/checkout\.stripe\.test\//);
      const session_id = new URL(page.url()).pathname.split('/').pop()!;
      const success = new URL(stripe.sessions.get(session_id)!.success_url);
      stripe.markPaid(session_id);
      const { body, signature } = stripe.signedEvent('checkout.session.completed', session_id);
      const delivered = await http(service, 'POST', '/v1/billing/stripe/webhook', {
        raw: body,
        headers: { 'content-type': 'application/json', 'stripe-signature': signature },
      });
      if (delivered.status !== 200) throw new Error(`the webhook answered ${delivered.status}`);
      await page.goto(`${service.url}/billing/purchases/${success.searchParams.get('intent_id')}`);
      await page
        .getByTestId('purchase-status')
        .getByText(/Paid: 5,000 credits were added/)
        .waitFor({ timeout: 60_000 });
      state.purchase_url = page.url();
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
  {
    name: 'sponsor-program',
    caption: 'A sponsor program: its state, enrollments, credits and the report',
    async visit({ page, state }) {
      if (state.program_url) return void (await page.goto(state.program_url));
      const ends = new Date(Date.now() + 60 * 86_400_000);
      const local = `${ends.getFullYear()}-${String(ends.getMonth() + 1).padStart(2, '0')}-${String(ends.getDate()).padStart(2, '0')}T12:00`;
      await page.getByLabel('Program name').fill('Community pilot');
      await page.getByLabel('Ends at').fill(local);
      await page.getByLabel('Credits per recipient (cap)').fill('100');
      await page.getByLabel('Maximum recipients').fill('20');
      await page.getByRole('button', { name: 'Create draft program' }).click();
      await page.getByRole('heading', { name: /Community pilot/ }).waitFor();
      await page.getByRole('button', { name: 'Activate' }).click();
      await page
        .getByRole('heading', { name: /Community pilot/ })
        .getByText('active')
        .waitFor();
      await page.locator('section[aria-labelledby="report-heading"]').waitFor();
      state.program_url = page.url();
    },
  },
];
