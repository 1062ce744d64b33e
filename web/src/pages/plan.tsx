// The evaluation plan as a document (spec: EvaluationPlan): each decision and why in a sentence, credits as
// "up to N credits, charged at actual use", the Business questions once (each stated with the quoted line of its file,
// or unknown with what to ask), approvals one by one, then the start of the review. Pointers, scopes and the planner's
// cost arithmetic live in the Technical details.
import { client, newOperationKey, unwrap } from '../client.ts';
import type { BusinessAssessment, BusinessQuestion, BusinessQuestions, CitedSource, Evaluation, Plan } from '../types.ts';
import { TechnicalDetails } from '../technical.tsx';
import { Action, ErrorBanner, Link, formatDate, formatNumber, navigate, plainText, useAction, useLoad } from '../ui.tsx';
import { intakeRevisionPath, unknownName } from './intake.tsx';
import { type Business, type Citation, type Spec, TOPICS, citedSentence } from './intakeCards.tsx';

type SourceLines = Map<string, { name: string; lines: string[] }>;

/** The files the plan cites, by id: their names and lines, so a citation reads as "idea.txt: “the line”". */
function useCitedSources(plan: Plan | undefined) {
  const ids = new Set<string>();
  const q = plan?.plan.business_questions;
  if (q)
    for (const item of [q.proposed_user, q.buyer, q.budget_owner, q.current_alternative, q.value_hypothesis, ...q.dependencies])
      for (const c of item.cited_sources) ids.add(c.source_id);
  for (const c of plan?.plan.business_assessment?.submitted_claims ?? []) for (const s of c.cited_sources) ids.add(s.source_id);
  const key = [...ids].sort().join(',');
  return useLoad(async () => {
    const out: SourceLines = new Map();
    for (const id of key ? key.split(',') : []) {
      try {
        const text = await client.GET('/v1/intake-sources/{source_id}/text', { path: { source_id: id } }).then(unwrap);
        out.set(id, { name: text.name, lines: text.numbered_text.split('\n').map((l) => l.replace(/^\d+\| ?/, '')) });
      } catch {
        // a source that is no longer readable is shown by its line numbers only
      }
    }
    return out;
  }, [key]);
}

function Cited({ sources, files, quotes = [] }: { sources: CitedSource[]; files: SourceLines; quotes?: Citation[] }) {
  if (sources.length === 0) return null;
  return (
    <ul className="cited">
      {sources.map((c) => {
        const file = files.get(c.source_id);
        const lines = c.line_start === c.line_end ? `line ${c.line_start}` : `lines ${c.line_start}–${c.line_end}`;
        const text = file?.lines.slice(c.line_start - 1, c.line_end).join(' ') ?? '';
        // the intake's citation of these lines: its sentence is quoted, not the whole paragraph
        const quote = quotes.find((q) => q.source_id === c.source_id && q.line_start === c.line_start && q.line_end === c.line_end)?.quote;
        const sentence = quote ? citedSentence(text, quote) : null;
        return (
          <li key={`${c.source_id}:${c.line_start}`}>
            <span className="muted small">
              {file?.name ?? 'your material'}, {lines}:
            </span>{' '}
            {file && <q>{sentence ? `${sentence.before}${sentence.quote}${sentence.after}` : text}</q>}
          </li>
        );
      })}
    </ul>
  );
}

const BUSINESS_LABELS: Record<string, string> = {
  proposed_user: 'Proposed user',
  buyer: 'Buyer',
  budget_owner: 'Budget owner',
  current_alternative: 'Current alternative',
  value_hypothesis: 'Value hypothesis',
};

type RowProps = { label: string; question: BusinessQuestion; files: SourceLines; quotes?: Citation[] };

function BusinessRow({ label, question, files, quotes }: RowProps) {
  return (
    <div data-testid="business-question">
      <dt>{label}</dt>
      <dd>
        {question.status === 'stated' ? (
          <>
            <q>{question.stated}</q> <span className="chip">what you said, not verified</span>
            <Cited sources={question.cited_sources} files={files} quotes={quotes} />
          </>
        ) : (
          <span className="chip">unknown: the intake does not say</span>
        )}
        <p className="small">Ask: {plainText(question.question)}</p>
      </dd>
    </div>
  );
}

