// Authoring sessions (beta; spec: Authoring sessions; Authoring session checkpoint; docs/authoring.md): start one from a
// confirmed intake (optionally from a sample world), answer its questions, read each checkpoint with what changed,
// revise values or ask for another AI iteration (refused once `cap_reached`), and approve into a world revision.
// Nothing is estimated or run by approving: the world revision page does that when asked.
import { useState } from 'react';
import { client, newOperationKey, unwrap } from '../client.ts';
import type { AuthoringSession, Checkpoint, IntakeRevisionListItem, ValueSource } from '../types.ts';
import { failureSentence } from '../../../clients/sdk/src/words/index.ts';
import { TechnicalDetails } from '../technical.tsx';
import {
  Action,
  Area,
  Choice,
  ErrorBanner,
  Field,
  Link,
  Status,
  formatDate,
  formatNumber,
  inSentence,
  navigate,
  plainText,
  useAction,
  useBalanceChangedOn,
  useLoad,
} from '../ui.tsx';
import { type WorldNames, isMissingSetting, problemSentence } from '../../../clients/sdk/src/words/index.ts';
import { stillWaitingWords, windowWords } from '../world/model.ts';

// the sample worlds of samples/worlds, each loaded only when chosen (as the world editor does)
const SAMPLES = import.meta.glob<{ default: unknown }>('../../../samples/worlds/*.json');
const sampleName = (path: string) => path.split('/').pop()!.replace('.json', '').replaceAll('_', ' ');
/** How often a drafting session is read again; each read is one GET (the page can be left and returned to). */
const SESSION_POLL_MS = 1000;
const SESSIONS_PAGE_LIMIT = 20;

const UNITS: Record<string, string> = {
  per_minute: 'per minute',
  per_hour: 'per hour',
  per_day: 'per day',
  count: 'number',
  count_per_arrival: 'per arrival',
  count_per_day: 'per day',
  entities: 'people waiting',
  fraction: 'share (0 to 1)',
  minutes: 'minutes',
  hours: 'hours',
  days: 'days',
};
export const unitWords = (unit: string) => UNITS[unit] ?? plainText(unit);
/**
 * A setting's value as a person reads it: a probability or a share as a percentage, a count as its number (a count of
 * beds is not "people"), anything else with its unit in words.
 */
export function valueWords(value: number, unit: string): string {
  if (unit === 'probability' || unit === 'fraction') return `${formatNumber(Number((value * 100).toPrecision(10)))}%`;
  if (unit === 'count') return formatNumber(value);
  return `${formatNumber(value)} ${unitWords(unit)}`;
}
const words = (name: string) => name.replaceAll('_', ' ').replaceAll('.', ': ');
const capital = (text: string) => text.replace(/^./, (c) => c.toUpperCase());

/** The names a person reads for a checkpoint's settings, measures and variants: the world's own labels and descriptions. */
function names(checkpoint: Checkpoint) {
  const spec = (checkpoint.world.spec ?? {}) as { settings?: Record<string, { description?: string }>; measured?: Array<{ id: string; label?: string }> };
  const fromQuestions = new Map(checkpoint.questions.map((q) => [q.slot, q.label ?? questionLabel(q.text)?.label]));
  const setting = (id: string) => capital(spec.settings?.[id]?.description ?? fromQuestions.get(id) ?? words(id));
  const measure = (id: string) => capital(spec.measured?.find((m) => m.id === id)?.label ?? words(id));
  const variant = (id: string) => checkpoint.world.variants.find((v) => v.id === id)?.label ?? words(id);
  return { setting, measure, variant };
}
/** "What is the mean time per patient (minutes)? …" → the label and unit it was made from, to say it in words. */
export function questionLabel(text: string): { label: string; unit: string } | null {
  const match = /^What is the (.+?) \(([a-z_]+)\)\?/.exec(text);
  return match ? { label: match[1]!, unit: match[2]! } : null;
}

