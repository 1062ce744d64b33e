// Where a project stands, told truly: material → intake → plan → each evaluation the latest plan recommends. An
// evaluation is done only when its latest attempt succeeded; a failed or canceled one says so with its reason in
// words (the code and raw message in the technical details) and a "Try again" that starts a new one at a cost shown
// before it starts (the plan's estimate for a review, POST /v1/runs/estimate for a run).
import type { ReactNode } from 'react';
import { stepEndInWords } from '../../../clients/sdk/src/words/index.ts';
import { client, newOperationKey, unwrap } from '../client.ts';
import type { AuthoringSession, IntakeDraftListItem, Plan, Project, ReviewListItem, Run } from '../types.ts';
import { TechnicalDetails } from '../technical.tsx';
import { Action, ErrorBanner, Link, balanceChanged, formatDate, formatNumber, navigate, useAction, useLoad } from '../ui.tsx';

type Overview = {
  sources: number;
  intakes: number;
  drafts: IntakeDraftListItem[];
  plans: Plan[];
  reviews: ReviewListItem[];
  runs: Run[];
  sessions: AuthoringSession[];
};
type State = 'done' | 'current' | 'later' | 'failed' | 'canceled';
export type Step = { name: string; state: State; said: string; next?: { text: string; to: string }; ended?: ReactNode };

const FINISHED_REVIEW = ['succeeded', 'failed', 'canceled'];
const FINISHED_RUN = ['succeeded', 'timed_out', 'failed', 'canceled'];

const plural = (n: number, word: string) => `${formatNumber(n)} ${word}${n === 1 ? '' : 's'}`;

/** The review step: its latest attempt decides. */
function reviewStep(project: Project, o: Overview, plan: Plan): Step {
  const latest = o.reviews[0];
  const name = 'Concept and evidence review';
  if (!latest) {
    return {
      name,
      state: 'later',
      said: 'Not started',
      next: { text: 'Open the plan, approve it and start the review', to: `/projects/${project.id}/plans/${plan.id}` },
    };
  }
  if (latest.status === 'succeeded')
    return { name, state: 'done', said: `Finished on ${formatDate(latest.finished_at)}`, next: { text: 'Read the review', to: `/reviews/${latest.id}` } };
  if (!FINISHED_REVIEW.includes(latest.status))
    return { name, state: 'current', said: 'Under way', next: { text: 'See how the review is going', to: `/reviews/${latest.id}` } };
  const state = latest.status === 'canceled' ? 'canceled' : 'failed';
  return { name, state, said: state === 'failed' ? 'Failed' : 'Canceled', ended: <ReviewEnded project={project} review={latest} plans={o.plans} /> };
}

/** The intake step: confirmed, or else the latest draft says how far it got (a failed one with its reason and Try again). */
function intakeStep(project: Project, o: Overview): Step {
  const name = 'Intake';
  const next = { text: 'Draft the intake from your material, check it and confirm it', to: '#material-heading' };
  if (o.intakes > 0) return { name, state: 'done', said: plural(o.intakes, 'confirmed revision'), next };
  const latest = o.drafts[0];
  if (!latest) return { name, state: 'later', said: 'Not confirmed yet', next };
  const page = `/projects/${project.id}/drafts/${latest.id}`;
  if (latest.status === 'succeeded')
    return { name, state: 'later', said: 'Drafted, not confirmed yet', next: { text: 'Check the drafted intake and confirm it', to: page } };
  if (latest.status === 'queued' || latest.status === 'drafting')
    return { name, state: 'later', said: 'Being drafted', next: { text: 'See how the draft is going', to: page } };
  const state = latest.status === 'canceled' ? 'canceled' : 'failed';
  return {
    name,
    state,
    said: state === 'failed' ? 'Drafting failed' : 'Drafting was canceled',
    ended: (
      <Ended end={{ status: latest.status, failure: latest.failure }}>
        <p className="try-again">
          <a href="#material-heading" className="button primary">
            Try again
          </a>{' '}
          <span className="muted small">
            Draft again from your material below; it says what drafting costs before it starts. <Link to={page}>See the failed draft</Link>
          </span>
        </p>
      </Ended>
    ),
  };
}

