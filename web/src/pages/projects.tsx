// Projects and the evaluation flow (spec: What the service does 1–3): material in (pasted text or files, screened
// without AI), a drafted IntakeSpec to review and correct, confirmation, the evaluation plan with its approvals, and
// the start of a review. Every step has its own address, so a long job can be left and returned to.
import { useRef, useState } from 'react';
import { Tab, TabList, TabPanel, Tabs } from 'react-aria-components';
import {
  ApiError,
  type BusinessAssessment,
  type BusinessQuestion,
  type BusinessQuestions,
  type CitedSource,
  type Draft,
  type DroppedCitation,
  type IntakeRevision,
  type IntakeRevisionListItem,
  type Page,
  type Plan,
  type Project,
  type ReviewListItem,
  type Run,
  type Source,
  TERMINAL_DRAFT,
  type WorldRevisionListItem,
  api,
} from '../api.ts';
import { AuthoringSessions } from './authoring.tsx';
import { type JsonSchema, SchemaField, problemsByPath } from '../schemaForm.tsx';
import { Action, Area, CopyButton, ErrorBanner, Field, Link, Status, formatDate, formatNumber, navigate, useAction, useLoad, useSession } from '../ui.tsx';

export function ProjectsPage() {
  const { org_id } = useSession();
  const projects = useLoad(() => api<Page<Project>>('GET', '/v1/projects', { query: { org_id, limit: 100 } }), [org_id]);
  const [title, setTitle] = useState('');
  const create = useAction(async () => {
    const project = await api<Project>('POST', '/v1/projects', { body: { title, org_id }, idempotent: true });
    navigate(`/projects/${project.id}`);
  });
  return (
    <>
      <h1>Projects</h1>
      <form
        className="inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          void create.run();
        }}
      >
        <Field label="New project title" value={title} onChange={setTitle} isRequired />
        <Action type="submit" variant="primary" isDisabled={create.pending}>
          Create project
        </Action>
      </form>
      <ErrorBanner error={create.error ?? projects.error} />
      <ul className="cards">
        {projects.value?.data.map((p) => (
          <li key={p.id}>
            <Link to={`/projects/${p.id}`}>{p.title}</Link>
            <span className="muted small">created {formatDate(p.created_at)}</span>
          </li>
        ))}
      </ul>
      {projects.value?.data.length === 0 && <p className="muted">No projects yet: create one to start.</p>}
    </>
  );
}

function SourceList({ sources }: { sources: Source[] }) {
  return (
    <ul className="sources">
      {sources.map((s) => (
        <li key={s.id} data-testid="source">
          <div className="row">
            <strong>{s.name}</strong> <Status value={s.status} />
            <span className="muted small">
              {s.kind} · {formatNumber(s.size_bytes)} bytes · {s.line_count} lines
            </span>
          </div>
          {s.reason && <p className="muted">{s.reason}</p>}
          {s.findings.length > 0 && (
            <details open={s.status !== 'processed'}>
              <summary>
                {s.findings.length + s.findings_not_listed} finding{s.findings.length + s.findings_not_listed === 1 ? '' : 's'} (masked)
              </summary>
              <ul>
                {s.findings.map((f) => (
                  <li key={`${f.line}:${f.kind}:${f.masked}`}>
                    line {String(f.line)}: {String(f.kind).replaceAll('_', ' ')} <code>{String(f.masked)}</code>
                  </li>
                ))}
                {s.findings_not_listed > 0 && <li>…and {s.findings_not_listed} more not listed</li>}
              </ul>
            </details>
          )}
          {s.conversion_prompt && (
            <div className="prompt">
              <p>Some pages have no text layer (a scanned PDF). Convert them to text with a tool you trust, using this prompt, then paste the text here:</p>
              <pre>{s.conversion_prompt}</pre>
              <CopyButton text={s.conversion_prompt} label="Copy prompt" />
            </div>
          )}
        </li>
      ))}
    </ul>
  );
}

