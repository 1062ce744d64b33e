// The intake as cards beside its material, for the draft, a correction and a confirmed revision alike: the idea
// (problem, solution, users, setting, stage), the claims, who would use and pay for it (the business fields), and what
// is not known yet. A citation shows the sentence it quotes, with its line range in small type; choosing a card
// highlights its lines in the material, which scrolls in its own pane. On a phone the material and the cards are two tabs.
import { type ReactNode, useEffect, useRef, useState } from 'react';
import { client, unwrap } from '../client.ts';
import { Action, useLoad } from '../ui.tsx';

export type Citation = { source_id: string; line_start: number; line_end: number; quote: string };
export type Statement = { text: string; provenance: 'user_declared'; citations: Citation[] };
export type Claim = Statement & { topic: string };
export type Business = {
  proposed_user: Statement | null;
  buyer: Statement | null;
  budget_owner: Statement | null;
  current_alternative: Statement | null;
  dependencies: Statement[];
  value_hypothesis: Statement | null;
};
export type Spec = {
  problem: Statement | null;
  proposed_solution: Statement | null;
  intended_users: Statement[];
  care_setting: Statement | null;
  stage: { value: string | null; provenance: 'user_declared'; citations: Citation[] };
  claims: Claim[];
  business: Business;
  unknowns: Array<{ field: string; question: string }>;
  [key: string]: unknown;
};
export type SourceText = { id: string; name: string; lines: string[] };

const STAGES: Record<string, string> = {
  idea: 'Idea: nothing is built yet',
  prototype: 'Prototype: something runs, not yet in care',
  pilot: 'Pilot: used with real users in a limited trial',
  deployed: 'Deployed: in routine use',
};
/** A claim's topic in words (the contract's values stay in the document). */
export const TOPICS: Record<string, string> = {
  clinical: 'Patient care and outcomes',
  operational: 'How the service runs',
  economic: 'Costs and money',
  technical: 'The technology',
  other: 'Something else',
};

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
const BUSINESS_PLACES: Record<string, string> = {
  proposed_user: 'the proposed user',
  buyer: 'the buyer',
  budget_owner: 'the budget owner',
  current_alternative: 'the current alternative',
  dependencies: 'dependency',
  value_hypothesis: 'the value hypothesis',
};
export function placeName(path: string): string {
  const parts = path.split('/').filter(Boolean);
  const [head, index] = parts[0] === 'business' && parts[1] ? [parts[1], parts[2]] : parts;
  const name = (parts[0] === 'business' ? BUSINESS_PLACES[head ?? ''] : PLACES[head ?? '']) ?? 'a statement';
  return index !== undefined && /^\d+$/.test(index) ? `${name} ${Number(index) + 1}` : name;
}

