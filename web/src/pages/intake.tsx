// The intake, corrected beside its sources: the source text with line numbers on one side, the drafted intake
// as readable cards (problem, solution, users, setting, stage, claims, unknowns) on the other. Choosing a card highlights
// the lines it cites and shows the cited text beside it; a citation is added by selecting text in the source (or by
// line numbers, from the keyboard). The form built from the published schema and the JSON stay as advanced tabs.
import { type ReactNode, useState } from 'react';
import { Tab, TabList, TabPanel, Tabs } from 'react-aria-components';
import { ApiError, type Draft, type DroppedCitation, type IntakeRevision, type Plan, TERMINAL_DRAFT, api } from '../api.ts';
import { type JsonSchema, SchemaField, problemsByPath } from '../schemaForm.tsx';
import { TechnicalDetails } from '../technical.tsx';
import { Action, Area, ErrorBanner, Link, formatDate, formatNumber, navigate, useAction, useBalanceChangedOn, useLoad } from '../ui.tsx';

type Citation = { source_id: string; line_start: number; line_end: number; quote: string };
type Statement = { text: string; provenance: 'user_declared'; citations: Citation[] };
type Claim = Statement & { topic: string };
type Spec = {
  problem: Statement | null;
  proposed_solution: Statement | null;
  intended_users: Statement[];
  care_setting: Statement | null;
  stage: { value: string | null; provenance: 'user_declared'; citations: Citation[] };
  claims: Claim[];
  unknowns: Array<{ field: string; question: string }>;
  [key: string]: unknown;
};
type SourceText = { id: string; name: string; lines: string[] };

const STAGES: Record<string, string> = {
  idea: 'Idea: nothing is built yet',
  prototype: 'Prototype: something runs, not yet in care',
  pilot: 'Pilot: used with real users in a limited trial',
  deployed: 'Deployed: in routine use',
};
const TOPICS = ['clinical', 'operational', 'economic', 'technical', 'other'];

/** A plain name for a place in the intake (`/claims/2` → "claim 3"), for the dropped-citation sentences. */
const PLACES: Record<string, string> = {
  problem: 'the problem',
  proposed_solution: 'the solution',
  intended_users: 'intended user',
  care_setting: 'the care setting',
  stage: 'the stage',
  claims: 'claim',
  evidence_offered: 'evidence',
  risks: 'risk',
  business: 'the business facts',
  care_pathway: 'the care pathway',
};
export function placeName(path: string): string {
  const [head, index] = path.split('/').filter(Boolean);
  const name = PLACES[head ?? ''] ?? 'a statement';
  return index !== undefined && /^\d+$/.test(index) ? `${name} ${Number(index) + 1}` : name;
}

/** A field named in an unknown (`business.buyer`) in words. */
export function unknownName(field: string): string {
  const last = field.split('.').pop() ?? field;
  const labels: Record<string, string> = { ...PLACES, proposed_user: 'the proposed user', buyer: 'the buyer', budget_owner: 'the budget owner' };
  return (labels[last] ?? last.replaceAll('_', ' ')).replace(/^the /, '').replace(/^./, (c) => c.toUpperCase());
}

const DROP_REASONS: Record<string, (d: DroppedCitation, name: string) => string> = {
  quote_not_in_lines: (d, name) =>
    `the quoted words are not in line${d.line_start === d.line_end ? ` ${d.line_start}` : `s ${d.line_start}–${d.line_end}`} of ${name}`,
  lines_out_of_range: (d, name) => `${name} has no line${d.line_start === d.line_end ? ` ${d.line_start}` : `s ${d.line_start}–${d.line_end}`}`,
  source_not_processed: (_d, name) => `${name} was not accepted (it was excluded or could not be read), so it cannot be cited`,
  source_not_in_project: () => 'it cites material that is not part of this project',
  line_range_invalid: () => 'its last line comes before its first line',
};