/** The form that starts a session: from a confirmed intake revision (the latest by default), optionally from a sample world. */
function StartSession({ project_id, confirmed }: { project_id: string; confirmed: IntakeRevisionListItem[] }) {
  const [revision, setRevision] = useState('');
  const [sample, setSample] = useState('');
  const start = useAction(async () => {
    const starting_world = sample ? (await SAMPLES[sample]!()).default : undefined;
    const body: Record<string, unknown> = {};
    if (revision) body.intake_revision = Number(revision);
    if (starting_world) body.starting_world = starting_world;
    const created = await client
      .POST('/v1/projects/{project_id}/authoring-sessions', { path: { project_id }, body, idempotencyKey: newOperationKey() })
      .then(unwrap);
    navigate(`/authoring-sessions/${created.id}`);
  });
  return (
    <>
      <form
        className="inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          void start.run();
        }}
      >
        <Choice
          label="Intake revision"
          value={revision}
          onChange={setRevision}
          options={[
            { value: '', label: `the latest (revision ${confirmed[0]!.revision})` },
            ...confirmed.map((i) => ({ value: String(i.revision), label: `revision ${i.revision} · ${formatDate(i.created_at)}` })),
          ]}
        />
        <Choice
          label="Starting world (optional)"
          value={sample}
          onChange={setSample}
          options={[
            { value: '', label: 'none: a simple one-queue model' },
            ...Object.keys(SAMPLES).map((path) => ({ value: path, label: `sample: ${sampleName(path)}` })),
          ]}
        />
        <Action type="submit" variant="primary" isDisabled={start.pending}>
          {start.pending ? 'Starting…' : 'Start an authoring session'}
        </Action>
      </form>
      <ErrorBanner error={start.error} />
    </>
  );
}

function SessionCards({ sessions }: { sessions: AuthoringSession[] }) {
  if (sessions.length === 0) return null;
  return (
    <ul className="cards">
      {sessions.map((s) => (
        <li key={s.id}>
          <Link to={`/authoring-sessions/${s.id}`}>Session of {formatDate(s.created_at)}</Link>
          <span>
            <Status value={s.status} /> {s.cap_reached && <span className="chip">AI limit reached</span>}
          </span>
          <span className="muted small">
            {s.checkpoint_count} checkpoint{s.checkpoint_count === 1 ? '' : 's'}
          </span>
        </li>
      ))}
    </ul>
  );
}

/** The project page's section: the project's sessions and the form that starts one. */
export function AuthoringSessions({ project_id }: { project_id: string }) {
  const sessions = useLoad(
    () => client.GET('/v1/projects/{project_id}/authoring-sessions', { path: { project_id }, query: { limit: SESSIONS_PAGE_LIMIT } }).then(unwrap),
    [project_id],
  );
  const intakes = useLoad(() => client.GET('/v1/projects/{project_id}/intakes', { path: { project_id }, query: { limit: 50 } }).then(unwrap), [project_id]);
  const confirmed = intakes.value?.data ?? [];
  return (
    <section aria-labelledby="authoring-heading">
      <h2 id="authoring-heading">Authoring sessions (beta)</h2>
      <p className="muted">
        Prepare a world with the service: it drafts from your confirmed intake, asks for every number it cannot source, and shows each checkpoint. Nothing runs
        until you approve and then run the world yourself.
      </p>
      <ErrorBanner error={sessions.error ?? intakes.error} />
      {confirmed.length === 0 ? (
        <p className="muted">Confirm an intake first: a session starts from a confirmed intake revision.</p>
      ) : (
        <StartSession project_id={project_id} confirmed={confirmed} />
      )}
      {sessions.value && <SessionCards sessions={sessions.value.data} />}
    </section>
  );
}

function sourceText(source: ValueSource): string {
  switch (source.kind) {
    case 'intake_line':
      return `your material, line${source.line_start === source.line_end ? ` ${source.line_start}` : `s ${source.line_start}–${source.line_end}`}: “${source.quote}”`;
    case 'answer':
      return `your answer (checkpoint ${source.answered_at_checkpoint})${source.note ? `: ${source.note}` : ''}`;
    case 'reference':
      return source.suggested_by_ai ? `suggested by the AI, not verified: ${source.reference}` : `reference: ${source.reference}`;
    case 'assumption':
      return `assumption: ${source.rationale}`;
    default:
      return 'a source the app cannot show';
  }
}