/** The simulation step: the latest run decides; before any run, the latest authoring session says how far the world is. */
function simulationStep(project: Project, o: Overview): Step {
  const name = 'Simulation';
  const latest = o.runs[0];
  const session = o.sessions[0];
  if (!latest) {
    if (session?.status === 'failed') {
      return { name, state: 'failed', said: 'Preparing the world failed', ended: <SessionEnded session={session} /> };
    }
    return { name, state: 'later', said: 'No run yet', next: { text: 'Model the care pathway and run it', to: `/projects/${project.id}/worlds/new` } };
  }
  if (latest.status === 'succeeded')
    return { name, state: 'done', said: `Finished on ${formatDate(latest.finished_at)}`, next: { text: 'See the results', to: `/runs/${latest.run_id}` } };
  if (latest.status === 'timed_out') {
    return {
      name,
      state: 'current',
      said: 'Stopped at its time limit with part of its replications',
      next: { text: 'See what it finished', to: `/runs/${latest.run_id}` },
    };
  }
  if (!FINISHED_RUN.includes(latest.status))
    return { name, state: 'current', said: 'Under way', next: { text: 'See how the run is going', to: `/runs/${latest.run_id}` } };
  const state = latest.status === 'canceled' ? 'canceled' : 'failed';
  return { name, state, said: state === 'failed' ? 'Failed' : 'Canceled', ended: <RunEnded run={latest} /> };
}

/** The steps of a project and where each stands; the evaluations are the ones the latest plan recommends. */
export function projectSteps(project: Project, o: Overview): Step[] {
  const plan = o.plans[0];
  const out: Step[] = [
    {
      name: 'Material',
      // an intake confirmed without material (imported from the person's own assistant) needs none
      state: o.sources > 0 || o.intakes > 0 ? 'done' : 'current',
      said: o.sources > 0 ? `${plural(o.sources, 'source')} accepted` : o.intakes > 0 ? 'None needed (the intake was entered directly)' : 'Nothing added yet',
      next: { text: 'Paste the text of your idea or upload a file', to: '#material-heading' },
    },
    intakeStep(project, o),
    {
      name: 'Plan',
      state: plan ? 'done' : 'later',
      said: plan ? `Made on ${formatDate(plan.created_at)}` : 'No plan yet',
      next: { text: 'Plan the evaluations (free)', to: '#intake-heading' },
    },
  ];
  if (!plan) out.push({ name: 'Evaluations', state: 'later', said: 'The plan says which evaluations fit' });
  else {
    const recommended = plan.plan.evaluations.filter((e) => e.decision === 'recommended').map((e) => e.kind);
    if (recommended.includes('concept_and_evidence_review')) out.push(reviewStep(project, o, plan));
    if (recommended.includes('world_simulation')) out.push(simulationStep(project, o));
  }
  const current = out.findIndex((step) => step.state !== 'done');
  for (const [i, step] of out.entries()) if (step.state === 'current' || step.state === 'later') step.state = i === current ? 'current' : 'later';
  return out;
}

/** How a failed or canceled step reads: the sentence, then the code and raw message for support. */
function Ended({ end, children }: { end: Parameters<typeof stepEndInWords>[0]; children?: ReactNode }) {
  const words = stepEndInWords(end);
  return (
    <div className="step-ended">
      <p data-testid="step-failure">{words.sentence}</p>
      {children}
      {words.code && (
        <TechnicalDetails summary="Technical details of this failure">
          <p>{words.code}</p>
          <p>{words.detail}</p>
        </TechnicalDetails>
      )}
    </div>
  );
}

/** A new review of the same plan, with the same provider choice: its cost (the plan's estimate) before it starts. */
function ReviewEnded({ project, review, plans }: { project: Project; review: ReviewListItem; plans: Plan[] }) {
  const plan = plans.find((p) => p.id === review.plan_id);
  const estimate = plan?.plan.evaluations.find((e) => e.kind === 'concept_and_evidence_review')?.estimated_credits ?? null;
  const again = useAction(async () => {
    const body = { plan_id: review.plan_id, ...(review.byok_provider ? { byok_provider: review.byok_provider } : {}) };
    const started = await client
      .POST('/v1/projects/{project_id}/reviews', { path: { project_id: project.id }, body, idempotencyKey: newOperationKey() })
      .then(unwrap);
    balanceChanged();
    navigate(`/reviews/${started.id}`);
  });
  const cost = review.byok_provider
    ? 'With your own provider key it costs no credits.'
    : estimate === null
      ? 'It is charged at actual use.'
      : `It holds up to ${plural(estimate, 'credit')} while it runs and is charged at actual use.`;
  return (
    <Ended end={{ status: review.status, failure: review.failure }}>
      <p className="try-again">
        <Action variant="primary" onPress={() => void again.run()} isDisabled={again.pending}>
          {again.pending ? 'Starting…' : 'Try again'}
        </Action>{' '}
        <span className="muted small">
          Starts a new review of the same plan. {cost} <Link to={`/reviews/${review.id}`}>See the failed review</Link>
        </span>
      </p>
      <ErrorBanner error={again.error} />
    </Ended>
  );
}

