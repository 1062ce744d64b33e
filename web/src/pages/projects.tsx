// Projects and the evaluation flow (spec: What the service does 1–3): material in (pasted text or files, screened
// without AI), a drafted IntakeSpec to review and correct, confirmation, the evaluation plan with its approvals, and
// the start of a review. Every step has its own address, so a long job can be left and returned to.
import { Suspense, lazy, useRef, useState } from 'react';
import { client, newOperationKey, unwrap } from '../client.ts';
import type { Project, Source } from '../types.ts';
import {
  Action,
  Area,
  CopyButton,
  ErrorBanner,
  Field,
  Link,
  Status,
  formatDate,
  formatNumber,
  navigate,
  plainText,
  useAction,
  useLoad,
  useSession,
} from '../ui.tsx';
import { TechnicalDetails } from '../technical.tsx';
import { ProjectSteps } from './projectSteps.tsx';

// The authoring sessions' list shares its module with the authoring screen: a chunk of its own, so the first screen stays small.
const AuthoringSessions = lazy(() => import('./authoring.tsx').then((m) => ({ default: m.AuthoringSessions })));

export function ProjectsPage() {
  const { org_id } = useSession();
  const projects = useLoad(() => client.GET('/v1/projects', { query: { org_id, limit: 100 } }).then(unwrap), [org_id]);
  const [title, setTitle] = useState('');
  const create = useAction(async () => {
    const project = await client.POST('/v1/projects', { body: { title, org_id }, idempotencyKey: newOperationKey() }).then(unwrap);
    navigate(`/projects/${project.id}`);
  });
  return (
    <>
      <h1>Projects</h1>
      <p className="muted">Each project is one idea: its material, the intake drafted from it, the plan, and the review or simulation.</p>
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
      {projects.value?.data.length === 0 && (
        <div className="empty" data-testid="projects-empty">
          <h2>Start with your idea</h2>
          <p>
            Give your project a title above and create it. Then paste a paragraph about your idea (the problem, your solution, who would use it, how far it is):
            the service drafts an intake for you to check, plans the evaluations that fit, and reviews the published evidence.
          </p>
          <p className="muted small">
            Reading and screening your material and planning are free; each step that uses AI says what it can cost before it starts.
          </p>
        </div>
      )}
    </>
  );
}

const SOURCE_KINDS: Record<string, string> = { text: 'text', markdown: 'Markdown', json: 'JSON', pdf: 'PDF', unknown: 'unknown type' };

