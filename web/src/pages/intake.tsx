// The intake, corrected beside its sources: the source text with line numbers on one side, the intake as readable cards
// (the idea, claims, who would use and pay for it, what is not known) on the other (intakeCards.tsx). Three pages use
// them: the draft (corrected, then confirmed once), a confirmed revision (read-only, with "Correct it"), and the
// correction of a revision (confirmed as the next revision). The form built from the published schema and the JSON
// stay as advanced tabs of the same document.
import { type ReactNode, useState } from 'react';
import { Tab, TabList, TabPanel, Tabs } from 'react-aria-components';
import { CrucibleApiError, client, envelopeOf, newOperationKey, unwrap, unwrapAs } from '../client.ts';
import { TERMINAL_DRAFT, type Draft, type DroppedCitation, type IntakeRevision, type IntakeRevisionList, type IntakeSpec } from '../types.ts';
import { type JsonSchema, SchemaField, problemsByPath } from '../schemaForm.tsx';
import { TechnicalDetails } from '../technical.tsx';
import { Action, Area, ErrorBanner, Link, formatDate, formatNumber, navigate, useAction, useBalanceChangedOn, useLoad } from '../ui.tsx';
import { IntakeCards, openUnknowns, placeName, type SourceText, type Spec, useSourceTexts } from './intakeCards.tsx';

export { placeName, unknownName } from './intakeCards.tsx';

/** The address of a project's confirmed intake revision: its own page (read-only, with "Correct it"). */
export const intakeRevisionPath = (project_id: string, revision: number) => `/projects/${project_id}/intakes/${revision}`;

const DROP_REASONS: Record<string, (d: DroppedCitation, name: string) => string> = {
  quote_not_in_lines: (d, name) =>
    `the quoted words are not in line${d.line_start === d.line_end ? ` ${d.line_start}` : `s ${d.line_start}–${d.line_end}`} of ${name}`,
  lines_out_of_range: (d, name) => `${name} has no line${d.line_start === d.line_end ? ` ${d.line_start}` : `s ${d.line_start}–${d.line_end}`}`,
  source_not_processed: (_d, name) => `${name} was not accepted (it was excluded or could not be read), so it cannot be cited`,
  source_not_in_project: () => 'it cites material that is not part of this project',
  line_range_invalid: () => 'its last line comes before its first line',
};

