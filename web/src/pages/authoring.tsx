// Authoring sessions (beta; spec: Authoring sessions; Authoring session checkpoint; docs/authoring.md): start one from a
// confirmed intake (optionally from a sample world), answer its questions, read each checkpoint with what changed,
// revise values or ask for another AI iteration (refused once `cap_reached`), and approve into a world revision.
// Nothing is estimated or run by approving: the world revision page does that when asked.
import { useState } from 'react';
import { type AuthoringSession, type Checkpoint, type IntakeRevisionListItem, type Page, type ValueSource, api } from '../api.ts';
import { Action, Area, ErrorBanner, Field, Link, Status, formatDate, formatNumber, navigate, useAction, useLoad } from '../ui.tsx';

// the sample worlds of samples/worlds, each loaded only when chosen (as the world editor does)
const SAMPLES = import.meta.glob<{ default: unknown }>('../../../samples/worlds/*.json');
const sampleName = (path: string) => path.split('/').pop()!.replace('.json', '').replaceAll('_', ' ');
/** How often a drafting session is read again; each read is one GET (the page can be left and returned to). */
const SESSION_POLL_MS = 1000;
const SESSIONS_PAGE_LIMIT = 20;

/** The project page's section: the project's sessions and the form that starts one. */
export function AuthoringSessions({ project_id }: { project_id: string }) {
  const sessions = useLoad(() => api<Page<AuthoringSession>>('GET', `/v1/projects/${project_id}/authoring-sessions`, { query: { limit: SESSIONS_PAGE_LIMIT } }), [project_id]);
  const intakes = useLoad(() => api<Page<IntakeRevisionListItem>>('GET', `/v1/projects/${project_id}/intakes`, { query: { limit: 50 } }), [project_id]);
  const [revision, setRevision] = useState('');
  const [sample, setSample] = useState('');
  const start = useAction(async () => {
    const starting_world = sample ? (await SAMPLES[sample]!()).default : undefined;
    const body: Record<string, unknown> = {};
    if (revision) body.intake_revision = Number(revision);
    if (starting_world) body.starting_world = starting_world;
    const created = await api<AuthoringSession>('POST', `/v1/projects/${project_id}/authoring-sessions`, { body, idempotent: true });
    navigate(`/authoring-sessions/${created.id}`);
  });
  const confirmed = intakes.value?.data ?? [];
  return (
    <section aria-labelledby="authoring-heading">
      <h2 id="authoring-heading">4. Authoring sessions (beta)</h2>
      <p className="muted">
        Prepare a world with the service: it drafts from your confirmed intake, asks for every number it cannot source, and shows each checkpoint. Nothing runs until you
        approve and then run the world yourself.
      </p>
      <ErrorBanner error={sessions.error ?? intakes.error} />
      {confirmed.length === 0 ? (
        <p className="muted">Confirm an intake first: a session starts from a confirmed intake revision.</p>
      ) : (
        <form
          className="inline-form"
          onSubmit={(event) => {
            event.preventDefault();
            void start.run();
          }}
        >
          <label className="field">
            <span>Intake revision</span>
            <select value={revision} onChange={(e) => setRevision(e.target.value)}>
              <option value="">the latest (revision {confirmed[0]!.revision})</option>
              {confirmed.map((i) => (
                <option key={i.id} value={String(i.revision)}>
                  revision {i.revision} · {formatDate(i.created_at)}
                </option>
              ))}
            </select>
          </label>
          <label className="field">
            <span>Starting world (optional)</span>
            <select value={sample} onChange={(e) => setSample(e.target.value)}>
              <option value="">none: the single-queue template</option>
              {Object.keys(SAMPLES).map((path) => (
                <option key={path} value={path}>
                  sample: {sampleName(path)}
                </option>
              ))}
            </select>
          </label>
          <Action type="submit" variant="primary" isDisabled={start.pending}>
            {start.pending ? 'Starting…' : 'Start an authoring session'}
          </Action>
        </form>
      )}
      <ErrorBanner error={start.error} />
      {sessions.value && sessions.value.data.length > 0 && (
        <ul className="cards">
          {sessions.value.data.map((s) => (
            <li key={s.id}>
              <Link to={`/authoring-sessions/${s.id}`}>Session of {formatDate(s.created_at)}</Link>
              <span>
                <Status value={s.status} /> {s.cap_reached && <span className="chip">cap reached</span>}
              </span>
              <span className="muted small">{s.checkpoint_count} checkpoints</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function sourceText(source: ValueSource): string {
  switch (source.kind) {
    case 'intake_line':
      return `intake ${source.source_id} lines ${source.line_start}–${source.line_end}: “${source.quote}”`;
    case 'answer':
      return `your answer (checkpoint ${source.answered_at_checkpoint})`;
    case 'reference':
      return `reference: ${source.reference}`;
    case 'assumption':
      return `assumption: ${source.rationale}`;
    default:
      return JSON.stringify(source);
  }
}

const show = (value: unknown) => (value === null || value === undefined ? '—' : typeof value === 'object' ? JSON.stringify(value) : String(value));

function Changes({ checkpoint }: { checkpoint: Checkpoint }) {
  return (
    <div>
      <h3>{checkpoint.number === 1 ? 'What the first checkpoint sets' : `What changed since checkpoint ${checkpoint.number - 1}`}</h3>
      {checkpoint.changes_since_previous.length === 0 ? (
        <p className="muted">{checkpoint.number === 1 ? 'Nothing is set yet.' : 'Nothing changed.'}</p>
      ) : (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th>Where</th>
                <th>Before</th>
                <th>After</th>
              </tr>
            </thead>
            <tbody>
              {checkpoint.changes_since_previous.map((c) => (
                <tr key={c.path} data-testid="change">
                  <td>
                    <code>{c.path}</code>
                  </td>
                  <td>{show(c.before)}</td>
                  <td>{show(c.after)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}

function Questions({ session, onStep }: { session: AuthoringSession; onStep(next: AuthoringSession): void }) {
  const questions = session.checkpoint?.questions ?? [];
  const [values, setValues] = useState<Record<string, string>>({});
  const [notes, setNotes] = useState<Record<string, string>>({});
  const send = useAction(async () => {
    const answers = questions
      .filter((q) => (values[q.id] ?? '').trim() !== '')
      .map((q) => ({ question_id: q.id, value: Number(values[q.id]), ...(notes[q.id]?.trim() ? { note: notes[q.id]!.trim() } : {}) }));
    const next = await api<AuthoringSession>('POST', `/v1/authoring-sessions/${session.id}/answers`, { body: { answers }, idempotent: true });
    setValues({});
    setNotes({});
    onStep(next);
  });
  if (questions.length === 0) return <p className="muted">No open questions.</p>;
  const canAnswer = session.accepts.includes('answers');
  const invalid = questions.some((q) => (values[q.id] ?? '').trim() !== '' && !Number.isFinite(Number(values[q.id])));
  const none = questions.every((q) => (values[q.id] ?? '').trim() === '');
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        void send.run();
      }}
    >
      <ul className="questions">
        {questions.map((q) => (
          <li key={q.id} data-testid="question">
            <p>
              <strong>{q.text}</strong> <span className="chip">{q.unit}</span> <span className="muted small">slot {q.slot}</span>
            </p>
            {q.unsourced_proposal && (
              <p className="muted small">
                The model proposed {formatNumber(q.unsourced_proposal.value)} without a source (<span className="chip">ai_hypothesis</span>); it is not used unless you give it.
              </p>
            )}
            <div className="inline-form">
              <Field label={`Answer (${q.unit})`} value={values[q.id] ?? ''} onChange={(v) => setValues((old) => ({ ...old, [q.id]: v }))} inputMode="text" name={`answer-${q.slot}`} />
              <Field label="Where the number comes from (optional)" value={notes[q.id] ?? ''} onChange={(v) => setNotes((old) => ({ ...old, [q.id]: v }))} name={`note-${q.slot}`} />
            </div>
          </li>
        ))}
      </ul>
      {invalid && <p className="field-problem">Each answer is a number.</p>}
      <ErrorBanner error={send.error} />
      <Action type="submit" variant="primary" isDisabled={!canAnswer || send.pending || invalid || none}>
        {send.pending ? 'Sending…' : 'Send answers'}
      </Action>
    </form>
  );
}

function Revise({ session, onStep }: { session: AuthoringSession; onStep(next: AuthoringSession): void }) {
  const checkpoint = session.checkpoint!;
  const slots = [
    ...Object.entries(checkpoint.world.settings).map(([setting, v]) => ({ slot: setting, label: `${setting} (${formatNumber(v.value)} ${v.unit})` })),
    ...checkpoint.world.variants.flatMap((variant) =>
      variant.changes.map((c) => ({ slot: `${variant.id}.${c.setting}`, label: `${variant.id}: ${c.setting} (${formatNumber(c.value)} ${c.unit})` })),
    ),
  ];
  const [slot, setSlot] = useState('');
  const [value, setValue] = useState('');
  const [reference, setReference] = useState('');
  const [instructions, setInstructions] = useState('');
  const revise = useAction(async () => {
    const body: Record<string, unknown> = {};
    if (slot && value.trim() !== '') body.values = [{ slot, value: Number(value), ...(reference.trim() ? { reference: reference.trim() } : {}) }];
    if (instructions.trim()) body.instructions = instructions.trim();
    const next = await api<AuthoringSession>('POST', `/v1/authoring-sessions/${session.id}/revise`, { body, idempotent: true });
    setValue('');
    setReference('');
    setInstructions('');
    onStep(next);
  });
  const canRevise = session.accepts.includes('revise');
  const hasValue = slot !== '' && value.trim() !== '' && Number.isFinite(Number(value));
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        void revise.run();
      }}
    >
      {slots.length > 0 ? (
        <div className="inline-form">
          <label className="field">
            <span>Value to change</span>
            <select value={slot} onChange={(e) => setSlot(e.target.value)}>
              <option value="">choose…</option>
              {slots.map((s) => (
                <option key={s.slot} value={s.slot}>
                  {s.label}
                </option>
              ))}
            </select>
          </label>
          <Field label="New value" value={value} onChange={setValue} />
          <Field label="Reference for it (optional)" value={reference} onChange={setReference} />
        </div>
      ) : (
        <p className="muted small">No value is set yet: answer the questions first.</p>
      )}
      {checkpoint.ai.cap_reached ? (
        <p className="warning" role="note">
          The session reached its AI preparation limit ({checkpoint.ai.limit_reached?.replaceAll('_', ' ') ?? 'cap reached'}): values can still be changed and the world approved, but
          no further AI iteration can be asked for.
        </p>
      ) : (
        <Area label="Ask for another AI iteration (optional instructions)" value={instructions} onChange={setInstructions} rows={3} />
      )}
      <ErrorBanner error={revise.error} />
      <Action type="submit" isDisabled={!canRevise || revise.pending || (!hasValue && !instructions.trim())}>
        {revise.pending ? 'Revising…' : 'Revise'}
      </Action>
    </form>
  );
}

function CheckpointView({ checkpoint }: { checkpoint: Checkpoint }) {
  const ai = checkpoint.ai;
  return (
    <>
      <h3>World settings</h3>
      {Object.keys(checkpoint.world.settings).length === 0 ? (
        <p className="muted">No value is set yet: nothing is guessed; each number comes from your intake, a reference or your answer.</p>
      ) : (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th>Setting</th>
                <th>Value</th>
                <th>Source</th>
              </tr>
            </thead>
            <tbody>
              {Object.entries(checkpoint.world.settings).map(([name, s]) => (
                <tr key={name} data-testid="setting">
                  <td>{name.replaceAll('_', ' ')}</td>
                  <td>
                    {formatNumber(s.value)} {s.unit}
                  </td>
                  <td className="small">{sourceText(s.source)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <h3>Variants</h3>
      <ul>
        {checkpoint.world.variants.map((v) => (
          <li key={v.id}>
            <strong>{v.label}</strong> <span className="chip">{v.role}</span>
            {v.changes.length === 0 ? (
              <span className="muted small"> changes nothing</span>
            ) : (
              <ul>
                {v.changes.map((c) => (
                  <li key={c.setting}>
                    {c.setting.replaceAll('_', ' ')}: {c.baseline === null ? '—' : formatNumber(c.baseline)} → {formatNumber(c.value)} {c.unit}{' '}
                    <span className="muted small">({sourceText(c.source)})</span>
                  </li>
                ))}
              </ul>
            )}
          </li>
        ))}
      </ul>
      <h3>What is measured</h3>
      <div className="table-wrap">
        <table>
          <thead>
            <tr>
              <th>Measure</th>
              <th>Coverage</th>
              <th>Unit</th>
              <th>Denominator</th>
              <th>Time window</th>
              <th>Censoring</th>
              <th>Reported beside it</th>
            </tr>
          </thead>
          <tbody>
            {checkpoint.world.measured.map((m) => (
              <tr key={m.measure_id}>
                <td>{m.measure_id}</td>
                <td>
                  <Status value={m.coverage} />
                </td>
                <td>{m.unit}</td>
                <td>{m.denominator}</td>
                <td>
                  {formatNumber(m.time_window.start)}–{formatNumber(m.time_window.end)} {m.time_window.unit}
                </td>
                <td>{m.censoring.replaceAll('_', ' ')}</td>
                <td className="small">
                  {m.reported_beside.still_waiting_at_end_mean !== null && <>still waiting at the end: {formatNumber(m.reported_beside.still_waiting_at_end_mean)} </>}
                  {m.reported_beside.censored_count !== null && <>censored: {formatNumber(m.reported_beside.censored_count)}</>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <h3>Validation</h3>
      {checkpoint.validation.valid ? (
        <p>
          <Status value="valid" /> the world validates.
        </p>
      ) : (
        <ul>
          {checkpoint.validation.problems.map((p) => (
            <li key={`${p.pointer}:${p.message}`}>
              <code>{p.pointer}</code> {p.message}
            </li>
          ))}
        </ul>
      )}
      <h3>Next steps</h3>
      <ul>
        {checkpoint.next_steps.map((step) => (
          <li key={`${step.kind}:${step.message}`} data-testid="next-step">
            {step.message} <span className="chip">{step.source}</span> {step.tool && <code>{step.tool}</code>}
          </li>
        ))}
      </ul>
      <h3>AI use</h3>
      <p className="small">
        Session total: {ai.session_total.calls} calls · {formatNumber(ai.session_total.tokens)} tokens · {ai.session_total.ai_iterations} AI iterations ·{' '}
        {formatNumber(ai.session_total.wall_seconds)} s · {formatNumber(ai.session_total.credits)} credits. Next step at most: {ai.estimated.calls} calls,{' '}
        {formatNumber(ai.estimated.tokens)} tokens, {formatNumber(ai.estimated.credits)} credits. Limits for the whole session: {ai.limits.calls_max} calls,{' '}
        {formatNumber(ai.limits.tokens_max)} tokens, {ai.limits.ai_iterations_max} iterations, {formatNumber(ai.limits.wall_seconds_max)} s.
        {ai.heuristic && <span className="chip">drafted by the offline heuristic</span>}
      </p>
    </>
  );
}

export function AuthoringSessionPage({ session_id }: { session_id: string }) {
  const session = useLoad(() => api<AuthoringSession>('GET', `/v1/authoring-sessions/${session_id}`), [session_id], {
    ms: SESSION_POLL_MS,
    until: (s) => s.status !== 'drafting',
  });
  const onStep = (next: AuthoringSession) => {
    session.setValue(next);
    if (next.status === 'drafting') session.reload();
  };
  const approve = useAction(async () => {
    onStep(await api<AuthoringSession>('POST', `/v1/authoring-sessions/${session_id}/approve`, { body: {}, idempotent: true }));
  });
  const s = session.value;
  const checkpoint = s?.checkpoint ?? null;
  return (
    <>
      <p className="crumbs">
        <Link to="/">Projects</Link> / {s && <Link to={`/projects/${s.project_id}`}>Project</Link>} /
      </p>
      <h1>Authoring session</h1>
      <ErrorBanner error={session.error} />
      {s && (
        <>
          <p aria-live="polite" data-testid="session-status">
            <Status value={s.status} /> {s.cap_reached && <span className="chip">cap_reached: AI preparation limit reached</span>}{' '}
            <span className="muted small">
              {s.checkpoint_count} checkpoint{s.checkpoint_count === 1 ? '' : 's'} · started {formatDate(s.created_at)}
            </span>
          </p>
          {s.status === 'drafting' && <p className="muted">A step is running (draft, validation, smoke run)… you can leave this page and come back.</p>}
          {s.status === 'expired' && <p className="muted">The session waited longer than its limit without an answer and has ended.</p>}
          {s.error && <ErrorBanner error={new Error(s.error.message)} />}
          {s.status === 'approved' && s.world_revision_id && (
            <div className="ok" role="status">
              <p>
                Approved and saved as a world revision. Nothing was estimated or run:{' '}
                <Link to={`/world-revisions/${s.world_revision_id}`}>open the world revision to estimate and run it</Link>.
              </p>
            </div>
          )}
          {checkpoint && (
            <>
              <h2>Checkpoint {checkpoint.number}</h2>
              <p className="muted small">after {checkpoint.reason === 'draft' ? 'the first draft' : checkpoint.reason === 'answers' ? 'your answers' : 'a revision'}</p>
              <Changes checkpoint={checkpoint} />
              {s.status === 'waiting' && (
                <>
                  <h3>Questions</h3>
                  <Questions session={s} onStep={onStep} />
                </>
              )}
              <CheckpointView checkpoint={checkpoint} />
              {s.status === 'waiting' && (
                <>
                  <h3>Revise</h3>
                  <Revise session={s} onStep={onStep} />
                  <h3>Approve</h3>
                  {s.accepts.includes('approve') ? (
                    <p className="muted">Approving saves this checkpoint's world as a world revision. It does not estimate or run it.</p>
                  ) : (
                    <p className="muted">The world does not validate yet: answer the questions or revise first.</p>
                  )}
                  <ErrorBanner error={approve.error} />
                  <Action variant="primary" onPress={() => void approve.run()} isDisabled={!s.accepts.includes('approve') || approve.pending}>
                    Approve this world
                  </Action>
                </>
              )}
            </>
          )}
        </>
      )}
    </>
  );
}