type Names = ReturnType<typeof names>;

/** A sentence of the service in words: a generated question by its label and unit, a missing setting as "not set yet". */
function sentence(text: string, n?: Names): string {
  const measure = /^(-?[\d.]+) ([a-z_]+)$/.exec(text);
  if (measure) return valueWords(Number(measure[1]), measure[2]!);
  // "Answer this question: …" (and the older "answer q1_servers: …" of checkpoints stored before it)
  const answer = /^(?:answer \S+|Answer this question): /.exec(text);
  const asked = questionLabel(answer ? text.slice(answer[0].length) : text);
  if (asked) return `${answer ? 'Answer: ' : ''}${capital(asked.label)} (${unitWords(asked.unit)})`;
  const noWindow = /^measure (\S+) states no time window; (.*)$/.exec(text);
  if (noWindow && n) return `${n.measure(noWindow[1]!)} has no time window of its own; ${plainText(noWindow[2]!)}`;
  const missing = /refers to setting '(.+?)', which does not exist/.exec(text);
  if (missing && n) return `${n.setting(missing[1]!.replaceAll(' ', '_'))} is not set yet: answer its question.`;
  return plainText(text);
}

/** A model problem: a setting still to be given as its question, else the step by its name and what to change, in words. */
function problemLine(checkpoint: Checkpoint, problem: { pointer: string; message: string }, n: Names): string {
  if (isMissingSetting(problem.message)) return sentence(problem.message, n);
  return problemSentence(checkpoint.world.spec as WorldNames, problem) ?? sentence(problem.message, n);
}

/** A value as a person reads it: numbers with separators, units in words, anything structured as "changed". */
const show = (value: unknown) =>
  value === null || value === undefined
    ? '—'
    : typeof value === 'number'
      ? formatNumber(value)
      : typeof value === 'boolean'
        ? value
          ? 'yes'
          : 'no'
        : typeof value === 'object'
          ? 'changed'
          : sentence(String(value));

/** A measure's coverage in the quick test run: as it is, as it became, as it was. */
const COVERAGE: Record<string, { now: string; became: string; was: string }> = {
  covered: {
    now: 'is measured for every variant in the quick test run',
    became: 'is now measured for every variant in the quick test run',
    was: 'it was measured for every variant',
  },
  partial: {
    now: 'is measured for some variants only in the quick test run',
    became: 'is now measured for some variants only in the quick test run',
    was: 'it was measured for some variants only',
  },
  missing: { now: 'has no value yet from the quick test run', became: 'now has no value from the quick test run', was: 'it had no value' },
};
const creditWords = (credits: number) => `${formatNumber(credits)} ${credits === 1 ? 'credit' : 'credits'}`;
/** A full stop unless the text already ends a sentence (a question keeps its question mark). */
const ended = (text: string) => (/[.?!]$/.test(text) ? text : `${text}.`);
/** Settings first, then what the variants change, whether the model is complete, what is measured, the questions. */
const CHANGE_ORDER = ['/world/settings/', '/world/variants/', '/validation/', '/world/measured/', '/questions/', '/ai/'];
const changeRank = (path: string) => {
  const rank = CHANGE_ORDER.findIndex((prefix) => path.startsWith(prefix));
  return rank === -1 ? CHANGE_ORDER.length : rank;
};

/** A value set, changed or removed, as a sentence: "Clinicians available at once changed from 2 people to 3 people." */
function valueChange(subject: string, before: unknown, after: unknown): string {
  if (before === null || before === undefined) return `${subject} is set to ${show(after)}.`;
  if (after === null || after === undefined) return `${subject} is no longer set (it was ${show(before)}).`;
  return `${subject} changed from ${show(before)} to ${show(after)}.`;
}