type SectionProps = { questions: BusinessQuestions; assessment?: BusinessAssessment; files: SourceLines; business?: Business };

/** One row per business fact the plan asks about: what the intake says (with its cited sentence), or unknown. */
function BusinessRows({ questions, files, business }: Omit<SectionProps, 'assessment'>) {
  return (
    <dl className="spec">
      {(['proposed_user', 'buyer', 'budget_owner', 'current_alternative'] as const).map((key) => (
        <BusinessRow key={key} label={BUSINESS_LABELS[key]!} question={questions[key]} files={files} quotes={business?.[key]?.citations} />
      ))}
      {questions.dependencies.map((d, i) => (
        <BusinessRow
          key={`dependency-${d.stated ?? i}`}
          label={questions.dependencies.length > 1 ? `Dependency ${i + 1}` : 'Dependencies'}
          question={d}
          files={files}
          quotes={business?.dependencies[i]?.citations}
        />
      ))}
      <BusinessRow
        label={BUSINESS_LABELS.value_hypothesis!}
        question={questions.value_hypothesis}
        files={files}
        quotes={business?.value_hypothesis?.citations}
      />
    </dl>
  );
}

/** spec: EvaluationPlan — the Business questions and the optional assessment; each unknown said once; no viability score. */
function BusinessSection({ questions, assessment, files, business }: SectionProps) {
  const rowFields = new Set([
    ...['proposed_user', 'buyer', 'budget_owner', 'current_alternative', 'value_hypothesis'].map((k) => `business.${k}`),
    'business.dependencies',
  ]);
  const otherUnknowns = questions.unknowns.filter((u) => !rowFields.has(u.field));
  return (
    <section aria-labelledby="business-heading">
      <h2 id="business-heading">Business questions</h2>
      <p className="muted">What your intake says about who would use and pay for this, and what to find out next. Nothing here is scored or verified.</p>
      <BusinessRows questions={questions} files={files} business={business} />
      {otherUnknowns.length > 0 && (
        <>
          <h3>Also not known</h3>
          <ul>
            {otherUnknowns.map((u) => (
              <li key={u.field}>
                <strong>{unknownName(u.field)}:</strong> {plainText(u.question)}
              </li>
            ))}
          </ul>
        </>
      )}
      <h3>Suggested buyer interview</h3>
      <p>
        With <strong>{questions.suggested_buyer_interview.interviewee}</strong>: {questions.suggested_buyer_interview.purpose}
      </p>
      <ol>
        {questions.suggested_buyer_interview.questions.map((q) => (
          <li key={q}>{q}</li>
        ))}
      </ol>
      {assessment && (assessment.submitted_claims.length > 0 || assessment.hypotheses.length > 0) && (
        <>
          <h3>What to test first</h3>
          <p className="muted small">What you submitted is kept apart from hypotheses. No viability score is produced.</p>
          <ul>
            {assessment.submitted_claims.map((c) => (
              <li key={c.text}>
                You said <q>{c.text}</q> <span className="chip">{TOPICS[c.topic] ?? TOPICS.other}</span>
                <Cited sources={c.cited_sources} files={files} />
                <p className="small">Ask: {plainText(c.question)}</p>
              </li>
            ))}
            {assessment.hypotheses.map((h) => (
              <li key={`${h.field}:${h.hypothesis}`}>
                {plainText(h.hypothesis)} <span className="muted small">Test it: {plainText(h.how_to_test)}</span>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

const EVALUATION_NAMES: Record<string, string> = {
  concept_and_evidence_review: 'Concept and evidence review',
  world_simulation: 'Simulation of the care pathway',
};
const FIELD_WORDS: Record<string, string> = {
  problem: 'problem',
  proposed_solution: 'solution',
  care_setting: 'care setting',
  intended_users: 'users',
  stage: 'stage',
  care_pathway: 'care pathway',
  claims: 'claims',
  business: 'business facts',
};
/** "/problem", "/stage/value" → "problem", "stage", joined as a sentence. */
export function basedOn(pointers: string[]): string {
  const words = [...new Set(pointers.map((p) => FIELD_WORDS[p.split('/')[1] ?? ''] ?? 'other fields'))];
  return words.length <= 1 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;
}

function credits(e: Evaluation): string {
  if (e.decision === 'skipped') return 'Not run, so no credits.';
  if (e.estimated_credits === null) return 'Estimated for each run before it starts; nothing is spent until you start one with a budget.';
  return `Up to ${formatNumber(e.estimated_credits)} credits, charged at actual use.`;
}

const APPROVALS: Record<string, { title: string; reason: string; instead?: string; button?: string }> = {
  hosted_inference: {
    title: 'Use the service’s AI for the review',
    button: 'Approve the use of AI for the review',
    reason:
      'The review drafts and judges with AI run by the service (or its built-in method when no AI is set up), reading your confirmed intake and the papers it finds. It is charged in credits. Nothing runs until you approve.',
    instead: 'Not needed if you start the review with your own AI provider key; then it costs no credits.',
  },
  simulation_budget: {
    title: 'Spend credits on simulations',
    button: 'Approve spending credits on simulations',
    reason: 'Simulations spend credits. Approving records that you intend to run them; each run still asks for its own credit budget when you start it.',
  },
};

function Decisions({ p }: { p: Plan }) {
  return (
    <ul className="decisions">
      {p.plan.evaluations.map((e) => (
        <li key={e.kind} data-testid="decision">
          <h2>
            {EVALUATION_NAMES[e.kind] ?? plainText(e.kind)}: {e.decision === 'recommended' ? 'recommended' : 'not now'}
          </h2>
          <p>{plainText(e.explanation)}</p>
          {e.based_on.length > 0 && <p className="muted small">Decided from your intake’s {basedOn(e.based_on)}.</p>}
          <p>
            <strong>{credits(e)}</strong>
          </p>
        </li>
      ))}
    </ul>
  );
}

function Approvals({ p, approved, approve }: { p: Plan; approved: Set<string>; approve(scope: string): void }) {
  return (
    <>
      <h2>Approvals</h2>
      {p.plan.approvals_needed.length === 0 && <p className="muted">Nothing needs your approval.</p>}
      <ul className="decisions">
        {p.plan.approvals_needed.map((a) => {
          const words = APPROVALS[a.scope] ?? { title: plainText(a.scope), reason: plainText(a.reason) };
          return (
            <li key={a.scope}>
              <h3>{words.title}</h3>
              <p>{words.reason}</p>
              {words.instead && <p className="muted small">{words.instead}</p>}
              {approved.has(a.scope) ? (
                <p className="status status-approved">approved</p>
              ) : (
                <Action variant="primary" onPress={() => approve(a.scope)}>
                  {words.button ?? `Approve: ${words.title}`}
                </Action>
              )}
            </li>
          );
        })}
      </ul>
    </>
  );
}

/** The review's start: ready once the plan recommends it and every approval it needs is given. */
function StartReview({ project_id, p, approved }: { project_id: string; p: Plan; approved: Set<string> }) {
  const start = useAction(async () => {
    const review = await client
      .POST('/v1/projects/{project_id}/reviews', { path: { project_id }, body: { plan_id: p.id }, idempotencyKey: newOperationKey() })
      .then(unwrap);
    navigate(`/reviews/${review.id}`);
  });
  const review = p.plan.evaluations.find((e) => e.kind === 'concept_and_evidence_review');
  const reviewReady = review?.decision === 'recommended' && review.approvals_needed.every((s) => approved.has(s));
  return (
    <>
      <h2>Next</h2>
      {review?.decision === 'recommended' ? (
        <>
          <p className="muted">
            {reviewReady
              ? `The review searches the published literature and checks each claim three ways. It takes a few minutes and costs up to ${formatNumber(review.estimated_credits ?? 0)} credits, charged at actual use.`
              : 'Approve the use of the service’s AI above first.'}
          </p>
          <Action variant="primary" onPress={() => void start.run()} isDisabled={!reviewReady || start.pending}>
            Start the concept and evidence review
          </Action>
        </>
      ) : (
        <p className="muted">The plan does not recommend a review now.</p>
      )}
      <ErrorBanner error={start.error} />
    </>
  );
}

function PlanTechnical({ p }: { p: Plan }) {
  return (
    <TechnicalDetails>
      <p>
        Plan {p.id} · intake revision {p.intake_revision} · planner {p.plan.planner.name} {p.plan.planner.version} ·{' '}
        {p.plan.estimated_cost.credits_per_1k_tokens} credits per 1,000 tokens
      </p>
      <p>Total: {p.plan.estimated_cost.basis}</p>
      {p.plan.evaluations.map((e) => (
        <p key={e.kind}>
          {e.kind} ({e.tool}): {e.decision}; based on {e.based_on.join(', ')}; {e.estimated_credits ?? 'null'} credits: {e.cost_basis}
        </p>
      ))}
      {p.plan.approvals_needed.map((a) => (
        <p key={a.scope}>
          scope {a.scope}: {a.reason} {a.not_needed_when}
        </p>
      ))}
      {p.plan.notes.map((n) => (
        <p key={n}>{n}</p>
      ))}
    </TechnicalDetails>
  );
}

export function PlanPage({ project_id, plan_id }: { project_id: string; plan_id: string }) {
  const plan = useLoad(
    () => client.GET('/v1/projects/{project_id}/evaluation-plans/{plan_id}', { path: { project_id, plan_id } }).then(unwrap),
    [project_id, plan_id],
  );
  const files = useCitedSources(plan.value);
  // the confirmed revision the plan was made from: its citations' quotes, so a business answer quotes its sentence
  const number = plan.value?.intake_revision;
  const intake = useLoad(
    async () =>
      number === undefined
        ? null
        : await client.GET('/v1/projects/{project_id}/intakes/{revision}', { path: { project_id, revision: String(number) } }).then(unwrap),
    [project_id, number],
  );
  const approve = useAction(async (scope: string) => {
    await client.POST('/v1/projects/{project_id}/evaluation-plans/{plan_id}/approve', { path: { project_id, plan_id }, body: { scope } }).then(unwrap);
    plan.reload();
  });
  const p = plan.value;
  const approved = new Set(p?.approvals.map((a) => a.scope));
  return (
    <>
      <p className="crumbs">
        <Link to="/">Projects</Link> / <Link to={`/projects/${project_id}`}>Project</Link> /
      </p>
      <h1>Evaluation plan</h1>
      <ErrorBanner error={plan.error} />
      {p && (
        <>
          <p className="muted">
            Made on {formatDate(p.created_at)} from{' '}
            <Link to={intakeRevisionPath(project_id, p.intake_revision)} className="chip">
              intake revision {p.intake_revision}
            </Link>
            . Each evaluation is recommended or not, with the reason; nothing is scored. What your intake says is what you declared, not a verified fact.
          </p>
          <Decisions p={p} />
          <p>
            In total: <strong data-testid="plan-total-credits">up to {formatNumber(p.plan.estimated_cost.total_credits)} credits, charged at actual use</strong>
            {p.plan.evaluations.some((e) => e.decision === 'recommended' && e.estimated_credits === null) && (
              <span className="muted small"> (simulations are estimated per run)</span>
            )}
            .
          </p>
          <BusinessSection
            questions={p.plan.business_questions}
            assessment={p.plan.business_assessment}
            files={files.value ?? new Map()}
            business={(intake.value?.spec as Spec | undefined)?.business}
          />
          <Approvals p={p} approved={approved} approve={(scope) => void approve.run(scope)} />
          <ErrorBanner error={approve.error} />
          <StartReview project_id={project_id} p={p} approved={approved} />
          <p>
            <Link to={`/projects/${project_id}/worlds/new`}>Build a model of the care pathway to simulate</Link>
          </p>
          <PlanTechnical p={p} />
        </>
      )}
    </>
  );
}