export function DroppedCitations({ dropped, sources }: { dropped: DroppedCitation[]; sources: SourceText[] }) {
  if (dropped.length === 0) return <p className="muted">Every citation was checked: each quoted passage is word for word in the lines it cites.</p>;
  const name = (id: string) => sources.find((s) => s.id === id)?.name ?? 'the cited material';
  return (
    <div className="warning" role="note" data-testid="dropped-citations">
      <p>
        {dropped.length} citation{dropped.length === 1 ? ' was' : 's were'} removed because the material does not say it:
      </p>
      <ul>
        {dropped.map((d) => (
          <li key={`${d.path}:${d.source_id}:${d.line_start}`}>
            A citation of {placeName(d.path)}: {(DROP_REASONS[d.reason] ?? (() => 'it could not be checked'))(d, name(d.source_id))}.
          </li>
        ))}
      </ul>
    </div>
  );
}

/** Each source's numbered lines (GET /v1/intake-sources/{id}/text answers `12| text`). */
function useSourceTexts(source_ids: string[]) {
  return useLoad(
    () =>
      Promise.all(
        source_ids.map(async (id) => {
          const text = await api<{ id: string; name: string; numbered_text: string }>('GET', `/v1/intake-sources/${id}/text`);
          const lines = text.numbered_text === '' ? [] : text.numbered_text.split('\n').map((line) => line.replace(/^\d+\| ?/, ''));
          return { id: text.id, name: text.name, lines };
        }),
      ),
    [source_ids.join(',')],
  );
}

/** The citation the reader's selection in the source pane makes, or null (the quote is the selected words). */
function selectedCitation(): Citation | null {
  const selection = window.getSelection();
  if (!selection || selection.isCollapsed || selection.rangeCount === 0) return null;
  const range = selection.getRangeAt(0);
  const lineOf = (node: Node) => (node instanceof Element ? node : node.parentElement)?.closest<HTMLElement>('[data-line]');
  const start = lineOf(range.startContainer);
  const end = lineOf(range.endContainer);
  const source = start?.closest<HTMLElement>('[data-source]')?.dataset.source;
  if (!start || !end || !source || end.closest<HTMLElement>('[data-source]')?.dataset.source !== source) return null;
  const quote = selection.toString().replace(/\s+/g, ' ').trim();
  if (!quote) return null;
  return { source_id: source, line_start: Number(start.dataset.line), line_end: Number(end.dataset.line), quote };
}

function SourcePane({ sources, highlighted }: { sources: SourceText[]; highlighted: Set<string> }) {
  return (
    <div className="source-pane" data-testid="source-pane">
      <h2>Your material</h2>
      <p className="muted small">Select words here, then press “Cite the selected text” on a card.</p>
      {sources.map((s) => (
        <figure key={s.id} className="source-text" data-source={s.id}>
          <figcaption>{s.name}</figcaption>
          <ol>
            {s.lines.map((line, i) => {
              const n = i + 1;
              return (
                <li
                  key={n}
                  data-line={n}
                  data-n={n}
                  className={highlighted.has(`${s.id}:${n}`) ? 'cited' : undefined}
                  data-testid={highlighted.has(`${s.id}:${n}`) ? 'cited-line' : undefined}
                >
                  {line || '\u00a0'}
                </li>
              );
            })}
          </ol>
        </figure>
      ))}
    </div>
  );
}

function CitationList({ citations, sources, onRemove }: { citations: Citation[]; sources: SourceText[]; onRemove(index: number): void }) {
  if (citations.length === 0) return <p className="muted small">No citation: you stated this yourself.</p>;
  return (
    <ul className="citations">
      {citations.map((c, i) => {
        const source = sources.find((s) => s.id === c.source_id);
        const where = `${source?.name ?? 'material'}, line${c.line_start === c.line_end ? ` ${c.line_start}` : `s ${c.line_start}–${c.line_end}`}`;
        const text = source ? source.lines.slice(c.line_start - 1, c.line_end).join(' ') : c.quote;
        return (
          <li key={`${c.source_id}:${c.line_start}:${c.quote}`} data-testid="citation">
            <blockquote>{highlightQuote(text, c.quote)}</blockquote>
            <span className="muted small">{where}</span>
            <button type="button" className="link-button" onClick={() => onRemove(i)}>
              Remove citation
            </button>
          </li>
        );
      })}
    </ul>
  );
}

function highlightQuote(line: string, quote: string): ReactNode {
  const at = line.indexOf(quote);
  if (at < 0 || quote.length === line.length) return line;
  return (
    <>
      {line.slice(0, at)}
      <mark>{quote}</mark>
      {line.slice(at + quote.length)}
    </>
  );
}