/** One change since the previous checkpoint (a JSON path with its value before and after) as a plain sentence. */
function changeSentence(change: Checkpoint['changes_since_previous'][number], n: Names, checkpoint: Checkpoint): string {
  const parts = change.path.split('/').filter(Boolean);
  const { before, after } = change;
  if (parts[0] === 'world' && parts[1] === 'settings' && parts[2]) return valueChange(n.setting(parts[2]), before, after);
  if (parts[0] === 'world' && parts[1] === 'variants' && parts[2] && parts[4])
    return valueChange(`${n.variant(parts[2])}: ${inSentence(n.setting(parts[4]))}`, before, after);
  if (parts[0] === 'world' && parts[1] === 'measured' && parts[2]) {
    const key = parts[2];
    const measure = n.measure(/^\d+$/.test(key) ? (checkpoint.world.measured[Number(key)]?.measure_id ?? key) : key);
    const now = COVERAGE[String(after)];
    const was = COVERAGE[String(before)];
    if (!now) return `${measure} is no longer measured.`;
    return was ? `${measure} ${now.became}; before, ${was.was}.` : `${measure} ${now.now}.`;
  }
  if (parts[0] === 'questions') {
    if (after === null || after === undefined) return `Answered: ${ended(show(before))}`;
    return ended(`${before === null || before === undefined ? 'New question' : 'Question reworded'}: ${show(after)}`);
  }
  if (parts[0] === 'validation') {
    if (after !== true) return 'The model is not complete yet.';
    // a model the model check still warns about runs, but is not called complete (see “Is the model complete?”)
    return (checkpoint.model_check ?? []).length > 0
      ? 'The model now runs, but it is not complete yet: see “Is the model complete?” below.'
      : 'The model is now complete: it can be run.';
  }
  if (parts[0] === 'ai') {
    if (after === true) return 'The AI preparation limit is reached: no further AI iteration.';
    return before === true ? 'The AI preparation limit is no longer reached.' : 'The AI preparation limit is not reached.';
  }
  return 'Another part of the model changed.';
}

function Changes({ checkpoint, n }: { checkpoint: Checkpoint; n: Names }) {
  return (
    <div>
      <h3>{checkpoint.number === 1 ? 'What the first checkpoint sets' : `What changed since checkpoint ${checkpoint.number - 1}`}</h3>
      {checkpoint.changes_since_previous.length === 0 ? (
        <p className="muted">{checkpoint.number === 1 ? 'Nothing is set yet.' : 'Nothing changed.'}</p>
      ) : (
        <ul className="changes">
          {checkpoint.changes_since_previous
            .toSorted((a, b) => changeRank(a.path) - changeRank(b.path))
            .map((c) => (
              <li key={c.path} data-testid="change">
                {changeSentence(c, n, checkpoint)}
              </li>
            ))}
        </ul>
      )}
    </div>
  );
}

/** A question in words: from its label and unit when the service's sentence was built from them, else its own text. */
function questionWords(q: Checkpoint['questions'][number], n: Names): { label: string; unit: string } {
  const parsed = questionLabel(q.text);
  if (parsed) return { label: capital(parsed.label), unit: unitWords(parsed.unit) };
  return { label: plainText(q.text), unit: unitWords(q.unit) || n.setting(q.slot) };
}