function SourceList({ sources }: { sources: Source[] }) {
  return (
    <ul className="sources">
      {sources.map((s) => (
        <li key={s.id} data-testid="source">
          <div className="row">
            <strong>{s.name}</strong> <Status value={s.status} />
            <span className="muted small">
              {SOURCE_KINDS[s.kind] ?? 'file'} · {formatNumber(s.size_bytes)} bytes · {formatNumber(s.line_count)} {s.line_count === 1 ? 'line' : 'lines'}
            </span>
          </div>
          {s.reason && <p className="muted">{plainText(s.reason)}</p>}
          {s.lines_split > 0 && (
            <p className="muted">
              {formatNumber(s.lines_split)} very long line{s.lines_split === 1 ? ' was' : 's were'} split into shorter numbered lines before screening.
            </p>
          )}
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

function Material({ project, onChange }: { project: Project; onChange(): void }) {
  const sources = useLoad(
    () => client.GET('/v1/intake-sources', { query: { org_id: project.org_id, project_id: project.id, limit: 100 } }).then(unwrap),
    [project.id],
  );
  const [text, setText] = useState('');
  const fileInput = useRef<HTMLInputElement>(null);
  const [files, setFiles] = useState<File[]>([]);
  const add = useAction(async () => {
    if (files.length > 0) {
      const form = new FormData();
      form.append('project_id', project.id);
      if (text.trim()) form.append('text', text);
      for (const file of files) form.append('file', file, file.name);
      await client.POST('/v1/intakes/extract', { body: form }).then(unwrap);
    } else {
      await client.POST('/v1/intakes/extract', { body: { text, project_id: project.id } }).then(unwrap);
    }
    setText('');
    setFiles([]);
    if (fileInput.current) fileInput.current.value = '';
    sources.reload();
    onChange();
  });
  const processed = (sources.value?.data ?? []).filter((s) => s.status === 'processed');
  const draft = useAction(async () => {
    const body = { source_ids: processed.map((s) => s.id) };
    const created = await client.POST('/v1/projects/{project_id}/intakes/parse', { path: { project_id: project.id }, body, idempotencyKey: newOperationKey() });
    navigate(`/projects/${project.id}/drafts/${unwrap(created).id}`);
  });
  return (
    <section aria-labelledby="material-heading">
      <h2 id="material-heading">Your material</h2>
      <p className="muted">
        Paste the text of your idea or upload files (TXT, Markdown, JSON, PDF). They are read and screened for secrets and patient identifiers without AI, free
        of charge; a file with a patient identifier is set aside and never sent to an AI.
      </p>
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
        <p className="muted small">
          Drafting reads your accepted material and fills in the intake for you to check. It is charged in credits at actual use; the most it can cost is shown
          once it starts.
        </p>
        <ErrorBanner error={draft.error} />
      </div>
    </section>
  );
}

function Intakes({ project, onChange }: { project: Project; onChange(): void }) {
  const intakes = useLoad(
    () => client.GET('/v1/projects/{project_id}/intakes', { path: { project_id: project.id }, query: { limit: 20 } }).then(unwrap),
    [project.id],
  );
  const plans = useLoad(
    () => client.GET('/v1/projects/{project_id}/evaluation-plans', { path: { project_id: project.id }, query: { limit: 20 } }).then(unwrap),
    [project.id],
  );
  const reviews = useLoad(
    () => client.GET('/v1/projects/{project_id}/reviews', { path: { project_id: project.id }, query: { limit: 20 } }).then(unwrap),
    [project.id],
  );
  const plan = useAction(async () => {
    const created = await client
      .POST('/v1/projects/{project_id}/evaluation-plans', { path: { project_id: project.id }, body: {}, idempotencyKey: newOperationKey() })
      .then(unwrap);
    onChange();
    navigate(`/projects/${project.id}/plans/${created.id}`);
  });
  return (
    <section aria-labelledby="intake-heading">
      <h2 id="intake-heading">Intake, plans and reviews</h2>
      <ErrorBanner error={intakes.error ?? plans.error ?? plan.error} />
      {intakes.value?.data.length ? (
        <>
          <p>
            Confirmed intake revisions:{' '}
            {intakes.value.data.map((i) => (
              <Link key={i.id} to={`/projects/${project.id}/intakes/${i.revision}`} className="chip">
                revision {i.revision} · {formatDate(i.created_at)}
              </Link>
            ))}
          </p>
          <Action variant="primary" onPress={() => void plan.run()} isDisabled={plan.pending}>
            Plan evaluations for the latest intake
          </Action>
          <span className="muted small"> Planning is free: it says what each evaluation would cost before anything runs.</span>
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
  const worlds = useLoad(
    () => client.GET('/v1/projects/{project_id}/worlds', { path: { project_id: project.id }, query: { limit: 50 } }).then(unwrap),
    [project.id],
  );
  const runs = useLoad(
    () => client.GET('/v1/projects/{project_id}/runs', { path: { project_id: project.id }, query: { limit: 50 } }).then(unwrap),
    [project.id],
  );
  return (
    <section aria-labelledby="worlds-heading">
      <h2 id="worlds-heading">Simulations</h2>
      <p className="muted">
        Model the care pathway your product would change and simulate it with and without your product. Results are synthetic: they describe the model, not real
        patients. Each run shows its cost in credits before it starts.
      </p>
      <Link to={`/projects/${project.id}/worlds/new`} className="button primary">
        New world: a model of the care pathway
      </Link>
      <ErrorBanner error={worlds.error ?? runs.error} />
      {worlds.value && worlds.value.data.length > 0 && (
        <>
          <h3>Models of the care pathway</h3>
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
  const project = useLoad(() => client.GET('/v1/projects/{project_id}', { path: { project_id } }).then(unwrap), [project_id]);
  const [version, setVersion] = useState(0);
  const changed = () => setVersion((v) => v + 1);
  if (project.error) return <ErrorBanner error={project.error} />;
  if (!project.value) return <p aria-busy="true">Loading…</p>;
  return (
    <>
      <h1>{project.value.title}</h1>
      <p className="muted small">Started {formatDate(project.value.created_at)}</p>
      <ProjectSteps project={project.value} version={version} />
      <Material project={project.value} onChange={changed} />
      <Intakes project={project.value} onChange={changed} />
      <Worlds project={project.value} />
      <Suspense fallback={<p aria-busy="true">Loading the authoring sessions…</p>}>
        <AuthoringSessions project_id={project.value.id} />
      </Suspense>
      <TechnicalDetails>
        <p>
          Project {project.value.id} · organization {project.value.org_id}
        </p>
      </TechnicalDetails>
    </>
  );
}

export { DraftPage } from './intake.tsx';
export { PlanPage } from './plan.tsx';