function Material({ project }: { project: Project }) {
  const sources = useLoad(() => api<Page<Source>>('GET', '/v1/intake-sources', { query: { org_id: project.org_id, project_id: project.id, limit: 100 } }), [project.id]);
  const [text, setText] = useState('');
  const fileInput = useRef<HTMLInputElement>(null);
  const [files, setFiles] = useState<File[]>([]);
  const add = useAction(async () => {
    if (files.length > 0) {
      const form = new FormData();
      form.append('project_id', project.id);
      if (text.trim()) form.append('text', text);
      for (const file of files) form.append('file', file, file.name);
      await api('POST', '/v1/intakes/extract', { form });
    } else {
      await api('POST', '/v1/intakes/extract', { body: { text, project_id: project.id } });
    }
    setText('');
    setFiles([]);
    if (fileInput.current) fileInput.current.value = '';
    sources.reload();
  });
  const processed = (sources.value?.data ?? []).filter((s) => s.status === 'processed');
  const draft = useAction(async () => {
    const created = await api<Draft>('POST', `/v1/projects/${project.id}/intakes/parse`, { body: { source_ids: processed.map((s) => s.id) }, idempotent: true });
    navigate(`/projects/${project.id}/drafts/${created.id}`);
  });
  return (
    <section aria-labelledby="material-heading">
      <h2 id="material-heading">1. Your material</h2>
      <p className="muted">Paste text or upload files (TXT, Markdown, JSON, PDF). They are read and screened for secrets and patient identifiers without AI.</p>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void add.run();
        }}
      >
        <Area label="Paste text" value={text} onChange={setText} rows={6} />
        <label className="field">
          <span>Or upload files</span>
          <input ref={fileInput} type="file" multiple onChange={(e) => setFiles([...(e.target.files ?? [])])} />
        </label>
        <Action type="submit" variant="primary" isDisabled={add.pending || (!text.trim() && files.length === 0)}>
          {add.pending ? 'Reading…' : 'Add material'}
        </Action>
      </form>
      <ErrorBanner error={add.error ?? sources.error} />
      {sources.value && <SourceList sources={sources.value.data} />}
      <div className="next">
        <Action variant="primary" isDisabled={processed.length === 0 || draft.pending} onPress={() => void draft.run()}>
          Draft the intake from {processed.length} processed source{processed.length === 1 ? '' : 's'}
        </Action>
        <ErrorBanner error={draft.error} />
      </div>
    </section>
  );
}