type CardProps = {
  title: string;
  selected: boolean;
  onSelect(): void;
  citations: Citation[];
  sources: SourceText[];
  onCitations(next: Citation[]): void;
  problems: string[];
  children: ReactNode;
  onRemove?: () => void;
  testid?: string;
};

/** One statement of the intake: its words, the lines it cites shown beside it, and citing by selection or line number. */
function Card(props: CardProps) {
  const [lines, setLines] = useState('');
  const [note, setNote] = useState<string | null>(null);
  const cite = () => {
    const citation = selectedCitation();
    if (!citation) return setNote('Select words in your material first (or type line numbers below).');
    setNote(null);
    props.onCitations([...props.citations, citation]);
  };
  const citeLines = () => {
    const [from, to] = lines.split(/[-–]/).map((n) => Number(n.trim()));
    const source = props.sources[0];
    const last = to ?? from;
    if (!source || !from || !last || from > last || last > source.lines.length)
      return setNote(`Type a line or a range within 1–${source?.lines.length ?? 0}, for example 2 or 2–3.`);
    setNote(null);
    setLines('');
    props.onCitations([
      ...props.citations,
      {
        source_id: source.id,
        line_start: from,
        line_end: last,
        quote: source.lines
          .slice(from - 1, last)
          .join(' ')
          .replace(/\s+/g, ' ')
          .trim(),
      },
    ]);
  };
  return (
    <li className={`card${props.selected ? ' selected' : ''}`} data-testid={props.testid ?? 'intake-card'}>
      <div className="card-head">
        <h3>{props.title}</h3>
        <button type="button" className="link-button" aria-pressed={props.selected} onClick={props.onSelect}>
          {props.selected ? 'Showing its lines' : 'Show its lines'}
        </button>
        {props.onRemove && (
          <button type="button" className="link-button" onClick={props.onRemove}>
            Remove
          </button>
        )}
      </div>
      {props.children}
      {props.problems.map((p) => (
        <p key={p} className="field-problem">
          {p}
        </p>
      ))}
      <CitationList citations={props.citations} sources={props.sources} onRemove={(i) => props.onCitations(props.citations.filter((_, j) => j !== i))} />
      {props.selected && (
        <div className="cite-tools">
          <Action onPress={cite}>Cite the selected text</Action>
          <label className="cite-lines">
            <span>or lines</span>
            <input value={lines} onChange={(e) => setLines(e.target.value)} inputMode="numeric" size={6} />
          </label>
          <Action onPress={citeLines}>Cite these lines</Action>
          {note && <p className="field-problem">{note}</p>}
        </div>
      )}
    </li>
  );
}

const statement = (text = ''): Statement => ({ text, provenance: 'user_declared', citations: [] });

function TextEdit({ label, value, onChange }: { label: string; value: string; onChange(value: string): void }) {
  return (
    <label className="card-text">
      <span className="visually-hidden">{label}</span>
      <textarea value={value} rows={Math.min(8, Math.max(2, Math.ceil(value.length / 34)))} onChange={(e) => onChange(e.target.value)} />
    </label>
  );
}

type Edit = { spec: Spec; set(next: Spec): void; sources: SourceText[]; selected: string; select(key: string): void; problems: Map<string, string[]> };

const problemsAt = (problems: Map<string, string[]>, prefix: string) =>
  [...problems.entries()].filter(([path]) => path === prefix || path.startsWith(`${prefix}/`)).flatMap(([, messages]) => messages);

/** problem, proposed solution, care setting: a statement or "not stated". */
function OptionalCard({ edit, field, title }: { edit: Edit; field: 'problem' | 'proposed_solution' | 'care_setting'; title: string }) {
  const value = edit.spec[field];
  if (!value)
    return (
      <li className="card" data-testid="intake-card">
        <div className="card-head">
          <h3>{title}</h3>
        </div>
        <p className="muted">Not stated in your material.</p>
        <Action onPress={() => edit.set({ ...edit.spec, [field]: statement() })}>Write it</Action>
      </li>
    );
  const update = (next: Statement | null) => edit.set({ ...edit.spec, [field]: next });
  return (
    <Card
      title={title}
      selected={edit.selected === field}
      onSelect={() => edit.select(field)}
      citations={value.citations}
      sources={edit.sources}
      onCitations={(citations) => update({ ...value, citations })}
      problems={problemsAt(edit.problems, `/${field}`)}
      onRemove={() => update(null)}
    >
      <TextEdit label={title} value={value.text} onChange={(text) => update({ ...value, text })} />
    </Card>
  );
}

