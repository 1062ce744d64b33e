// Worlds (spec: WorldSpec and run): a JSON editor with every problem shown at its JSON pointer, sample worlds to
// start from, saved revisions, and an estimate under a budget the user types (never pre-filled) before a run.
import { useState } from 'react';
import { type Estimate, type Run, type WorldRevision, type WorldValidation, api } from '../api.ts';
import { Action, Area, ErrorBanner, Field, Link, formatDate, formatNumber, navigate, useAction, useLoad, useLocation } from '../ui.tsx';

// the sample worlds of samples/worlds, each loaded only when chosen
const SAMPLES = import.meta.glob<{ default: unknown }>('../../../samples/worlds/*.json');
const sampleName = (path: string) => path.split('/').pop()!.replace('.json', '').replaceAll('_', ' ');

type Problem = WorldValidation['problems'][number];

export function WorldEditorPage({ project_id }: { project_id: string }) {
  const { search } = useLocation();
  const from = search.get('from');
  const [text, setText] = useState('');
  const [problems, setProblems] = useState<Problem[] | null>(null);
  const [sample, setSample] = useState('');
  useLoad(async () => {
    if (!from) return null;
    const revision = await api<WorldRevision>('GET', `/v1/world-revisions/${from}`);
    setText(JSON.stringify(revision.world, null, 2));
    return revision;
  }, [from]);
  const parse = (): unknown => {
    try {
      return JSON.parse(text);
    } catch (error) {
      setProblems([{ pointer: '', message: `not valid JSON: ${(error as Error).message}` }]);
      return undefined;
    }
  };
  const check = useAction(async () => {
    const world = parse();
    if (world === undefined) return;
    const result = await api<WorldValidation>('POST', '/v1/world-specs/validate', { body: world });
    setProblems(result.problems);
  });
  const save = useAction(async () => {
    const world = parse();
    if (world === undefined) return;
    const saved = await api<WorldRevision>('POST', `/v1/projects/${project_id}/worlds`, { body: world });
    navigate(`/world-revisions/${saved.world_revision_id}`);
  });
  const loadSample = async (path: string) => {
    setSample(path);
    if (!path) return;
    const module = await SAMPLES[path]!();
    setText(JSON.stringify(module.default, null, 2));
    setProblems(null);
  };
  return (
    <>
      <p className="crumbs">
        <Link to="/">Projects</Link> / <Link to={`/projects/${project_id}`}>Project</Link> /
      </p>
      <h1>{from ? 'New revision of a world' : 'New world'}</h1>
      <p className="muted">
        A WorldSpec describes the care pathway as a queueing model. Start from a sample, or paste your own; the schema is at <a href="/v1/schemas/WorldSpec">/v1/schemas/WorldSpec</a>.
      </p>
      <label className="field">
        <span>Start from a sample world</span>
        <select value={sample} onChange={(e) => void loadSample(e.target.value)}>
          <option value="">Choose a sample…</option>
          {Object.keys(SAMPLES).map((path) => (
            <option key={path} value={path}>
              {sampleName(path)}
            </option>
          ))}
        </select>
      </label>
      <Area label="WorldSpec (JSON)" className="code" value={text} onChange={setText} rows={26} spellCheck={false} />
      {problems && (
        <div className={problems.length ? 'error' : 'ok'} role={problems.length ? 'alert' : 'status'}>
          {problems.length === 0 ? (
            <p>The world is valid.</p>
          ) : (
            <>
              <p className="error-message">
                {problems.length} problem{problems.length === 1 ? '' : 's'}:
              </p>
              <ul>
                {problems.map((p) => (
                  <li key={`${p.pointer}:${p.message}`}>
                    <code>{p.pointer || '/'}</code> {p.message}
                  </li>
                ))}
              </ul>
            </>
          )}
        </div>
      )}
      <ErrorBanner error={check.error ?? save.error} />
      <div className="row">
        <Action onPress={() => void check.run()} isDisabled={!text.trim() || check.pending}>
          Check
        </Action>
        <Action variant="primary" onPress={() => void save.run()} isDisabled={!text.trim() || save.pending}>
          Save revision
        </Action>
      </div>
    </>
  );
}

export function WorldRevisionPage({ world_revision_id }: { world_revision_id: string }) {
  const revision = useLoad(() => api<WorldRevision>('GET', `/v1/world-revisions/${world_revision_id}`), [world_revision_id]);
  // spec: WorldSpec and run — the budget is what the user types; nothing is pre-filled
  const [budget, setBudget] = useState('');
  const [estimate, setEstimate] = useState<Estimate | null>(null);
  const budgetNumber = /^\d+$/.test(budget.trim()) ? Number(budget.trim()) : null;
  const runEstimate = useAction(async () => {
    setEstimate(await api<Estimate>('POST', '/v1/runs/estimate', { body: { world_revision_id, budget_limit_credits: budgetNumber ?? budget } }));
  });
  const start = useAction(async () => {
    const run = await api<Run>('POST', '/v1/runs', { body: { world_revision_id, budget_limit_credits: budgetNumber ?? budget }, idempotent: true });
    navigate(`/runs/${run.run_id}`);
  });
  const w = revision.value;
  return (
    <>
      {w && (
        <p className="crumbs">
          <Link to="/">Projects</Link> / <Link to={`/projects/${w.project_id}`}>Project</Link> /
        </p>
      )}
      <ErrorBanner error={revision.error} />
      {w && (
        <>
          <h1>
            {w.name} · revision {w.revision}
          </h1>
          <p className="muted">Saved {formatDate(w.created_at)}.</p>
          <Link to={`/projects/${w.project_id}/worlds/new?from=${w.world_revision_id}`}>Edit as a new revision</Link>
          <section aria-labelledby="run-heading">
            <h2 id="run-heading">Run</h2>
            <p className="muted">Set the most this run may cost in credits. Estimate first: the run starts only if the budget covers the estimate.</p>
            <form
              className="inline-form"
              onSubmit={(event) => {
                event.preventDefault();
                void runEstimate.run();
              }}
            >
              <Field
                label="Budget (credits)"
                value={budget}
                onChange={(value) => {
                  // a changed budget needs a new estimate before it can run
                  setBudget(value);
                  setEstimate(null);
                }}
                inputMode="numeric"
                isRequired
              />
              <Action type="submit" isDisabled={!budget.trim() || runEstimate.pending}>
                Estimate
              </Action>
              <Action variant="primary" onPress={() => void start.run()} isDisabled={!estimate?.runnable || start.pending}>
                Run
              </Action>
            </form>
            <ErrorBanner error={runEstimate.error ?? start.error} />
            {estimate && (
              <div className={estimate.runnable ? 'ok' : 'error'} role="status" data-testid="estimate">
                <p>
                  {estimate.runnable ? 'Runnable.' : 'Not runnable.'} Estimated {formatNumber(estimate.credits_estimate)} credits for about {formatNumber(estimate.events_estimate)} events;{' '}
                  {formatNumber(estimate.available_credits)} credits available; {formatNumber(estimate.reserved_credits)} would be reserved.
                </p>
                {estimate.issues.length > 0 && (
                  <ul>
                    {estimate.issues.map((i) => (
                      <li key={`${i.pointer}:${i.message}`}>
                        <code>{i.pointer}</code> {i.message}
                      </li>
                    ))}
                  </ul>
                )}
                <p className="muted small">{estimate.cost_model}</p>
              </div>
            )}
          </section>
          <details>
            <summary>The WorldSpec</summary>
            <pre className="code">
              {JSON.stringify(w.world, null, 2)}
            </pre>
          </details>
        </>
      )}
    </>
  );
}