function Intakes({ project }: { project: Project }) {
  const intakes = useLoad(() => api<Page<IntakeRevisionListItem>>('GET', `/v1/projects/${project.id}/intakes`, { query: { limit: 20 } }), [project.id]);
  const plans = useLoad(() => api<Page<Plan>>('GET', `/v1/projects/${project.id}/evaluation-plans`, { query: { limit: 20 } }), [project.id]);
  const reviews = useLoad(() => api<Page<ReviewListItem>>('GET', `/v1/projects/${project.id}/reviews`, { query: { limit: 20 } }), [project.id]);
  const plan = useAction(async () => {
    const created = await api<Plan>('POST', `/v1/projects/${project.id}/evaluation-plans`, { body: {}, idempotent: true });
    navigate(`/projects/${project.id}/plans/${created.id}`);
  });
  return (
    <section aria-labelledby="intake-heading">
      <h2 id="intake-heading">2. Intake and plans</h2>
      <ErrorBanner error={intakes.error ?? plans.error ?? plan.error} />
      {intakes.value?.data.length ? (
        <>
          <p>
            Confirmed intake revisions:{' '}
            {intakes.value.data.map((i) => (
              <span key={i.id} className="chip">
                revision {i.revision} · {formatDate(i.created_at)}
              </span>
            ))}
          </p>
          <Action variant="primary" onPress={() => void plan.run()} isDisabled={plan.pending}>
            Plan evaluations for the latest intake
          </Action>
        </>
      ) : (
        <p className="muted">No confirmed intake yet: draft one from your material, correct it and confirm it.</p>
      )}
      {plans.value && plans.value.data.length > 0 && (
        <ul className="cards">
          {plans.value.data.map((p) => (
            <li key={p.id}>
              <Link to={`/projects/${project.id}/plans/${p.id}`}>Plan of {formatDate(p.created_at)}</Link>
              <span className="muted small">intake revision {p.intake_revision}</span>
            </li>
          ))}
        </ul>
      )}
      {reviews.value && reviews.value.data.length > 0 && (
        <>
          <h3>Reviews</h3>
          <ErrorBanner error={reviews.error} />
          <ul className="cards">
            {reviews.value.data.map((r) => (
              <li key={r.id} data-testid="review-item">
                <Link to={`/reviews/${r.id}`}>Review of {formatDate(r.created_at)}</Link> <Status value={r.status} />
                <span className="muted small">{r.status_description}</span>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

function Worlds({ project }: { project: Project }) {
  const worlds = useLoad(() => api<Page<WorldRevisionListItem>>('GET', `/v1/projects/${project.id}/worlds`, { query: { limit: 50 } }), [project.id]);
  const runs = useLoad(() => api<Page<Run>>('GET', `/v1/projects/${project.id}/runs`, { query: { limit: 50 } }), [project.id]);
  return (
    <section aria-labelledby="worlds-heading">
      <h2 id="worlds-heading">3. Worlds and runs</h2>
      <p className="muted">Simulate the care pathway your product would change. Results are synthetic: they describe the model, not the world.</p>
      <Link to={`/projects/${project.id}/worlds/new`} className="button primary">
        New world
      </Link>
      <ErrorBanner error={worlds.error ?? runs.error} />
      {worlds.value && worlds.value.data.length > 0 && (
        <>
          <h3>World revisions</h3>
          <ul className="cards">
            {worlds.value.data.map((w) => (
              <li key={w.world_revision_id}>
                <Link to={`/world-revisions/${w.world_revision_id}`}>
                  {w.name} · revision {w.revision}
                </Link>
                <span className="muted small">{formatDate(w.created_at)}</span>
              </li>
            ))}
          </ul>
        </>
      )}
      {runs.value && runs.value.data.length > 0 && (
        <>
          <h3>Runs</h3>
          <ul className="cards">
            {runs.value.data.map((r) => (
              <li key={r.run_id}>
                <Link to={`/runs/${r.run_id}`}>Run of {formatDate(r.created_at)}</Link> <Status value={r.status} />
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

export function ProjectPage({ project_id }: { project_id: string }) {
  const project = useLoad(() => api<Project>('GET', `/v1/projects/${project_id}`), [project_id]);
  if (project.error) return <ErrorBanner error={project.error} />;
  if (!project.value) return <p aria-busy="true">Loading…</p>;
  return (
    <>
      <p className="crumbs">
        <Link to="/">Projects</Link> /
      </p>
      <h1>{project.value.title}</h1>
      <Material project={project.value} />
      <Intakes project={project.value} />
      <Worlds project={project.value} />
      <AuthoringSessions project_id={project.value.id} />
    </>
  );
}

function DroppedCitations({ dropped }: { dropped: DroppedCitation[] }) {
  if (dropped.length === 0) return <p className="muted">No citation was dropped: every cited line was found in your material.</p>;
  return (
    <div className="warning" role="note">
      <p>
        {dropped.length} citation{dropped.length === 1 ? ' was' : 's were'} dropped because the cited lines do not say it:
      </p>
      <ul>
        {dropped.map((d) => (
          <li key={`${d.path}:${d.source_id}:${d.line_start}`}>
            <code>{d.path}</code> — lines {d.line_start}–{d.line_end} of {d.source_id}: {d.message}
          </li>
        ))}
      </ul>
    </div>
  );
}

/** The IntakeSpec's published JSON Schema: the form is built from it, so a field added to the contract appears here. */
function useIntakeSchema() {
  return useLoad(() => api<JsonSchema>('GET', '/v1/schemas/IntakeSpec'), []);
}

export function DraftPage({ project_id, draft_id }: { project_id: string; draft_id: string }) {
  const draft = useLoad(() => api<Draft>('GET', `/v1/intake-drafts/${draft_id}`), [draft_id], { ms: 1000, until: (d) => TERMINAL_DRAFT.includes(d.status) });
  const schema = useIntakeSchema();
  // One document, two views: the form edits `spec`; the JSON view edits text, applied to `spec` whenever it parses.
  const [spec, setSpec] = useState<unknown>(undefined);
  const [jsonText, setJsonText] = useState<string | null>(null);
  const [parseError, setParseError] = useState<string | null>(null);
  const [confirmed, setConfirmed] = useState<IntakeRevision | null>(null);
  const d = draft.value;
  const current = spec === undefined ? d?.spec : spec;
  const text = jsonText ?? (current ? JSON.stringify(current, null, 2) : '');
  const editJson = (next: string) => {
    setJsonText(next);
    try {
      setSpec(JSON.parse(next));
      setParseError(null);
    } catch (error) {
      setParseError(`The IntakeSpec is not valid JSON: ${(error as Error).message}`);
    }
  };
  const editForm = (next: unknown) => {
    setSpec(next);
    setJsonText(null);
    setParseError(null);
  };
  const confirm = useAction(async () => {
    if (parseError) return;
    setConfirmed(await api<IntakeRevision>('POST', `/v1/projects/${project_id}/intakes`, { body: { spec: current, draft_id }, idempotent: true }));
  });
  const cancel = useAction(async () => {
    await api('POST', `/v1/intake-drafts/${draft_id}/cancel`);
    draft.reload();
  });
  const plan = useAction(async () => {
    const created = await api<Plan>('POST', `/v1/projects/${project_id}/evaluation-plans`, { body: {}, idempotent: true });
    navigate(`/projects/${project_id}/plans/${created.id}`);
  });
  const problems = problemsByPath(confirm.error instanceof ApiError ? confirm.error.envelope.details : null);
  return (
    <>
      <p className="crumbs">
        <Link to="/">Projects</Link> / <Link to={`/projects/${project_id}`}>Project</Link> /
      </p>
      <h1>Intake draft</h1>
      <ErrorBanner error={draft.error} />
      {d && (
        <>
          <p aria-live="polite">
            <Status value={d.status} /> {d.usage && <span className="muted small">drafted by {d.usage.provider} · {d.usage.credits_charged} credits</span>}
          </p>
          {!TERMINAL_DRAFT.includes(d.status) && (
            <>
              <p className="muted">Drafting… you can leave this page and come back.</p>
              <Action onPress={() => void cancel.run()}>Cancel drafting</Action>
              <ErrorBanner error={cancel.error} />
            </>
          )}
          {d.error && <ErrorBanner error={new Error(d.error.message)} />}
          {d.status === 'succeeded' && !confirmed && (
            <>
              <h2>Dropped citations</h2>
              <DroppedCitations dropped={d.dropped_citations} />
              {d.dropped_claims.length > 0 && (
                <div className="warning" role="note">
                  <p>
                    {d.dropped_claims.length} claim{d.dropped_claims.length === 1 ? ' was' : 's were'} dropped because no citation was left:
                  </p>
                  <ul>
                    {d.dropped_claims.map((c) => (
                      <li key={c.path}>
                        <code>{c.path}</code>: {c.message}
                      </li>
                    ))}
                  </ul>
                </div>
              )}
              <h2>Review and correct the IntakeSpec</h2>
              <p className="muted">Every statement is recorded as user declared. Correct what is wrong, fill in what you know, and confirm.</p>
              <ErrorBanner error={schema.error} />
              <Tabs>
                <TabList aria-label="IntakeSpec views">
                  <Tab id="form">Form</Tab>
                  <Tab id="json">JSON</Tab>
                </TabList>
                <TabPanel id="form">
                  {parseError ? (
                    <p className="muted">The JSON view holds text that does not parse; fix it there to edit with the form.</p>
                  ) : schema.value ? (
                    <form className="schema-form" aria-label="IntakeSpec form" onSubmit={(event) => event.preventDefault()}>
                      <SchemaField schema={schema.value} value={current} onChange={editForm} label="IntakeSpec" path="" problems={problems} />
                    </form>
                  ) : (
                    <p aria-busy="true">Loading the IntakeSpec schema…</p>
                  )}
                </TabPanel>
                <TabPanel id="json">
                  <Area label="IntakeSpec (JSON)" className="code" value={text} onChange={editJson} rows={24} spellCheck={false} />
                </TabPanel>
              </Tabs>
              {parseError && (
                <div className="error" role="alert">
                  <p className="error-message">{parseError}</p>
                </div>
              )}
              <ErrorBanner error={confirm.error} />
              <Action variant="primary" onPress={() => void confirm.run()} isDisabled={confirm.pending || parseError !== null}>
                Confirm this intake
              </Action>
            </>
          )}
          {confirmed && (
            <>
              <h2>Confirmed as revision {confirmed.revision}</h2>
              <DroppedCitations dropped={confirmed.dropped_citations} />
              <ErrorBanner error={plan.error} />
              <Action variant="primary" onPress={() => void plan.run()} isDisabled={plan.pending}>
                Plan the evaluations
              </Action>
            </>
          )}
        </>
      )}
    </>
  );
}

function Cited({ sources }: { sources: CitedSource[] }) {
  if (sources.length === 0) return null;
  return (
    <span className="muted small">
      {' '}
      cited from{' '}
      {sources.map((c) => (
        <code key={`${c.source_id}:${c.line_start}`}>
          {c.source_id} lines {c.line_start}–{c.line_end}{' '}
        </code>
      ))}
    </span>
  );
}

const BUSINESS_LABELS: Record<string, string> = {
  proposed_user: 'Proposed user',
  buyer: 'Buyer',
  budget_owner: 'Budget owner',
  current_alternative: 'Current alternative',
  value_hypothesis: 'Value hypothesis',
};

function BusinessRow({ label, question }: { label: string; question: BusinessQuestion }) {
  return (
    <div data-testid="business-question">
      <dt>{label}</dt>
      <dd>
        {question.status === 'stated' ? (
          <>
            <q>{question.stated}</q> <span className="chip">user declared, not verified</span>
            <Cited sources={question.cited_sources} />
          </>
        ) : (
          <span className="chip">unknown: the intake does not say</span>
        )}
        <p className="small">Ask: {question.question}</p>
      </dd>
    </div>
  );
}

/** spec: EvaluationPlan — the Business questions section and the optional business_assessment; no viability score. */
function BusinessSection({ questions, assessment }: { questions: BusinessQuestions; assessment?: BusinessAssessment }) {
  return (
    <section aria-labelledby="business-heading">
      <h2 id="business-heading">Business questions</h2>
      <p className="muted">What your intake says about who would use and pay for this, and what to find out next. Nothing here is scored or verified.</p>
      <dl className="spec">
        {(['proposed_user', 'buyer', 'budget_owner', 'current_alternative'] as const).map((key) => (
          <BusinessRow key={key} label={BUSINESS_LABELS[key]!} question={questions[key]} />
        ))}
        {questions.dependencies.map((d, i) => (
          <BusinessRow key={`dependency-${d.stated ?? i}`} label={questions.dependencies.length > 1 ? `Dependency ${i + 1}` : 'Dependencies'} question={d} />
        ))}
        <BusinessRow label={BUSINESS_LABELS.value_hypothesis!} question={questions.value_hypothesis} />
      </dl>
      <h3>Suggested buyer interview</h3>
      <p>
        With <strong>{questions.suggested_buyer_interview.interviewee}</strong>: {questions.suggested_buyer_interview.purpose}
      </p>
      <ol>
        {questions.suggested_buyer_interview.questions.map((q) => (
          <li key={q}>{q}</li>
        ))}
      </ol>
      {questions.unknowns.length > 0 && (
        <>
          <h3>Unknowns</h3>
          <ul>
            {questions.unknowns.map((u) => (
              <li key={u.field}>
                <code>{u.field}</code>: {u.question}
              </li>
            ))}
          </ul>
        </>
      )}
      {assessment && (
        <>
          <h3>Business assessment</h3>
          <p className="muted small">A question map that keeps what you submitted apart from hypotheses and unknowns. No viability score is produced.</p>
          {assessment.submitted_claims.length > 0 && (
            <>
              <h4>Submitted claims</h4>
              <ul>
                {assessment.submitted_claims.map((c) => (
                  <li key={c.text}>
                    <q>{c.text}</q> <span className="chip">{c.topic}</span> <span className="chip">{c.provenance.replaceAll('_', ' ')}</span>
                    <Cited sources={c.cited_sources} />
                    <p className="small">Ask: {c.question}</p>
                  </li>
                ))}
              </ul>
            </>
          )}
          {assessment.hypotheses.length > 0 && (
            <>
              <h4>Hypotheses</h4>
              <ul>
                {assessment.hypotheses.map((h) => (
                  <li key={`${h.field}:${h.hypothesis}`}>
                    <code>{h.field}</code>: {h.hypothesis} <span className="muted small">Test it: {h.how_to_test}</span>
                  </li>
                ))}
              </ul>
            </>
          )}
          {assessment.unknowns.length > 0 && (
            <>
              <h4>Unknowns</h4>
              <ul>
                {assessment.unknowns.map((u) => (
                  <li key={u.field}>
                    <code>{u.field}</code>: {u.question}
                  </li>
                ))}
              </ul>
            </>
          )}
        </>
      )}
    </section>
  );
}

export function PlanPage({ project_id, plan_id }: { project_id: string; plan_id: string }) {
  const plan = useLoad(() => api<Plan>('GET', `/v1/projects/${project_id}/evaluation-plans/${plan_id}`), [project_id, plan_id]);
  const approve = useAction(async (scope: string) => {
    await api('POST', `/v1/projects/${project_id}/evaluation-plans/${plan_id}/approve`, { body: { scope } });
    plan.reload();
  });
  const start = useAction(async () => {
    const review = await api<{ id: string }>('POST', `/v1/projects/${project_id}/reviews`, { body: { plan_id }, idempotent: true });
    navigate(`/reviews/${review.id}`);
  });
  const p = plan.value;
  const approved = new Set(p?.approvals.map((a) => a.scope));
  const review = p?.plan.evaluations.find((e) => e.kind === 'concept_and_evidence_review');
  const reviewReady = review?.decision === 'recommended' && review.approvals_needed.every((s) => approved.has(s));
  return (
    <>
      <p className="crumbs">
        <Link to="/">Projects</Link> / <Link to={`/projects/${project_id}`}>Project</Link> /
      </p>
      <h1>Evaluation plan</h1>
      <ErrorBanner error={plan.error} />
      {p && (
        <>
          <p className="muted">From intake revision {p.intake_revision}. No score is given: each evaluation is recommended or skipped, with the reason.</p>
          <ul className="decisions">
            {p.plan.evaluations.map((e) => (
              <li key={e.kind} data-testid="decision">
                <h2>
                  {e.kind.replaceAll('_', ' ')} <Status value={e.decision} />
                </h2>
                <p>{e.explanation}</p>
                {e.based_on.length > 0 && (
                  <p className="muted small">
                    Based on {e.based_on.map((b) => <code key={b}>{b} </code>)}
                  </p>
                )}
                <p>
                  Estimated credits: <strong>{e.estimated_credits === null ? 'estimated later' : formatNumber(e.estimated_credits)}</strong>{' '}
                  <span className="muted small">({e.cost_basis})</span>
                </p>
              </li>
            ))}
          </ul>
          <p>
            Estimated total: <strong data-testid="plan-total-credits">{formatNumber(p.plan.estimated_cost.total_credits)} credits</strong>{' '}
            <span className="muted small">({p.plan.estimated_cost.basis})</span>
          </p>
          {p.plan.notes.length > 0 && (
            <ul className="muted small">
              {p.plan.notes.map((n) => (
                <li key={n}>{n}</li>
              ))}
            </ul>
          )}
          <BusinessSection questions={p.plan.business_questions} assessment={p.plan.business_assessment} />
          <h2>Approvals</h2>
          {p.plan.approvals_needed.length === 0 && <p className="muted">No approval is needed.</p>}
          <ul className="decisions">
            {p.plan.approvals_needed.map((a) => (
              <li key={a.scope}>
                <p>
                  <strong>{a.scope.replaceAll('_', ' ')}</strong>: {a.reason}
                </p>
                {a.not_needed_when && <p className="muted small">Not needed when {a.not_needed_when}</p>}
                {approved.has(a.scope) ? (
                  <Status value="approved" />
                ) : (
                  <Action variant="primary" onPress={() => void approve.run(a.scope)} isDisabled={approve.pending} aria-label={`Approve ${a.scope.replaceAll('_', ' ')}`}>
                    Approve {a.scope.replaceAll('_', ' ')}
                  </Action>
                )}
              </li>
            ))}
          </ul>
          <ErrorBanner error={approve.error} />
          <h2>Start</h2>
          {review?.decision === 'recommended' ? (
            <>
              {!reviewReady && <p className="muted">Approve the review's scopes above first.</p>}
              <Action variant="primary" onPress={() => void start.run()} isDisabled={!reviewReady || start.pending}>
                Start the concept and evidence review
              </Action>
            </>
          ) : (
            <p className="muted">The plan does not recommend a review.</p>
          )}
          <ErrorBanner error={start.error} />
          <p>
            <Link to={`/projects/${project_id}/worlds/new`}>Build a world to simulate</Link>
          </p>
        </>
      )}
    </>
  );
}