export function DroppedCitations({ dropped, sources }: { dropped: DroppedCitation[]; sources: SourceText[] }) {
  if (dropped.length === 0) return <p className="muted small">Every citation was checked: each quoted passage is word for word in the lines it cites.</p>;
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

/** The IntakeSpec's published JSON Schema: the advanced form is built from it, so a field added to the contract appears there. */
function useIntakeSchema() {
  return useLoad(() => client.GET('/v1/schemas/{name}', { path: { name: 'IntakeSpec' } }).then((r) => unwrapAs<JsonSchema>(r)), []);
}

const DRAFT_STATUS: Record<string, string> = {
  queued: 'Waiting to start drafting…',
  drafting: 'Being drafted from your material…',
  succeeded: 'Drafted. Check each card against your material, correct what is wrong, then confirm.',
  failed: 'Drafting failed.',
  canceled: 'Drafting was canceled.',
};

function drafter(d: Draft): string {
  if (!d.usage) return '';
  const who = d.usage.provider === 'offline' ? 'the built-in method, without AI' : `AI (${d.usage.provider})`;
  // how much the drafter found, in one line ("Found 7 of 8 parts in your material …"), when it says
  const summary = (d.spec as { drafted_by?: { summary?: string } } | null)?.drafted_by?.summary;
  const charged = `Drafted by ${who}; ${formatNumber(d.usage.credits_charged)} credit${d.usage.credits_charged === 1 ? '' : 's'} charged.`;
  // a citation that failed the check is listed under the status; when none did, one clause says so
  const checked = d.status === 'succeeded' && d.dropped_citations.length === 0 ? ' Every quote was checked against its lines.' : '';
  return `${summary ? `${summary} ${charged}` : charged}${checked}`;
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

/** The document as confirmed: a field that holds a value is not also listed as unknown. */
function confirmable(spec: unknown): unknown {
  try {
    return { ...(spec as Spec), unknowns: openUnknowns(spec as Spec) };
  } catch {
    return spec; // not shaped like an intake: the service says what to fix
  }
}

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

type EditorProps = {
  initial: unknown;
  project_id: string;
  draft_id?: string;
  sources: ReturnType<typeof useSourceTexts>;
  onConfirmed(revision: IntakeRevision): void;
  /** the draft was confirmed meanwhile (another tab or person): the page shows that revision instead */
  onConflict?: () => void;
  children?: ReactNode;
};

/** The cards, form and JSON of one document, and Confirm: a draft's, or a confirmed revision's being corrected. */
function IntakeEditor({ initial, project_id, draft_id, sources, onConfirmed, onConflict, children }: EditorProps) {
  const schema = useIntakeSchema();
  const doc = useIntakeDocument(initial);
  const confirm = useAction(async () => {
    if (doc.parseError) return;
    const spec = confirmable(doc.spec) as IntakeSpec;
    const body = draft_id ? { spec, draft_id } : { spec };
    try {
      onConfirmed(await client.POST('/v1/projects/{project_id}/intakes', { path: { project_id }, body, idempotencyKey: newOperationKey() }).then(unwrap));
    } catch (error) {
      if (error instanceof CrucibleApiError && error.status === 409 && onConflict) onConflict();
      throw error;
    }
  });
  const problems = problemsByPath(envelopeOf(confirm.error)?.details ?? null);
  return (
    <>
      {children}
      <ErrorBanner error={schema.error ?? sources.error} />
      <IntakeViews doc={doc} schema={schema.value} sources={sources.value ?? []} problems={problems} />
      {doc.parseError && (
        <div className="error" role="alert">
          <p className="error-message">{doc.parseError}</p>
        </div>
      )}
      <ErrorBanner error={confirm.error} />
      <div className="confirm-row">
        <Action variant="primary" onPress={() => void confirm.run()} isDisabled={confirm.pending || doc.parseError !== null}>
          Confirm this intake
        </Action>
        <p className="muted small">
          Confirming records every statement as what you declared; nothing is verified yet. The plan comes next, with its cost before anything is charged.
        </p>
      </div>
    </>
  );
}

function DroppedClaims({ count }: { count: number }) {
  if (count === 0) return null;
  return (
    <div className="warning" role="note">
      <p>
        {count} claim{count === 1 ? ' was' : 's were'} removed because none of its citations could be found in your material.
      </p>
    </div>
  );
}

/** While drafting runs: what is reserved, and the way to stop it. */
function DraftRunning({ d, onCanceled }: { d: Draft; onCanceled(): void }) {
  const cancel = useAction(async () => {
    await client.POST('/v1/intake-drafts/{draft_id}/cancel', { path: { draft_id: d.id } }).then(unwrap);
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

/** Just confirmed: the revision's page, the citations that were removed, and the step to the plan. */
function Confirmed({ project_id, confirmed, sources }: { project_id: string; confirmed: IntakeRevision; sources: SourceText[] }) {
  const plan = useAction(async () => {
    const created = await client
      .POST('/v1/projects/{project_id}/evaluation-plans', { path: { project_id }, body: {}, idempotencyKey: newOperationKey() })
      .then(unwrap);
    navigate(`/projects/${project_id}/plans/${created.id}`);
  });
  return (
    <>
      <h2>Confirmed as revision {confirmed.revision}</h2>
      <p>
        <Link to={intakeRevisionPath(project_id, confirmed.revision)}>See revision {confirmed.revision}</Link> with its citations, or correct it there.
      </p>
      <p>Next: the plan says which evaluations fit your idea, why, and what each would cost in credits. Planning itself costs nothing.</p>
      <DroppedCitations dropped={confirmed.dropped_citations} sources={sources} />
      <ErrorBanner error={plan.error} />
      <Action variant="primary" onPress={() => void plan.run()} isDisabled={plan.pending}>
        Plan the evaluations
      </Action>
    </>
  );
}

function DraftTechnical({ d, confirmed }: { d: Draft; confirmed: number | null }) {
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
      {confirmed !== null && <p>Confirmed as intake revision {confirmed}</p>}
    </TechnicalDetails>
  );
}

/** The revision a draft was confirmed as, if it was (a draft is confirmed once): the project's revisions, newest first. */
function useRevisionOfDraft(project_id: string, draft_id: string, ready: boolean) {
  return useLoad(async () => {
    if (!ready) return null;
    for (let offset: number | null = 0; offset !== null; ) {
      const page: IntakeRevisionList = await client
        .GET('/v1/projects/{project_id}/intakes', { path: { project_id }, query: { offset, limit: 200 } })
        .then(unwrap);
      const found = page.data.find((r) => r.draft_id === draft_id);
      if (found) return found.revision;
      offset = page.next_offset;
    }
    return null;
  }, [project_id, draft_id, ready]);
}

function Crumbs({ project_id }: { project_id: string }) {
  return (
    <p className="crumbs">
      <Link to="/">Projects</Link> / <Link to={`/projects/${project_id}`}>Project</Link> /
    </p>
  );
}

export function DraftPage({ project_id, draft_id }: { project_id: string; draft_id: string }) {
  const draft = useLoad(() => client.GET('/v1/intake-drafts/{draft_id}', { path: { draft_id } }).then(unwrap), [draft_id], {
    ms: 1000,
    until: (d) => TERMINAL_DRAFT.includes(d.status),
  });
  const [confirmed, setConfirmed] = useState<IntakeRevision | null>(null);
  const d = draft.value;
  const earlier = useRevisionOfDraft(project_id, draft_id, d?.status === 'succeeded');
  const sources = useSourceTexts(d?.status === 'succeeded' ? d.source_ids : []);
  const revision = confirmed?.revision ?? earlier.value ?? null;
  // drafting with the AI is charged when it ends: the header's balance follows
  useBalanceChangedOn(d?.status);
  return (
    <>
      <Crumbs project_id={project_id} />
      <h1>Your intake</h1>
      <ErrorBanner error={draft.error ?? earlier.error} />
      {d && (
        <>
          <p aria-live="polite" data-testid="draft-status">
            {revision !== null ? (
              <>
                Confirmed as revision {revision} — <Link to={intakeRevisionPath(project_id, revision)}>see it</Link>.
              </>
            ) : (
              DRAFT_STATUS[d.status]
            )}{' '}
            <span className="muted small">{drafter(d)}</span>
          </p>
          {!TERMINAL_DRAFT.includes(d.status) && <DraftRunning d={d} onCanceled={draft.reload} />}
          {d.failure && <ErrorBanner error={new CrucibleApiError(0, { code: d.failure.code, message: d.failure.message, details: {}, request_id: '' })} />}
          {d.status === 'succeeded' && earlier.value === null && !confirmed && (
            <IntakeEditor initial={d.spec} project_id={project_id} draft_id={draft_id} sources={sources} onConfirmed={setConfirmed} onConflict={earlier.reload}>
              {d.dropped_citations.length > 0 && <DroppedCitations dropped={d.dropped_citations} sources={sources.value ?? []} />}
              <DroppedClaims count={d.dropped_claims.length} />
            </IntakeEditor>
          )}
          {confirmed && <Confirmed project_id={project_id} confirmed={confirmed} sources={sources.value ?? []} />}
          {!confirmed && earlier.value != null && (
            <p className="muted" data-testid="confirmed-once">
              A draft is confirmed once. To change the intake, open revision {earlier.value} and press “Correct it”: your corrections become the next revision.
            </p>
          )}
          <DraftTechnical d={d} confirmed={revision} />
        </>
      )}
    </>
  );
}

/** The project's readable material, for a revision's pane: every processed source, so a correction can cite any of it. */
function useProjectSources(revision: IntakeRevision | undefined) {
  const ids = useLoad(async () => {
    if (!revision) return [];
    const listed = await client.GET('/v1/intake-sources', { query: { org_id: revision.org_id, project_id: revision.project_id, limit: 200 } }).then(unwrap);
    return listed.data
      .filter((s) => s.status === 'processed')
      .map((s) => s.id)
      .reverse();
  }, [revision?.id]);
  return { ids, texts: useSourceTexts(ids.value ?? []) };
}

function useRevision(project_id: string, revision: number) {
  return useLoad(
    () => client.GET('/v1/projects/{project_id}/intakes/{revision}', { path: { project_id, revision: String(revision) } }).then(unwrap),
    [project_id, revision],
  );
}

/** A confirmed intake revision, read-only with its citations; "Correct it" starts the next revision from it. */
export function IntakeRevisionPage({ project_id, revision }: { project_id: string; revision: number }) {
  const loaded = useRevision(project_id, revision);
  const latest = useLoad(() => client.GET('/v1/projects/{project_id}/intakes', { path: { project_id }, query: { limit: 1 } }).then(unwrap), [project_id]);
  const r = loaded.value;
  const { ids, texts } = useProjectSources(r);
  const newest = latest.value?.data[0]?.revision;
  return (
    <>
      <Crumbs project_id={project_id} />
      <h1>Your intake, revision {revision}</h1>
      <ErrorBanner error={loaded.error ?? ids.error ?? texts.error ?? latest.error} />
      {r && (
        <>
          <p data-testid="revision-status">
            Confirmed on {formatDate(r.created_at)}
            {r.draft_id ? ', from a draft of your material' : ', as a correction'}. Read-only: every statement is what you declared, with the lines it cites.{' '}
            {newest !== undefined && newest > revision && (
              <>
                A newer revision exists: <Link to={intakeRevisionPath(project_id, newest)}>revision {newest}</Link>.
              </>
            )}
          </p>
          <div className="actions">
            <Action variant="primary" onPress={() => navigate(`${intakeRevisionPath(project_id, revision)}/correct`)}>
              Correct it
            </Action>
            <span className="muted small">Your corrections become revision {(newest ?? revision) + 1}; this one stays as it is.</span>
          </div>
          <DroppedCitations dropped={r.dropped_citations} sources={texts.value ?? []} />
          <IntakeCards spec={r.spec as Spec} sources={texts.value ?? []} />
          <TechnicalDetails>
            <p>
              Intake revision {r.id} · revision {r.revision} · draft {r.draft_id ?? 'none'} · created by {r.created_by}
            </p>
          </TechnicalDetails>
        </>
      )}
    </>
  );
}

/** A confirmed revision, corrected card by card and confirmed as the next revision (the draft it came from stays confirmed once). */
export function IntakeCorrectionPage({ project_id, revision }: { project_id: string; revision: number }) {
  const loaded = useRevision(project_id, revision);
  const r = loaded.value;
  const { ids, texts } = useProjectSources(r);
  const [confirmed, setConfirmed] = useState<IntakeRevision | null>(null);
  return (
    <>
      <Crumbs project_id={project_id} />
      <h1>{confirmed ? 'Your intake' : 'Correct your intake'}</h1>
      <ErrorBanner error={loaded.error ?? ids.error} />
      {r && !confirmed && (
        <IntakeEditor initial={r.spec} project_id={project_id} sources={texts} onConfirmed={setConfirmed}>
          <p data-testid="draft-status">
            Starting from <Link to={intakeRevisionPath(project_id, revision)}>revision {revision}</Link>. Correct what is wrong, then confirm: it becomes a new
            revision, and revision {revision} stays as it was.
          </p>
        </IntakeEditor>
      )}
      {confirmed && <Confirmed project_id={project_id} confirmed={confirmed} sources={texts.value ?? []} />}
    </>
  );
}