function Questions({ session, onStep, n }: { session: AuthoringSession; onStep(next: AuthoringSession): void; n: Names }) {
  const questions = session.checkpoint?.questions ?? [];
  const [values, setValues] = useState<Record<string, string>>({});
  const [notes, setNotes] = useState<Record<string, string>>({});
  const send = useAction(async () => {
    const answers = questions
      .filter((q) => (values[q.id] ?? '').trim() !== '')
      .map((q) => ({ question_id: q.id, value: Number(values[q.id]), ...(notes[q.id]?.trim() ? { note: notes[q.id]!.trim() } : {}) }));
    const next = await client
      .POST('/v1/authoring-sessions/{session_id}/answers', { path: { session_id: session.id }, body: { answers }, idempotencyKey: newOperationKey() })
      .then(unwrap);
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
      <p className="muted">Nothing is guessed: give each number you know and where it comes from. A number left empty stays open.</p>
      <ul className="questions">
        {questions.map((q) => {
          const said = questionWords(q, n);
          return (
            <li key={q.id} data-testid="question">
              <p>
                <strong>{said.label}</strong> <span className="chip">{said.unit}</span>
              </p>
              {q.unsourced_proposal && (
                <p className="muted small">
                  The AI proposed {formatNumber(q.unsourced_proposal.value)} without a source (a hypothesis); it is not used unless you give it.
                </p>
              )}
              <div className="inline-form">
                <Field
                  label={`Answer (${said.unit})`}
                  value={values[q.id] ?? ''}
                  onChange={(v) => setValues((old) => ({ ...old, [q.id]: v }))}
                  inputMode="text"
                  name={`answer-${q.slot}`}
                />
                <Field
                  label="Where the number comes from (optional)"
                  value={notes[q.id] ?? ''}
                  onChange={(v) => setNotes((old) => ({ ...old, [q.id]: v }))}
                  name={`note-${q.slot}`}
                />
              </div>
            </li>
          );
        })}
      </ul>
      {invalid && <p className="field-problem">Each answer is a number.</p>}
      <ErrorBanner error={send.error} />
      <Action type="submit" variant="primary" isDisabled={!canAnswer || send.pending || invalid || none}>
        {send.pending ? 'Sending…' : 'Send answers'}
      </Action>
    </form>
  );
}

/** The values a revision can change: every setting, then every variant's change, each labelled with its value now. */
function revisableSlots(checkpoint: Checkpoint, n: Names): Array<{ slot: string; label: string }> {
  return [
    ...Object.entries(checkpoint.world.settings).map(([setting, v]) => ({
      slot: setting,
      label: `${n.setting(setting)} (now ${valueWords(v.value, v.unit)})`,
    })),
    ...checkpoint.world.variants.flatMap((variant) =>
      variant.changes.map((c) => ({
        slot: `${variant.id}.${c.setting}`,
        label: `${variant.label}: ${n.setting(c.setting)} (now ${valueWords(c.value, c.unit)})`,
      })),
    ),
  ];
}

/** Whether another AI iteration can be asked for, and the box for its instructions when it can. */
function IterationRequest({ ai, instructions, onChange }: { ai: Checkpoint['ai']; instructions: string; onChange(value: string): void }) {
  if (ai.cap_reached)
    return (
      <p className="warning" role="note">
        The session reached its AI preparation limit: values can still be changed and the model approved, but no further AI iteration can be asked for.
      </p>
    );
  if (ai.heuristic)
    return (
      <p className="muted small" data-testid="no-instructions">
        Written instructions need a hosted AI model. This session runs on the built-in method (no AI), which reads only the numbers your intake cites: change a
        value above instead.
      </p>
    );
  return <Area label="Ask for another AI iteration (optional instructions)" value={instructions} onChange={onChange} rows={3} />;
}

function Revise({ session, onStep, n }: { session: AuthoringSession; onStep(next: AuthoringSession): void; n: Names }) {
  const checkpoint = session.checkpoint!;
  const slots = revisableSlots(checkpoint, n);
  const [slot, setSlot] = useState('');
  const [value, setValue] = useState('');
  const [reference, setReference] = useState('');
  const [instructions, setInstructions] = useState('');
  const revise = useAction(async () => {
    const body: Record<string, unknown> = {};
    if (slot && value.trim() !== '') body.values = [{ slot, value: Number(value), ...(reference.trim() ? { reference: reference.trim() } : {}) }];
    if (instructions.trim()) body.instructions = instructions.trim();
    const next = await client
      .POST('/v1/authoring-sessions/{session_id}/revise', { path: { session_id: session.id }, body, idempotencyKey: newOperationKey() })
      .then(unwrap);
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
          <Choice
            label="Value to change"
            value={slot}
            onChange={setSlot}
            options={[{ value: '', label: 'choose…' }, ...slots.map((s) => ({ value: s.slot, label: s.label }))]}
          />
          <Field label="New value" value={value} onChange={setValue} />
          <Field label="Reference for it (optional)" value={reference} onChange={setReference} />
        </div>
      ) : (
        <p className="muted small">No value is set yet: answer the questions first.</p>
      )}
      <IterationRequest ai={checkpoint.ai} instructions={instructions} onChange={setInstructions} />
      <ErrorBanner error={revise.error} />
      <Action type="submit" isDisabled={!canRevise || revise.pending || (!hasValue && !instructions.trim())}>
        {revise.pending ? 'Revising…' : 'Revise'}
      </Action>
    </form>
  );
}