function UsersCards({ edit }: { edit: Edit }) {
  const users = edit.spec.intended_users;
  const setUsers = (next: Statement[]) => edit.set({ ...edit.spec, intended_users: next });
  return (
    <>
      {users.map((u, i) => (
        <Card
          // biome-ignore lint/suspicious/noArrayIndexKey: a list item's only identity is its place; its text changes as it is typed
          key={`user-${i}`}
          title={users.length > 1 ? `Intended user ${i + 1}` : 'Intended users'}
          selected={edit.selected === `user-${i}`}
          onSelect={() => edit.select(`user-${i}`)}
          citations={u.citations}
          sources={edit.sources}
          onCitations={(citations) => setUsers(users.map((x, j) => (j === i ? { ...x, citations } : x)))}
          problems={problemsAt(edit.problems, `/intended_users/${i}`)}
          onRemove={() => setUsers(users.filter((_, j) => j !== i))}
        >
          <TextEdit label={`Intended user ${i + 1}`} value={u.text} onChange={(text) => setUsers(users.map((x, j) => (j === i ? { ...x, text } : x)))} />
        </Card>
      ))}
      {users.length === 0 && (
        <li className="card" data-testid="intake-card">
          <div className="card-head">
            <h3>Intended users</h3>
          </div>
          <p className="muted">Not stated in your material.</p>
        </li>
      )}
      <li className="card-add">
        <Action onPress={() => setUsers([...users, statement()])}>Add an intended user</Action>
      </li>
    </>
  );
}