/** The field an unknown names, as `business.buyer` (an AI may write `/business/buyer`). */
const fieldKey = (field: string) => field.replace(/^\//, '').replaceAll('/', '.');

const UNKNOWN_NAMES: Record<string, string> = {
  'care_pathway.status': 'Care pathway steps',
  'business.dependencies': 'Dependencies',
  'business.value_hypothesis': 'Value hypothesis',
};
/** A field named in an unknown (`business.buyer`) in words. */
export function unknownName(field: string): string {
  const key = fieldKey(field);
  if (UNKNOWN_NAMES[key]) return UNKNOWN_NAMES[key];
  const last = key.split('.').pop() ?? key;
  const labels: Record<string, string> = { ...PLACES, ...BUSINESS_PLACES };
  return (labels[last] ?? last.replaceAll('_', ' ')).replace(/^the /, '').replace(/^./, (c) => c.toUpperCase());
}

const said = (s: Statement | null | undefined) => !!s && s.text.trim() !== '';
/** The fields a card fills, whether the document holds them, and the question to list while it does not. */
const FIELDS: Array<[string, (s: Spec) => boolean, string]> = [
  ['problem', (s) => said(s.problem), 'What problem does the project address, and for whom?'],
  ['proposed_solution', (s) => said(s.proposed_solution), 'What is the proposed solution?'],
  ['intended_users', (s) => s.intended_users.some(said), 'Who will use it?'],
  ['care_setting', (s) => said(s.care_setting), 'In which care setting will it be used?'],
  ['stage', (s) => s.stage.value !== null, 'Is it an idea, a prototype, in a pilot, or deployed?'],
  ['claims', (s) => s.claims.length > 0, 'What does the project claim it will change, and by how much?'],
  ['business.proposed_user', (s) => said(s.business?.proposed_user), 'Who is the proposed day-to-day user?'],
  ['business.buyer', (s) => said(s.business?.buyer), 'Who would buy it?'],
  ['business.budget_owner', (s) => said(s.business?.budget_owner), 'Whose budget would pay for it?'],
  ['business.current_alternative', (s) => said(s.business?.current_alternative), 'What do people do today instead?'],
  ['business.dependencies', (s) => (s.business?.dependencies ?? []).some(said), 'What does it depend on (systems, data, staff, approvals)?'],
  ['business.value_hypothesis', (s) => said(s.business?.value_hypothesis), 'Why would the buyer find it worth paying for?'],
];
const FILLED = new Map(FIELDS.map(([field, filled]) => [field, filled]));

/** The unknowns still unknown: a field a card filled is no longer listed. */
export function openUnknowns(spec: Spec): Spec['unknowns'] {
  return spec.unknowns.filter((u) => !FILLED.get(fieldKey(u.field))?.(spec));
}

/** After a card's edit: a filled field leaves the unknowns; a field emptied again is listed with its question. */
export function reconcileUnknowns(spec: Spec): Spec {
  const open = openUnknowns(spec);
  const listed = new Set(open.map((u) => fieldKey(u.field)));
  const emptied = FIELDS.filter(([field, filled]) => !listed.has(field) && !filled(spec)).map(([field, , question]) => ({ field, question }));
  return { ...spec, unknowns: [...open, ...emptied] };
}

/** Each source's numbered lines (GET /v1/intake-sources/{id}/text answers `12| text`). */
export function useSourceTexts(source_ids: string[]) {
  return useLoad(
    () =>
      Promise.all(
        source_ids.map(async (id) => {
          const text = await client.GET('/v1/intake-sources/{source_id}/text', { path: { source_id: id } }).then(unwrap);
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

function SourcePane({ sources, highlighted, readOnly }: { sources: SourceText[]; highlighted: Set<string>; readOnly: boolean }) {
  const pane = useRef<HTMLDivElement>(null);
  const first = [...highlighted][0] ?? '';
  // the chosen card's first cited line is scrolled into the pane's view (the pane scrolls, not the page)
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when the chosen card's first cited line changes
  useEffect(() => {
    const box = pane.current;
    const line = box?.querySelector<HTMLElement>('li.cited');
    if (!box || !line) return;
    const top = line.getBoundingClientRect().top - box.getBoundingClientRect().top + box.scrollTop;
    if (top < box.scrollTop || top > box.scrollTop + box.clientHeight - line.offsetHeight) box.scrollTop = Math.max(0, top - 24);
  }, [first]);
  return (
    <div className="source-pane" data-testid="source-pane" ref={pane}>
      <h2>Your material</h2>
      {!readOnly && <p className="muted small">Select words here, then press “Cite the selected text” on a card.</p>}
      {sources.map((s) => (
        <figure key={s.id} className="source-text" data-source={s.id}>
          <figcaption>{s.name}</figcaption>
          <ol>
            {s.lines.map((line, i) => {
              const n = i + 1;
              const cited = highlighted.has(`${s.id}:${n}`);
              return (
                <li key={n} data-line={n} data-n={n} className={cited ? 'cited' : undefined} data-testid={cited ? 'cited-line' : undefined}>
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

const lineRange = (c: Citation) => (c.line_start === c.line_end ? `line ${c.line_start}` : `lines ${c.line_start}–${c.line_end}`);

/**
 * The sentence (or sentences) of the cited lines that hold the quote, the quote marked when it is only part of them:
 * a citation of one phrase in a long paragraph shows its sentence, not the paragraph.
 */
export function citedSentence(text: string, quote: string): { before: string; quote: string; after: string } {
  const flat = text.replace(/\s+/g, ' ').trim();
  const at = flat.indexOf(quote);
  if (at < 0 || quote === '') return { before: '', quote, after: '' };
  const segments = [...new Intl.Segmenter('en', { granularity: 'sentence' }).segment(flat)];
  const end = at + quote.length;
  const inside = segments.filter((s) => s.index < end && s.index + s.segment.length > at);
  const from = inside[0]?.index ?? at;
  const last = inside.at(-1);
  const to = last ? last.index + last.segment.length : end;
  return { before: flat.slice(from, at), quote, after: flat.slice(end, to).trimEnd() };
}

const flat = (text: string) => text.replace(/\s+/g, ' ').trim();

function CitationList(props: { citations: Citation[]; sources: SourceText[]; readOnly: boolean; statement?: string; onRemove(index: number): void }) {
  if (props.citations.length === 0) return null;
  return (
    <ul className="citations">
      {props.citations.map((c, i) => {
        const source = props.sources.find((s) => s.id === c.source_id);
        const sentence = citedSentence(source ? source.lines.slice(c.line_start - 1, c.line_end).join(' ') : c.quote, c.quote);
        const part = sentence.before !== '' || sentence.after !== '';
        // the card says the cited sentence word for word: its place is enough, the sentence is on the card already
        const same = props.statement !== undefined && flat(props.statement) === flat(`${sentence.before}${sentence.quote}${sentence.after}`);
        return (
          <li key={`${c.source_id}:${c.line_start}:${c.quote}`} data-testid="citation">
            {!same && (
              <blockquote>
                {sentence.before}
                {part ? <mark>{sentence.quote}</mark> : sentence.quote}
                {sentence.after}
              </blockquote>
            )}
            <span className="citation-place">
              <span className="muted small">
                {/* one source: its name is on the material pane already */}
                {same
                  ? props.sources.length === 1
                    ? 'Word for word, '
                    : `Word for word from ${source?.name ?? 'your material'}, `
                  : `${source?.name ?? 'your material'}, `}
                {lineRange(c)}
              </span>
              {!props.readOnly && (
                <button type="button" className="icon-button" aria-label="Remove citation" title="Remove this citation" onClick={() => props.onRemove(i)}>
                  ×
                </button>
              )}
            </span>
          </li>
        );
      })}
    </ul>
  );
}

/** Citing tools of the chosen card: the selected text, or line numbers typed from the keyboard. */
function CiteTools({ citations, sources, onCitations }: { citations: Citation[]; sources: SourceText[]; onCitations(next: Citation[]): void }) {
  const [lines, setLines] = useState('');
  const [note, setNote] = useState<string | null>(null);
  const cite = () => {
    const citation = selectedCitation();
    if (!citation) return setNote('Select words in your material first (or type line numbers below).');
    setNote(null);
    onCitations([...citations, citation]);
  };
  const citeLines = () => {
    const [from, to] = lines.split(/[-–]/).map((n) => Number(n.trim()));
    const source = sources[0];
    const last = to ?? from;
    if (!source || !from || !last || from > last || last > source.lines.length)
      return setNote(`Type a line or a range within 1–${source?.lines.length ?? 0}, for example 2 or 2–3.`);
    setNote(null);
    setLines('');
    const quote = source.lines
      .slice(from - 1, last)
      .join(' ')
      .replace(/\s+/g, ' ')
      .trim();
    onCitations([...citations, { source_id: source.id, line_start: from, line_end: last, quote }]);
  };
  return (
    <div className="cite-tools">
      <Action onPress={cite}>Cite the selected text</Action>
      <label className="cite-lines">
        <span>or lines</span>
        <input value={lines} onChange={(e) => setLines(e.target.value)} inputMode="numeric" size={4} />
      </label>
      <Action onPress={citeLines}>Cite these lines</Action>
      {note && <p className="field-problem">{note}</p>}
    </div>
  );
}

type Edit = {
  spec: Spec;
  set(next: Spec): void;
  sources: SourceText[];
  selected: string;
  select(key: string): void;
  /** the card whose citing tools are open (opened by "Cite your material" or "Cite more"), or null */
  citing: string | null;
  cite(key: string | null): void;
  problems: Map<string, string[]>;
  readOnly: boolean;
};

type CardProps = {
  edit: Edit;
  at: string;
  title: string;
  citations: Citation[];
  onCitations(next: Citation[]): void;
  children: ReactNode;
  onRemove?: () => void;
  more?: ReactNode;
  testid?: string;
  /** The card's own words: a citation whose sentence says exactly these is shown by its place only, not repeated. */
  text?: string;
};

const problemsAt = (problems: Map<string, string[]>, prefix: string) =>
  [...problems.entries()].filter(([path]) => path === prefix || path.startsWith(`${prefix}/`)).flatMap(([, messages]) => messages);

/** One statement of the intake: its words, the sentences it cites beside it, and (when editing) citing by selection or line number. */
function Card({ edit, at, title, citations, onCitations, children, onRemove, more, testid, text }: CardProps) {
  const selected = edit.selected === at;
  const cited = citations.length > 0;
  const citing = !edit.readOnly && edit.citing === at;
  return (
    <li className={`card${selected ? ' selected' : ''}`} data-testid={testid ?? 'intake-card'}>
      <div className="card-head">
        <h3>{title}</h3>
        {cited && (
          <button type="button" className="link-button" aria-pressed={selected} onClick={() => edit.select(at)}>
            {selected ? 'Showing its lines' : 'Show its lines'}
          </button>
        )}
        {!edit.readOnly && onRemove && (
          <button type="button" className="link-button" onClick={onRemove}>
            Remove
          </button>
        )}
      </div>
      {children}
      {problemsAt(edit.problems, `/${at}`).map((p) => (
        <p key={p} className="field-problem">
          {p}
        </p>
      ))}
      {/* its citations and its tools share one wrapping row: a citation that only names its place takes a few words */}
      <div className="card-tail">
        <CitationList
          citations={citations}
          sources={edit.sources}
          readOnly={edit.readOnly}
          statement={text}
          onRemove={(i) => onCitations(citations.filter((_, j) => j !== i))}
        />
        <div className="card-foot">
          {!cited && <span className="muted small">Not cited.</span>}
          {!edit.readOnly && !citing && (
            <button
              type="button"
              className="link-button"
              onClick={() => {
                edit.select(at);
                edit.cite(at);
              }}
            >
              {cited ? 'Cite more' : 'Cite your material'}
            </button>
          )}
          {!edit.readOnly && more}
        </div>
      </div>
      {citing && (
        <CiteTools
          citations={citations}
          sources={edit.sources}
          onCitations={(next) => {
            onCitations(next);
            edit.cite(null);
          }}
        />
      )}
    </li>
  );
}

const statement = (text = ''): Statement => ({ text, provenance: 'user_declared', citations: [] });

function TextEdit({ edit, label, value, onChange }: { edit: Edit; label: string; value: string; onChange(value: string): void }) {
  if (edit.readOnly) return <p className="card-said">{value}</p>;
  return (
    <label className="card-text">
      <span className="visually-hidden">{label}</span>
      <textarea value={value} rows={Math.min(5, Math.max(1, Math.ceil((value.length + 1) / 34)))} onChange={(e) => onChange(e.target.value)} />
    </label>
  );
}

/** A card for a field the material does not state: its question, and (when editing) the way to write it. */
function EmptyCard({ edit, title, question, onWrite, testid }: { edit: Edit; title: string; question: string; onWrite(): void; testid?: string }) {
  return (
    <li className="card empty-card" data-testid={testid ?? 'intake-card'}>
      <div className="card-head">
        <h3>{title}</h3>
        {!edit.readOnly && (
          <button type="button" className="link-button" onClick={onWrite}>
            Write it
          </button>
        )}
      </div>
      <p className="muted small">Not stated. {question}</p>
    </li>
  );
}

type One = { edit: Edit; at: string; title: string; value: Statement | null; onChange(next: Statement | null): void; question: string };

/** A field that is one statement or not stated (problem, solution, care setting, buyer, …). */
function StatementCard({ edit, at, title, value, onChange, question }: One) {
  if (!value) return <EmptyCard edit={edit} title={title} question={question} onWrite={() => onChange(statement())} />;
  return (
    <Card
      edit={edit}
      at={at}
      title={title}
      citations={value.citations}
      onCitations={(citations) => onChange({ ...value, citations })}
      onRemove={() => onChange(null)}
      text={value.text}
    >
      <TextEdit edit={edit} label={title} value={value.text} onChange={(text) => onChange({ ...value, text })} />
    </Card>
  );
}

type Many = { edit: Edit; at: string; title: string; one: string; items: Statement[]; onChange(next: Statement[]): void; question: string };

/** A field that is a list of statements (intended users, dependencies): a card each, and the way to add one. */
function ListCards({ edit, at, title, one, items, onChange, question }: Many) {
  const add = () => {
    onChange([...items, statement()]);
    edit.select(`${at}/${items.length}`);
  };
  if (items.length === 0) return <EmptyCard edit={edit} title={title} question={question} onWrite={add} />;
  return (
    <>
      {items.map((item, i) => (
        <Card
          // biome-ignore lint/suspicious/noArrayIndexKey: a list item's only identity is its place; its text changes as it is typed
          key={`${at}-${i}`}
          edit={edit}
          at={`${at}/${i}`}
          title={items.length > 1 ? `${one} ${i + 1}` : title}
          citations={item.citations}
          text={item.text}
          onCitations={(citations) => onChange(items.map((x, j) => (j === i ? { ...x, citations } : x)))}
          onRemove={() => onChange(items.filter((_, j) => j !== i))}
          more={
            i === items.length - 1 && (
              <button type="button" className="link-button" onClick={add}>
                Add another
              </button>
            )
          }
        >
          <TextEdit
            edit={edit}
            label={items.length > 1 ? `${one} ${i + 1}` : title}
            value={item.text}
            onChange={(text) => onChange(items.map((x, j) => (j === i ? { ...x, text } : x)))}
          />
        </Card>
      ))}
    </>
  );
}

function StageCard({ edit }: { edit: Edit }) {
  const stage = edit.spec.stage;
  const update = (next: Spec['stage']) => edit.set({ ...edit.spec, stage: next });
  return (
    <Card edit={edit} at="stage" title="Stage" citations={stage.citations} onCitations={(citations) => update({ ...stage, citations })}>
      {edit.readOnly ? (
        <p className="card-said">{stage.value ? STAGES[stage.value] : 'Not stated.'}</p>
      ) : (
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
      )}
    </Card>
  );
}

function ClaimCard({ edit, claims, i, more }: { edit: Edit; claims: Claim[]; i: number; more?: ReactNode }) {
  const c = claims[i]!;
  const setClaims = (next: Claim[]) => edit.set({ ...edit.spec, claims: next });
  const change = (patch: Partial<Claim>) => setClaims(claims.map((x, j) => (j === i ? { ...x, ...patch } : x)));
  return (
    <Card
      edit={edit}
      at={`claims/${i}`}
      testid="claim-card"
      title={`Claim ${i + 1}`}
      citations={c.citations}
      text={c.text}
      onCitations={(citations) => change({ citations })}
      onRemove={() => setClaims(claims.filter((_, j) => j !== i))}
      more={more}
    >
      <TextEdit edit={edit} label={`Claim ${i + 1}`} value={c.text} onChange={(text) => change({ text })} />
      {edit.readOnly ? (
        <p className="muted small">About: {TOPICS[c.topic] ?? TOPICS.other}</p>
      ) : (
        <label className="inline-label">
          <span>About</span>
          <select value={c.topic} onChange={(e) => change({ topic: e.target.value })}>
            {Object.entries(TOPICS).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
      )}
      {c.citations.length === 0 && <p className="field-problem">A claim must cite your material: cite it, or remove the claim.</p>}
    </Card>
  );
}

function ClaimCards({ edit }: { edit: Edit }) {
  const claims = edit.spec.claims;
  const [note, setNote] = useState<string | null>(null);
  const addFromSelection = () => {
    const citation = selectedCitation();
    if (!citation) return setNote('Select the words of the claim in your material first.');
    setNote(null);
    edit.set({ ...edit.spec, claims: [...claims, { text: citation.quote, topic: 'other', provenance: 'user_declared', citations: [citation] }] });
    edit.select(`claims/${claims.length}`);
  };
  const addButton = (
    <>
      <button type="button" className="link-button" onClick={addFromSelection}>
        Add a claim from the selected text
      </button>
      {note && <p className="field-problem">{note}</p>}
    </>
  );
  return (
    <>
      {claims.map((_, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a claim's only identity is its place; its text changes as it is typed
        <ClaimCard key={`claim-${i}`} edit={edit} claims={claims} i={i} more={i === claims.length - 1 ? addButton : undefined} />
      ))}
      {claims.length === 0 && (
        <li className="card empty-card" data-testid="intake-card">
          <div className="card-head">
            <h3>Claims</h3>
          </div>
          <p className="muted small">No claim was found: something your material says the idea achieves, citing its lines.</p>
          {!edit.readOnly && addButton}
        </li>
      )}
    </>
  );
}

/** The fields with a card, by the card's title: an unknown among them is named, its question is on its card. */
const CARD_TITLES: Record<string, string> = {
  problem: 'Problem',
  proposed_solution: 'Solution',
  intended_users: 'Intended users',
  care_setting: 'Care setting',
  stage: 'Stage',
  claims: 'Claims',
  'business.proposed_user': 'Proposed user',
  'business.buyer': 'Buyer',
  'business.budget_owner': 'Budget owner',
  'business.current_alternative': 'Current alternative',
  'business.dependencies': 'Dependencies',
  'business.value_hypothesis': 'Value hypothesis',
};

/** What is not known yet: the empty cards by name (their question is on the card), then every other question. */
function UnknownsCard({ edit }: { edit: Edit }) {
  const open = openUnknowns(edit.spec);
  const carded = [...new Set(open.map((u) => CARD_TITLES[fieldKey(u.field)]).filter((title) => title !== undefined))];
  const others = open.filter((u) => CARD_TITLES[fieldKey(u.field)] === undefined);
  const remove = (u: Spec['unknowns'][number]) => edit.set({ ...edit.spec, unknowns: edit.spec.unknowns.filter((x) => x !== u) });
  return (
    <div className="card unknowns-card" data-testid="intake-card">
      <div className="card-head">
        <h3>Not known yet</h3>
      </div>
      {open.length === 0 && <p className="muted small">Nothing is listed as unknown.</p>}
      {carded.length > 0 && (
        <p className="small">
          Empty cards:{' '}
          {carded.map((title, i) => (
            <span key={title}>
              <span data-testid="unknown">{title}</span>
              {i < carded.length - 1 ? ', ' : '.'}
            </span>
          ))}
        </p>
      )}
      {others.length > 0 && (
        <ul className="unknowns">
          {others.map((u) => (
            <li key={`${u.field}:${u.question}`} data-testid="unknown">
              <strong>{unknownName(u.field)}:</strong> {u.question}{' '}
              {!edit.readOnly && (
                <button type="button" className="link-button" onClick={() => remove(u)}>
                  Remove
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** The citations of the card at `at` (`problem`, `claims/0`, `business/buyer`, `business/dependencies/1`). */
function citationsAt(spec: Spec, at: string): Citation[] {
  let node: unknown = spec;
  for (const part of at.split('/')) node = node && typeof node === 'object' ? (node as Record<string, unknown>)[part] : undefined;
  const citations = (node as { citations?: Citation[] } | undefined)?.citations;
  return Array.isArray(citations) ? citations : [];
}

function highlightedLines(spec: Spec, selected: string): Set<string> {
  const out = new Set<string>();
  for (const c of citationsAt(spec, selected)) for (let n = c.line_start; n <= c.line_end; n++) out.add(`${c.source_id}:${n}`);
  return out;
}

const BUSINESS_ONE: Array<[keyof Omit<Business, 'dependencies'>, string, string]> = [
  ['proposed_user', 'Proposed user', 'Who is the proposed day-to-day user?'],
  ['buyer', 'Buyer', 'Who would buy it?'],
  ['budget_owner', 'Budget owner', 'Whose budget would pay for it?'],
  ['current_alternative', 'Current alternative', 'What do people do today instead?'],
];

function IdeaCards({ edit }: { edit: Edit }) {
  const { spec } = edit;
  const one = (field: 'problem' | 'proposed_solution' | 'care_setting', title: string, question: string) => (
    <StatementCard edit={edit} at={field} title={title} value={spec[field]} question={question} onChange={(next) => edit.set({ ...spec, [field]: next })} />
  );
  return (
    <>
      <li className="group-head">
        <h2>The idea</h2>
      </li>
      {one('problem', 'Problem', 'What problem does it address, and for whom?')}
      {one('proposed_solution', 'Solution', 'What is the proposed solution?')}
      <ListCards
        edit={edit}
        at="intended_users"
        title="Intended users"
        one="Intended user"
        items={spec.intended_users}
        question="Who will use it?"
        onChange={(next) => edit.set({ ...spec, intended_users: next })}
      />
      {one('care_setting', 'Care setting', 'Where will it be used?')}
    </>
  );
}

function BusinessCards({ edit }: { edit: Edit }) {
  const { spec } = edit;
  const business = spec.business;
  const setBusiness = (patch: Partial<Business>) => edit.set({ ...spec, business: { ...business, ...patch } });
  return (
    <>
      <li className="group-head">
        <h2>Who would use it and pay for it</h2>
      </li>
      {BUSINESS_ONE.map(([field, title, question]) => (
        <StatementCard
          key={field}
          edit={edit}
          at={`business/${field}`}
          title={title}
          value={business[field]}
          question={question}
          onChange={(next) => setBusiness({ [field]: next })}
        />
      ))}
      <ListCards
        edit={edit}
        at="business/dependencies"
        title="Dependencies"
        one="Dependency"
        items={business.dependencies}
        question="What does it depend on: systems, data, staff, approvals?"
        onChange={(next) => setBusiness({ dependencies: next })}
      />
      <StatementCard
        edit={edit}
        at="business/value_hypothesis"
        title="Value hypothesis"
        value={business.value_hypothesis}
        question="Why would the buyer find it worth paying for?"
        onChange={(next) => setBusiness({ value_hypothesis: next })}
      />
    </>
  );
}

type PanesProps = { spec: Spec; set?(next: Spec): void; sources: SourceText[]; problems?: Map<string, string[]> };

/** The material and the cards side by side (two tabs on a phone); without `set` the cards are read-only. */
export function IntakeCards({ spec, set, sources, problems }: PanesProps) {
  const [selected, select] = useState(spec.claims.length > 0 ? 'claims/0' : 'problem');
  const [citing, cite] = useState<string | null>(null);
  const [pane, setPane] = useState<'material' | 'intake'>('intake');
  const readOnly = set === undefined;
  const edit: Edit = {
    spec,
    set: (next) => set?.(reconcileUnknowns(next)),
    sources,
    selected,
    select,
    citing,
    cite,
    problems: problems ?? new Map(),
    readOnly,
  };
  const tab = (id: 'material' | 'intake', label: string) => (
    <button type="button" role="tab" id={`pane-${id}`} aria-selected={pane === id} aria-controls={`panel-${id}`} onClick={() => setPane(id)}>
      {label}
    </button>
  );
  return (
    <div className="intake-panes" data-pane={pane}>
      <div className="pane-tabs" role="tablist" aria-label="Material or intake">
        {tab('material', 'Your material')}
        {tab('intake', 'The intake')}
      </div>
      <div id="panel-material" className="pane-material">
        <SourcePane sources={sources} highlighted={highlightedLines(spec, selected)} readOnly={readOnly} />
      </div>
      <ul id="panel-intake" className="intake-cards pane-intake" aria-label="The intake">
        <IdeaCards edit={edit} />
        <ClaimCards edit={edit} />
      </ul>
      {/* the stage, a short card, under the material on a wide screen: the idea's cards then pair up two a row */}
      <ul className="intake-cards stage-card pane-intake" aria-label="Stage">
        <StageCard edit={edit} />
      </ul>
      {/* below the material and the idea, across the page: three cards a row on a wide screen */}
      <ul className="intake-cards business-cards pane-intake" aria-label="Who would use it and pay for it">
        <BusinessCards edit={edit} />
      </ul>
      <div className="pane-unknowns pane-intake">
        <UnknownsCard edit={edit} />
      </div>
    </div>
  );
}