/** A new run of the same world with the same budget: POST /v1/runs/estimate says what it reserves before it starts. */
function RunEnded({ run }: { run: Run }) {
  const body = { world_revision_id: run.world_revision_id, budget_limit_credits: run.budget_limit_credits };
  const estimate = useLoad(() => client.POST('/v1/runs/estimate', { body }).then(unwrap), [run.run_id]);
  const again = useAction(async () => {
    const started = await client.POST('/v1/runs', { body, idempotencyKey: newOperationKey() }).then(unwrap);
    balanceChanged();
    navigate(`/runs/${started.run_id}`);
  });
  const e = estimate.value;
  return (
    <Ended end={{ status: run.status, failure: run.failure }}>
      <p className="try-again">
        <Action variant="primary" onPress={() => void again.run()} isDisabled={again.pending || (e !== undefined && !e.runnable)}>
          {again.pending ? 'Starting…' : 'Try again'}
        </Action>{' '}
        <span className="muted small">
          Starts a new run of the same world.{' '}
          {e
            ? e.runnable
              ? `It reserves ${plural(e.reserved_credits, 'credit')} (its budget) and is charged at actual use.`
              : 'It cannot start as it is: open the run to change its budget.'
            : 'Working out its cost…'}{' '}
          <Link to={`/runs/${run.run_id}`}>See the failed run</Link>
        </span>
      </p>
      <ErrorBanner error={again.error ?? estimate.error} />
    </Ended>
  );
}

/** A failed authoring session: a new one starts from the sessions below (its first AI step's cost is shown there). */
function SessionEnded({ session }: { session: AuthoringSession }) {
  return (
    <Ended end={{ status: session.status, failure: session.failure }}>
      <p className="try-again">
        <a href="#authoring-heading" className="button primary">
          Try again
        </a>{' '}
        <span className="muted small">
          Start a new session below; it says what its first AI step can cost before it starts.{' '}
          <Link to={`/authoring-sessions/${session.id}`}>See the failed session</Link>
        </span>
      </p>
    </Ended>
  );
}

export function ProjectSteps({ project, version }: { project: Project; version: number }) {
  const overview = useLoad(async (): Promise<Overview> => {
    const [sources, intakes, drafts, plans, reviews, runs, sessions] = await Promise.all([
      client.GET('/v1/intake-sources', { query: { org_id: project.org_id, project_id: project.id, limit: 100 } }).then(unwrap),
      client.GET('/v1/projects/{project_id}/intakes', { path: { project_id: project.id }, query: { limit: 20 } }).then(unwrap),
      client.GET('/v1/projects/{project_id}/intake-drafts', { path: { project_id: project.id }, query: { limit: 1 } }).then(unwrap),
      client.GET('/v1/projects/{project_id}/evaluation-plans', { path: { project_id: project.id }, query: { limit: 20 } }).then(unwrap),
      client.GET('/v1/projects/{project_id}/reviews', { path: { project_id: project.id }, query: { limit: 20 } }).then(unwrap),
      client.GET('/v1/projects/{project_id}/runs', { path: { project_id: project.id }, query: { limit: 20 } }).then(unwrap),
      client.GET('/v1/projects/{project_id}/authoring-sessions', { path: { project_id: project.id }, query: { limit: 5 } }).then(unwrap),
    ]);
    return {
      sources: sources.data.filter((x) => x.status === 'processed').length,
      intakes: intakes.data.length,
      drafts: drafts.data,
      plans: plans.data,
      reviews: reviews.data,
      runs: runs.data,
      sessions: sessions.data,
    };
  }, [project.id, version]);
  if (overview.error) return <ErrorBanner error={overview.error} />;
  if (!overview.value) return <p aria-busy="true">Loading where the project stands…</p>;
  const list = projectSteps(project, overview.value);
  const current = list.find((step) => step.state === 'current');
  const stopped = list.some((step) => step.state === 'failed' || step.state === 'canceled');
  return (
    <nav aria-label="Where this project stands" className="overview" data-testid="project-steps">
      <ol>
        {list.map((step, i) => (
          <li key={step.name} className={step.state} aria-current={step.state === 'current' ? 'step' : undefined} data-testid={`step-${step.state}`}>
            <span className="step-name">
              {i + 1}. {step.name}
            </span>
            <span className="small step-said">{step.state === 'done' ? `Done: ${step.said}` : step.said}</span>
            {step.ended}
          </li>
        ))}
      </ol>
      <NextAction current={current} stopped={stopped} />
    </nav>
  );
}

function NextAction({ current, stopped }: { current: Step | undefined; stopped: boolean }) {
  if (stopped) {
    return (
      <p className="next-action" data-testid="next-action">
        Next: a step above did not finish. Read why, then try it again.
      </p>
    );
  }
  if (current?.next) {
    return (
      <p className="next-action" data-testid="next-action">
        Next: {current.next.to.startsWith('#') ? <a href={current.next.to}>{current.next.text}</a> : <Link to={current.next.to}>{current.next.text}</Link>}
      </p>
    );
  }
  if (current) return null;
  return (
    <p className="next-action" data-testid="next-action">
      Every step the plan recommends is done. Add material or confirm a new intake revision to go round again.
    </p>
  );
}