function StageCard({ edit }: { edit: Edit }) {
  const stage = edit.spec.stage;
  const update = (next: Spec['stage']) => edit.set({ ...edit.spec, stage: next });
  return (
    <Card
      title="Stage"
      selected={edit.selected === 'stage'}
      onSelect={() => edit.select('stage')}
      citations={stage.citations}
      sources={edit.sources}
      onCitations={(citations) => update({ ...stage, citations })}
      problems={problemsAt(edit.problems, '/stage')}
    >
      <label className="card-text">
        <span className="visually-hidden">Stage</span>
        <select value={stage.value ?? ''} onChange={(e) => update({ ...stage, value: e.target.value || null })}>
          <option value="">Not stated</option>
          {Object.entries(STAGES).map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </label>
    </Card>
  );
}

function ClaimCards({ edit }: { edit: Edit }) {
  const claims = edit.spec.claims;
  const setClaims = (next: Claim[]) => edit.set({ ...edit.spec, claims: next });
  const [note, setNote] = useState<string | null>(null);
  const addFromSelection = () => {
    const citation = selectedCitation();
    if (!citation) return setNote('Select the words of the claim in your material first.');
    setNote(null);
    setClaims([...claims, { text: citation.quote, topic: 'other', provenance: 'user_declared', citations: [citation] }]);
    edit.select(`claim-${claims.length}`);
  };
  return (
    <>
      {claims.map((c, i) => (
        <Card
          // biome-ignore lint/suspicious/noArrayIndexKey: a list item's only identity is its place; its text changes as it is typed
          key={`claim-${i}`}
          testid="claim-card"
          title={`Claim ${i + 1}`}
          selected={edit.selected === `claim-${i}`}
          onSelect={() => edit.select(`claim-${i}`)}
          citations={c.citations}
          sources={edit.sources}
          onCitations={(citations) => setClaims(claims.map((x, j) => (j === i ? { ...x, citations } : x)))}
          problems={problemsAt(edit.problems, `/claims/${i}`)}
          onRemove={() => setClaims(claims.filter((_, j) => j !== i))}
        >
          <TextEdit label={`Claim ${i + 1}`} value={c.text} onChange={(text) => setClaims(claims.map((x, j) => (j === i ? { ...x, text } : x)))} />
          <label className="inline-label">
            <span>About</span>
            <select value={c.topic} onChange={(e) => setClaims(claims.map((x, j) => (j === i ? { ...x, topic: e.target.value } : x)))}>
              {TOPICS.map((t) => (
                <option key={t} value={t}>
                  {t}
                </option>
              ))}
            </select>
          </label>
          {c.citations.length === 0 && <p className="field-problem">A claim must cite your material: cite it, or remove the claim.</p>}
        </Card>
      ))}
      {claims.length === 0 && (
        <li className="card" data-testid="intake-card">
          <div className="card-head">
            <h3>Claims</h3>
          </div>
          <p className="muted">No claim was found. A claim is something your material says the idea achieves; each one cites its lines.</p>
        </li>
      )}
      <li className="card-add">
        <Action onPress={addFromSelection}>Add a claim from the selected text</Action>
        {note && <p className="field-problem">{note}</p>}
      </li>
    </>
  );
}

function UnknownsCard({ edit }: { edit: Edit }) {
  const unknowns = edit.spec.unknowns;
  return (
    <li className="card wide" data-testid="intake-card">
      <div className="card-head">
        <h3>Not known yet</h3>
      </div>
      {unknowns.length === 0 ? (
        <p className="muted">Nothing is listed as unknown.</p>
      ) : (
        <ul className="unknowns">
          {unknowns.map((u, i) => (
            <li key={`${u.field}:${u.question}`}>
              <strong>{unknownName(u.field)}:</strong> {u.question}{' '}
              <button type="button" className="link-button" onClick={() => edit.set({ ...edit.spec, unknowns: unknowns.filter((_, j) => j !== i) })}>
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
    </li>
  );
}

/** Which source lines the chosen card cites. */
function highlightedLines(spec: Spec, selected: string): Set<string> {
  const [kind, index] = selected.split('-');
  const cited: Citation[] =
    kind === 'user'
      ? (spec.intended_users[Number(index)]?.citations ?? [])
      : kind === 'claim'
        ? (spec.claims[Number(index)]?.citations ?? [])
        : kind === 'stage'
          ? spec.stage.citations
          : ((spec[kind as 'problem'] as Statement | null)?.citations ?? []);
  const out = new Set<string>();
  for (const c of cited) for (let n = c.line_start; n <= c.line_end; n++) out.add(`${c.source_id}:${n}`);
  return out;
}

function IntakeCards({ spec, set, sources, problems }: { spec: Spec; set(next: Spec): void; sources: SourceText[]; problems: Map<string, string[]> }) {
  const firstCited = spec.claims.length > 0 ? 'claim-0' : 'problem';
  const [selected, select] = useState(firstCited);
  const edit: Edit = { spec, set, sources, selected, select, problems };
  return (
    <div className="intake-panes">
      <SourcePane sources={sources} highlighted={highlightedLines(spec, selected)} />
      <ul className="intake-cards" aria-label="The intake">
        <OptionalCard edit={edit} field="problem" title="Problem" />
        <OptionalCard edit={edit} field="proposed_solution" title="Solution" />
        <UsersCards edit={edit} />
        <OptionalCard edit={edit} field="care_setting" title="Care setting" />
        <StageCard edit={edit} />
        <ClaimCards edit={edit} />
        <UnknownsCard edit={edit} />
      </ul>
    </div>
  );
}

/** The IntakeSpec's published JSON Schema: the advanced form is built from it, so a field added to the contract appears there. */
function useIntakeSchema() {
  return useLoad(() => api<JsonSchema>('GET', '/v1/schemas/IntakeSpec'), []);
}

const DRAFT_STATUS: Record<string, string> = {
  queued: 'Waiting to start drafting…',
  running: 'Drafting your intake from your material…',
  succeeded: 'Drafted. Check each card against your material, correct what is wrong, then confirm.',
  failed: 'Drafting failed.',
  canceled: 'Drafting was canceled.',
};

function drafter(d: Draft): string {
  if (!d.usage) return '';
  const who = d.usage.provider === 'offline' ? 'the built-in drafting method (no AI)' : `AI (${d.usage.provider})`;
  return `Drafted by ${who}; ${formatNumber(d.usage.credits_charged)} credit${d.usage.credits_charged === 1 ? '' : 's'} charged.`;
}

/** One document, three views: the cards and the form edit `spec`; the JSON view edits text, applied whenever it parses. */
function useIntakeDocument(initial: unknown) {
  const [spec, setSpec] = useState<unknown>(initial);
  const [jsonText, setJsonText] = useState<string | null>(null);
  const [parseError, setParseError] = useState<string | null>(null);
  const text = jsonText ?? JSON.stringify(spec, null, 2);
  const editJson = (next: string) => {
    setJsonText(next);
    try {
      setSpec(JSON.parse(next));
      setParseError(null);
    } catch (error) {
      setParseError(`The text is not valid JSON: ${(error as Error).message}`);
    }
  };
  const edit = (next: unknown) => {
    setSpec(next);
    setJsonText(null);
    setParseError(null);
  };
  return { spec, text, parseError, edit, editJson };
}

type IntakeDocument = ReturnType<typeof useIntakeDocument>;

type ViewsProps = { doc: IntakeDocument; schema: JsonSchema | undefined; sources: SourceText[]; problems: Map<string, string[]> };

function IntakeViews({ doc, schema, sources, problems }: ViewsProps) {
  return (
    <Tabs>
      <TabList aria-label="Views of the intake">
        <Tab id="cards">Beside your material</Tab>
        <Tab id="form">Form (advanced)</Tab>
        <Tab id="json">JSON (advanced)</Tab>
      </TabList>
      <TabPanel id="cards">
        {doc.parseError ? (
          <p className="muted">The JSON view holds text that does not parse; fix it there first.</p>
        ) : (
          <IntakeCards spec={doc.spec as Spec} set={doc.edit} sources={sources} problems={problems} />
        )}
      </TabPanel>
      <TabPanel id="form">
        {doc.parseError ? (
          <p className="muted">The JSON view holds text that does not parse; fix it there to edit with the form.</p>
        ) : schema ? (
          <form className="schema-form" aria-label="Intake form" onSubmit={(event) => event.preventDefault()}>
            <SchemaField schema={schema} value={doc.spec} onChange={doc.edit} label="Intake" path="" problems={problems} />
          </form>
        ) : (
          <p aria-busy="true">Loading the form…</p>
        )}
      </TabPanel>
      <TabPanel id="json">
        <Area label="The intake as JSON" className="code" value={doc.text} onChange={doc.editJson} rows={24} spellCheck={false} />
      </TabPanel>
    </Tabs>
  );
}

type EditorProps = { d: Draft; project_id: string; draft_id: string; sources: ReturnType<typeof useSourceTexts>; onConfirmed(revision: IntakeRevision): void };

function DraftEditor({ d, project_id, draft_id, sources, onConfirmed }: EditorProps) {
  const schema = useIntakeSchema();
  const doc = useIntakeDocument(d.spec);
  const confirm = useAction(async () => {
    if (doc.parseError) return;
    onConfirmed(await api<IntakeRevision>('POST', `/v1/projects/${project_id}/intakes`, { body: { spec: doc.spec, draft_id }, idempotent: true }));
  });
  const problems = problemsByPath(confirm.error instanceof ApiError ? confirm.error.envelope.details : null);
  const loaded = sources.value ?? [];
  return (
    <>
      <DroppedCitations dropped={d.dropped_citations} sources={loaded} />
      {d.dropped_claims.length > 0 && (
        <div className="warning" role="note">
          <p>
            {d.dropped_claims.length} claim{d.dropped_claims.length === 1 ? ' was' : 's were'} removed because none of its citations could be found in your
            material.
          </p>
        </div>
      )}
      <ErrorBanner error={schema.error ?? sources.error} />
      <IntakeViews doc={doc} schema={schema.value} sources={loaded} problems={problems} />
      {doc.parseError && (
        <div className="error" role="alert">
          <p className="error-message">{doc.parseError}</p>
        </div>
      )}
      <ErrorBanner error={confirm.error} />
      <p className="muted">
        Confirming records every statement as what you declared; nothing is verified yet. The plan comes next, with its cost before anything is charged.
      </p>
      <Action variant="primary" onPress={() => void confirm.run()} isDisabled={confirm.pending || doc.parseError !== null}>
        Confirm this intake
      </Action>
    </>
  );
}

/** While drafting runs: what is reserved, and the way to stop it. */
function DraftRunning({ d, onCanceled }: { d: Draft; onCanceled(): void }) {
  const cancel = useAction(async () => {
    await api('POST', `/v1/intake-drafts/${d.id}/cancel`);
    onCanceled();
  });
  return (
    <>
      <p className="muted">Up to {formatNumber(d.credits_reserved)} credits are reserved, charged at actual use. You can leave this page and come back.</p>
      <Action onPress={() => void cancel.run()}>Cancel drafting</Action>
      <ErrorBanner error={cancel.error} />
    </>
  );
}

/** After confirming: the revision, and the step to the plan. */
function Confirmed({ project_id, confirmed, sources }: { project_id: string; confirmed: IntakeRevision; sources: SourceText[] }) {
  const plan = useAction(async () => {
    const created = await api<Plan>('POST', `/v1/projects/${project_id}/evaluation-plans`, { body: {}, idempotent: true });
    navigate(`/projects/${project_id}/plans/${created.id}`);
  });
  return (
    <>
      <h2>Confirmed as revision {confirmed.revision}</h2>
      <p>Next: the plan says which evaluations fit your idea, why, and what each would cost in credits. Planning itself costs nothing.</p>
      <DroppedCitations dropped={confirmed.dropped_citations} sources={sources} />
      <ErrorBanner error={plan.error} />
      <Action variant="primary" onPress={() => void plan.run()} isDisabled={plan.pending}>
        Plan the evaluations
      </Action>
    </>
  );
}

function DraftTechnical({ d, confirmed }: { d: Draft; confirmed: IntakeRevision | null }) {
  return (
    <TechnicalDetails>
      <p>
        Draft {d.id} · status {d.status} · created {formatDate(d.created_at)} · sources {d.source_ids.join(', ')}
        {d.skipped_source_ids.length > 0 && ` · skipped ${d.skipped_source_ids.join(', ')}`}
      </p>
      {d.usage && (
        <p>
          {d.usage.provider} {d.usage.model} · {d.usage.input_tokens} input and {d.usage.output_tokens} output tokens · {d.credits_reserved} credits reserved
        </p>
      )}
      {[...d.dropped_citations, ...d.dropped_claims].map((x) => (
        <p key={`${x.path}:${x.message}`}>
          <code>{x.path}</code> {x.reason}: {x.message}
        </p>
      ))}
      {confirmed && <p>Intake revision {confirmed.id}</p>}
    </TechnicalDetails>
  );
}

export function DraftPage({ project_id, draft_id }: { project_id: string; draft_id: string }) {
  const draft = useLoad(() => api<Draft>('GET', `/v1/intake-drafts/${draft_id}`), [draft_id], { ms: 1000, until: (d) => TERMINAL_DRAFT.includes(d.status) });
  const [confirmed, setConfirmed] = useState<IntakeRevision | null>(null);
  const sources = useSourceTexts(draft.value?.status === 'succeeded' ? draft.value.source_ids : []);
  const d = draft.value;
  // drafting with the AI is charged when it ends: the header's balance follows
  useBalanceChangedOn(d?.status);
  return (
    <>
      <p className="crumbs">
        <Link to="/">Projects</Link> / <Link to={`/projects/${project_id}`}>Project</Link> /
      </p>
      <h1>Your intake</h1>
      <ErrorBanner error={draft.error} />
      {d && (
        <>
          <p aria-live="polite" data-testid="draft-status">
            {DRAFT_STATUS[d.status] ?? d.status} <span className="muted small">{drafter(d)}</span>
          </p>
          {!TERMINAL_DRAFT.includes(d.status) && <DraftRunning d={d} onCanceled={draft.reload} />}
          {d.error && <ErrorBanner error={new ApiError(0, { code: d.error.code, message: d.error.message, details: {}, request_id: '' })} />}
          {d.status === 'succeeded' && !confirmed && (
            <DraftEditor d={d} project_id={project_id} draft_id={draft_id} sources={sources} onConfirmed={setConfirmed} />
          )}
          {confirmed && <Confirmed project_id={project_id} confirmed={confirmed} sources={sources.value ?? []} />}
          <DraftTechnical d={d} confirmed={confirmed} />
        </>
      )}
    </>
  );
}