function Settings({ checkpoint, n }: { checkpoint: Checkpoint; n: Names }) {
  if (Object.keys(checkpoint.world.settings).length === 0)
    return <p className="muted">No value is set yet: nothing is guessed; each number comes from your intake, a reference or your answer.</p>;
  return (
    <div className="table-wrap">
      <table>
        <thead>
          <tr>
            <th>Setting</th>
            <th>Value</th>
            <th>Where it comes from</th>
          </tr>
        </thead>
        <tbody>
          {Object.entries(checkpoint.world.settings).map(([name, s]) => (
            <tr key={name} data-testid="setting">
              <td>{n.setting(name)}</td>
              <td>{valueWords(s.value, s.unit)}</td>
              <td className="small">{plainText(sourceText(s.source))}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** What a measure counts and per what, in words: "in hours, per patient", "a count per arrival". */
const MEASURED_AS: Record<string, string> = {
  count: 'a count over the simulated period',
  count_per_arrival: 'a count per arrival',
  count_per_day: 'a count per day',
  fraction: 'the share of the time available',
  entities: 'the number waiting, on average',
};
const measuredAs = (m: Checkpoint['world']['measured'][number]) =>
  MEASURED_AS[m.unit] ?? `in ${unitWords(m.unit)}${m.denominator === 'entity' ? ', per patient' : ''}`;

/** Beside a time or a queue, what the trial run left unfinished at its end; nothing beside a count or a share of busy time. */
const stillWaiting = (m: Checkpoint['world']['measured'][number]) => stillWaitingWords(m.kind, m.reported_beside.still_waiting_at_end_mean);

function Measured({ checkpoint, n }: { checkpoint: Checkpoint; n: Names }) {
  return (
    <ul>
      {checkpoint.world.measured.map((m) => (
        <li key={m.measure_id} data-testid="measured">
          <strong>{n.measure(m.measure_id)}</strong> <span data-testid="coverage">{COVERAGE[m.coverage]?.now ?? plainText(m.coverage)}</span>;{' '}
          <span className="small">
            {measuredAs(m)}, {windowWords(m.time_window)}.
          </span>
          {stillWaiting(m) && (
            <span className="small" data-testid="still-waiting">
              {' '}
              {stillWaiting(m)}
            </span>
          )}
        </li>
      ))}
    </ul>
  );
}

function CheckpointView({ checkpoint, n }: { checkpoint: Checkpoint; n: Names }) {
  const ai = checkpoint.ai;
  return (
    <>
      <h3>Settings</h3>
      <Settings checkpoint={checkpoint} n={n} />
      <h3>What is compared</h3>
      <ul>
        {checkpoint.world.variants.map((v) => (
          <li key={v.id}>
            <strong>{v.label}</strong> <span className="chip">{v.role === 'baseline' ? 'today' : plainText(v.role)}</span>
            {v.changes.length === 0 ? (
              <span className="muted small"> changes nothing</span>
            ) : (
              <ul>
                {v.changes.map((c) => (
                  <li key={c.setting}>
                    {n.setting(c.setting)}: {c.baseline === null ? 'not set' : valueWords(c.baseline, c.unit)} → {valueWords(c.value, c.unit)}{' '}
                    <span className="muted small">({plainText(sourceText(c.source))})</span>
                  </li>
                ))}
              </ul>
            )}
          </li>
        ))}
      </ul>
      <h3>What is measured</h3>
      <Measured checkpoint={checkpoint} n={n} />
      <h3>Is the model complete?</h3>
      {checkpoint.validation.valid && (checkpoint.model_check ?? []).length > 0 ? (
        <>
          <p>Not yet: the model runs, but the comparison would not tell you much until these are settled.</p>
          <ul>
            {(checkpoint.model_check ?? []).map((warning) => (
              <li key={`${warning.kind}:${warning.pointer}:${warning.message}`} data-testid="model-check">
                {warning.message}
              </li>
            ))}
          </ul>
        </>
      ) : checkpoint.validation.valid ? (
        <p>Yes: the model is complete and can be approved.</p>
      ) : (
        <ul>
          {checkpoint.validation.problems.map((p) => (
            <li key={`${p.pointer}:${p.message}`} data-testid="model-problem">
              {problemLine(checkpoint, p, n)}
            </li>
          ))}
        </ul>
      )}
      <h3>Next steps</h3>
      <ul>
        {checkpoint.next_steps.map((step) => (
          <li key={`${step.kind}:${step.message}`} data-testid="next-step">
            {sentence(step.message, n)} <span className="chip">{step.source === 'rule' ? 'rule' : 'AI hypothesis'}</span>
          </li>
        ))}
      </ul>
      <h3>AI use</h3>
      <p className="small">
        So far: {creditWords(ai.session_total.credits)}, {ai.session_total.ai_iterations} of {ai.limits.ai_iterations_max} AI iterations. The next step costs at
        most {creditWords(ai.estimated.credits)}, charged at actual use.
        {ai.heuristic && ' Drafted by the built-in method (no AI).'}
      </p>
    </>
  );
}

function CheckpointTechnical({ session, checkpoint }: { session: AuthoringSession; checkpoint: Checkpoint | null }) {
  const ai = checkpoint?.ai;
  return (
    <TechnicalDetails>
      <p>
        Session {session.id} · status {session.status}
        {session.world_revision_id ? ` · world revision ${session.world_revision_id}` : ''}
      </p>
      {checkpoint && ai && (
        <>
          <p>
            Session total: {ai.session_total.calls} calls, {ai.session_total.tokens} tokens, {ai.session_total.wall_seconds} s. Next step at most:{' '}
            {ai.estimated.calls} calls, {ai.estimated.tokens} tokens. Limits: {ai.limits.calls_max} calls, {ai.limits.tokens_max} tokens,{' '}
            {ai.limits.wall_seconds_max} s{ai.limit_reached ? `; limit reached: ${ai.limit_reached}` : ''}.
          </p>
          {checkpoint.changes_since_previous
            .toSorted((a, b) => changeRank(a.path) - changeRank(b.path))
            .map((c) => (
              <p key={c.path}>
                <code>{c.path}</code> {JSON.stringify(c.before)} → {JSON.stringify(c.after)}
              </p>
            ))}
          {checkpoint.questions.map((q) => (
            <p key={q.id}>
              question {q.id} (slot {q.slot}, {q.unit}): {q.text}
            </p>
          ))}
          {checkpoint.validation.problems.map((p) => (
            <p key={`${p.pointer}:${p.message}`}>
              <code>{p.pointer}</code> {p.message}
            </p>
          ))}
          {checkpoint.next_steps.map((step) => (
            <p key={`${step.kind}:${step.message}`}>
              next step {step.kind} ({step.source}){step.tool ? ` with tool ${step.tool}` : ''}
            </p>
          ))}
        </>
      )}
    </TechnicalDetails>
  );
}

const SESSION_STATUS: Record<string, string> = {
  drafting: 'working on a step',
  waiting: 'waiting for you',
  approved: 'approved',
  expired: 'ended (no answer in time)',
  failed: 'stopped by a failure',
};

/** The session, read again while a step is drafting; `onStep` takes the answer of an answer, revise or approve. */
function useAuthoringSession(session_id: string) {
  const session = useLoad(() => client.GET('/v1/authoring-sessions/{session_id}', { path: { session_id } }).then(unwrap), [session_id], {
    ms: SESSION_POLL_MS,
    until: (s) => s.status !== 'drafting',
  });
  const onStep = (next: AuthoringSession) => {
    session.setValue(next);
    if (next.status === 'drafting') session.reload();
  };
  // an AI step is charged when it ends: the header's balance follows
  useBalanceChangedOn(session.value?.status);
  return { session, onStep };
}

/** Where the session stands: its status, and what that means for the person (running, ended, failed, approved). */
function SessionState({ s }: { s: AuthoringSession }) {
  return (
    <>
      <p aria-live="polite" data-testid="session-status">
        <span className={`status status-${s.status}`}>{SESSION_STATUS[s.status] ?? plainText(s.status)}</span>{' '}
        {s.cap_reached && <span className="chip">AI preparation limit reached</span>}{' '}
        <span className="muted small">
          {s.checkpoint_count} checkpoint{s.checkpoint_count === 1 ? '' : 's'} · started {formatDate(s.created_at)}
        </span>
      </p>
      {s.status === 'drafting' && <p className="muted">A step is running (drafting, checking, a quick test run)… you can leave this page and come back.</p>}
      {s.status === 'expired' && <p className="muted">The session waited longer than its limit without an answer and has ended.</p>}
      {s.failure && <ErrorBanner error={new Error(failureSentence(s.failure.code) ?? plainText(s.failure.message))} />}
      {s.status === 'approved' && s.world_revision_id && (
        <div className="ok" role="status">
          <p>
            Approved and saved as a model of your care pathway. Nothing was estimated or run:{' '}
            <Link to={`/world-revisions/${s.world_revision_id}`}>open the world revision to estimate and run it</Link>.
          </p>
        </div>
      )}
    </>
  );
}

function Approve({ session, onStep }: { session: AuthoringSession; onStep(next: AuthoringSession): void }) {
  const approve = useAction(async () => {
    onStep(
      await client
        .POST('/v1/authoring-sessions/{session_id}/approve', { path: { session_id: session.id }, body: {}, idempotencyKey: newOperationKey() })
        .then(unwrap),
    );
  });
  const approvable = session.accepts.includes('approve');
  return (
    <>
      <h3>Approve</h3>
      {approvable && (session.checkpoint?.model_check ?? []).length > 0 ? (
        <p className="muted">
          Approving saves this checkpoint’s model as it is, with what “Is the model complete?” names still standing. It does not estimate or run it, and costs
          nothing.
        </p>
      ) : approvable ? (
        <p className="muted">Approving saves this checkpoint’s model. It does not estimate or run it, and costs nothing.</p>
      ) : (
        <p className="muted">The model is not complete yet: answer the questions or revise first.</p>
      )}
      <ErrorBanner error={approve.error} />
      <Action variant="primary" onPress={() => void approve.run()} isDisabled={!approvable || approve.pending}>
        Approve this world
      </Action>
    </>
  );
}

/** The latest checkpoint, with the questions, revision and approval while the session waits for the person. */
function CheckpointSection({ s, checkpoint, onStep }: { s: AuthoringSession; checkpoint: Checkpoint; onStep(next: AuthoringSession): void }) {
  const n = names(checkpoint);
  const waiting = s.status === 'waiting';
  return (
    <>
      <h2>Checkpoint {checkpoint.number}</h2>
      <p className="muted small">after {checkpoint.reason === 'draft' ? 'the first draft' : checkpoint.reason === 'answers' ? 'your answers' : 'a revision'}</p>
      <Changes checkpoint={checkpoint} n={n} />
      {waiting && (
        <>
          <h3>Questions</h3>
          <Questions session={s} onStep={onStep} n={n} />
        </>
      )}
      <CheckpointView checkpoint={checkpoint} n={n} />
      {waiting && (
        <>
          <h3>Revise</h3>
          <Revise session={s} onStep={onStep} n={n} />
          <Approve session={s} onStep={onStep} />
        </>
      )}
    </>
  );
}

export function AuthoringSessionPage({ session_id }: { session_id: string }) {
  const { session, onStep } = useAuthoringSession(session_id);
  const s = session.value;
  const checkpoint = s?.checkpoint ?? null;
  return (
    <>
      <h1>Authoring session</h1>
      <p className="muted">
        The service prepares a model of your care pathway with you: it asks for every number it cannot source, and nothing runs until you approve and start a
        run yourself.
      </p>
      <ErrorBanner error={session.error} />
      {s && (
        <>
          <SessionState s={s} />
          {checkpoint && <CheckpointSection s={s} checkpoint={checkpoint} onStep={onStep} />}
          <CheckpointTechnical session={s} checkpoint={checkpoint} />
        </>
      )}
    </>
  );
}
