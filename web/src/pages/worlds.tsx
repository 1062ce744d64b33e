// Worlds (spec: WorldSpec and run). The editor: start from a sample world in one click, see the pathway as a diagram
// (arrivals → steps → exits, resources on the steps), edit a step in its own form in plain words with units, or the
// whole world as JSON in the Advanced tab (completion from the published schema, problems at their lines); check and
// save a revision. The revision page: the world in words, an estimate under a budget the user types (never
// pre-filled), then a run. Ids, pointers and the raw world are in the technical details only.
import type { JSONSchema7 } from 'json-schema';
import { Suspense, lazy, useEffect, useMemo, useState } from 'react';
import { Tab, TabList, TabPanel, Tabs } from 'react-aria-components';
import { client, newOperationKey, unwrap, unwrapAs } from '../client.ts';
import type { Estimate } from '../types.ts';
import { TechnicalDetails } from '../technical.tsx';
import { Action, Link, formatDate, navigate, useAction, useLoad, useLocation } from '../ui.tsx';
import { type Selection, WorldDiagram } from '../world/diagram.tsx';
import type { Problem } from '../world/jsonEditor.tsx';
import {
  type World,
  formatNumber,
  formatSetting,
  humanize,
  isWorld,
  measureName,
  plainText,
  problemText,
  sayTime,
  settingName,
  unitWords,
} from '../world/model.ts';
import { PlainError } from '../world/plainError.tsx';
import { ArrivalForm } from '../world/arrivalForm.tsx';
import { blankWorld, connect } from '../world/edit.ts';
import { NumberInput, QuantityInput, StepForm } from '../world/stepForm.tsx';
import { VariantBar, VariantFlags, VariantForm } from '../world/variantForm.tsx';
import { type VariantFlag, applyVariantEdit, baselineOf, changedNodes, structureWords, variantFlags, variantView } from '../world/variants.ts';
import { AddStepBar, MeasuresForm, ResourcesForm } from '../world/worldForms.tsx';
import '../world/world.css';

// CodeMirror is loaded only when the Advanced tab opens
const JsonEditor = lazy(() => import('../world/jsonEditor.tsx'));

// the sample worlds of samples/worlds: their names now, each world only when chosen
const SAMPLE_NAMES = import.meta.glob<string>('../../../samples/worlds/*.json', { eager: true, import: 'name' });
const SAMPLES = import.meta.glob<unknown>('../../../samples/worlds/*.json', { import: 'default' });

function SampleChooser({ onWorld }: { onWorld(world: World): void }) {
  const [loading, setLoading] = useState('');
  return (
    <section aria-labelledby="samples-heading">
      <h2 id="samples-heading">Start from a sample world, or from nothing</h2>
      <p className="muted">
        Each sample is a care pathway with its settings, the change it tests and what it measures. Pick the closest, then change it to fit your idea.
      </p>
      <p>
        <Action onPress={() => onWorld(blankWorld())}>Start from nothing</Action>{' '}
        <span className="muted small">people arrive and leave; add the steps between in the diagram.</span>
      </p>
      <ul className="sample-list">
        {Object.keys(SAMPLES).map((path) => (
          <li key={path}>
            <Action
              isDisabled={loading !== ''}
              onPress={async () => {
                setLoading(path);
                const world = await SAMPLES[path]!();
                setLoading('');
                if (isWorld(world)) onWorld(structuredClone(world));
              }}
            >
              {SAMPLE_NAMES[path] ?? humanize(path.split('/').pop()!.replace('.json', ''))}
            </Action>
          </li>
        ))}
      </ul>
    </section>
  );
}

function WorldSettingsForm({ world, onWorld }: { world: World; onWorld(world: World): void }) {
  return (
    <fieldset className="world-settings">
      <legend>The whole world</legend>
      <div className="field">
        <label htmlFor="world-name">Name</label>
        <input id="world-name" value={world.name} onChange={(e) => onWorld({ ...world, name: e.target.value })} />
      </div>
      <div className="field">
        <label htmlFor="world-description">What it models</label>
        <textarea
          id="world-description"
          rows={3}
          value={world.description ?? ''}
          onChange={(e) => onWorld({ ...world, description: e.target.value.trim() ? e.target.value : undefined })}
        />
      </div>
      <QuantityInput
        world={world}
        label="Simulated period"
        quantity="time"
        parameter={world.horizon}
        min={0}
        onWorld={onWorld}
        onValue={(horizon) => onWorld({ ...world, horizon })}
      />
      <QuantityInput
        world={world}
        label="Warm-up, not measured"
        quantity="time"
        parameter={world.warm_up}
        min={0}
        onWorld={onWorld}
        onValue={(warm_up) => onWorld({ ...world, warm_up })}
      />
      <NumberInput
        label="Repetitions per variant"
        unit="runs of the model"
        value={world.replications}
        min={1}
        hint="More repetitions give narrower intervals and cost more credits."
        onChange={(replications) => onWorld({ ...world, replications: Math.round(replications) })}
      />
    </fieldset>
  );
}

/** The whole world's form: its name, description and periods, its staff and equipment, what it measures. */
function WholeWorldForm({ world, onWorld }: { world: World; onWorld(world: World): void }) {
  return (
    <>
      <WorldSettingsForm world={world} onWorld={onWorld} />
      <ResourcesForm world={world} onWorld={onWorld} />
      <MeasuresForm world={world} onWorld={onWorld} />
    </>
  );
}

function ProblemList({ problems, world, onSelect }: { problems: Problem[]; world: World | null; onSelect(selection: Selection): void }) {
  if (problems.length === 0)
    return (
      <div className="ok" role="status">
        <p>The world is valid: it can be saved, estimated and run.</p>
      </div>
    );
  return (
    <div className="error" role="alert" data-testid="world-problems">
      <p className="error-message">{problems.length === 1 ? 'One problem to fix' : `${problems.length} problems to fix`} before the world can be saved:</p>
      <ul>
        {problems.map((p) => {
          const step = /^\/steps\/(\d+)/.exec(p.pointer);
          const stepId = step && world ? world.steps[Number(step[1])]?.id : undefined;
          return (
            <li key={`${p.pointer}:${p.message}`}>
              {problemText(world, p)}{' '}
              {stepId && (
                <button type="button" className="link-button" onClick={() => onSelect({ kind: 'step', id: stepId })}>
                  Show this step
                </button>
              )}
            </li>
          );
        })}
      </ul>
    </div>
  );
}

type Shown = { variant: string; view: World; changed: Set<string>; onEdit(world: World): void };

/** What the pathway editor shows: the baseline as written, or a treatment as the baseline with its changes applied. */
function useShown(world: World, onWorld: (world: World) => void, variant: string): Shown {
  const treatment = world.variants.find((v) => v.id === variant && v.role === 'treatment')?.id;
  // one view and one set of highlighted steps per world and variant: the diagram is laid out again only when they change
  const { view, changed } = useMemo(
    () => (treatment ? { view: variantView(world, treatment), changed: changedNodes(world, treatment) } : { view: world, changed: new Set<string>() }),
    [world, treatment],
  );
  if (!treatment) return { variant: baselineOf(world)?.id ?? '', view, changed, onEdit: onWorld };
  return { variant: treatment, view, changed, onEdit: (edited) => onWorld(applyVariantEdit(world, treatment, view, edited)) };
}

function PathwayEditor({
  world,
  onWorld,
  selection,
  onSelect,
  variant,
  onVariant,
  flags,
}: {
  world: World;
  onWorld(world: World): void;
  selection: Selection;
  onSelect(selection: Selection): void;
  variant: string;
  onVariant(id: string): void;
  flags: VariantFlag[];
}) {
  const shown = useShown(world, onWorld, variant);
  const { view } = shown;
  const step = selection?.kind === 'step' ? view.steps.find((s) => s.id === selection.id) : undefined;
  const arrival = selection?.kind === 'arrival' ? view.arrivals.find((a) => a.id === selection.id) : undefined;
  const inVariant = shown.variant !== baselineOf(world)?.id;
  return (
    <div className="pathway">
      <div className="pathway-diagram">
        <VariantBar world={world} shown={shown.variant} onShow={onVariant} onWorld={onWorld} />
        <AddStepBar
          world={view}
          after={selection?.id ?? null}
          onWorld={shown.onEdit}
          onAdded={(kind, id) => onSelect({ kind: kind === 'arrival' ? 'arrival' : 'step', id })}
        />
        <p className="muted small">
          Select a step in the diagram (or Tab to it and press Enter) to change, connect or remove it; drag from a step's lower edge to another step to connect
          them.
        </p>
        <WorldDiagram
          world={view}
          selection={selection}
          onSelect={onSelect}
          changed={shown.changed}
          onConnect={(from, to) => shown.onEdit(connect(view, from, to))}
        />
      </div>
      <div className="pathway-form" aria-live="polite">
        {step && <StepForm key={step.id} world={view} step={step} onWorld={shown.onEdit} onRemoved={() => onSelect(null)} />}
        {arrival && <ArrivalForm key={arrival.id} world={view} arrival={arrival} onWorld={shown.onEdit} onRemoved={() => onSelect(null)} />}
        {!step && !arrival && inVariant && (
          <VariantForm world={world} variantId={shown.variant} flags={flags} onWorld={onWorld} onRemoved={() => onVariant(baselineOf(world)?.id ?? '')} />
        )}
        {!step && !arrival && !inVariant && <WholeWorldForm world={world} onWorld={onWorld} />}
        {(step || arrival) && (
          <button type="button" className="link-button" onClick={() => onSelect(null)}>
            {inVariant ? 'Back to the variant' : 'Back to the whole world'}
          </button>
        )}
      </div>
    </div>
  );
}

function useWorldSchema(wanted: boolean): JSONSchema7 | null {
  const [schema, setSchema] = useState<JSONSchema7 | null>(null);
  useEffect(() => {
    if (!wanted || schema) return;
    void client
      .GET('/v1/schemas/{name}', { path: { name: 'WorldSpec' } })
      .then((r) => unwrapAs<JSONSchema7>(r))
      .then(setSchema)
      .catch(() => setSchema({}));
  }, [wanted, schema]);
  return schema;
}

/**
 * The world being edited, kept both as a world (for the diagram and the forms) and as JSON text (for the Advanced tab):
 * a form edit rewrites the text; a text edit updates the world whenever it parses as one. `from` opens a saved revision.
 */
function useWorldDraft(from: string | null) {
  const [world, setWorld] = useState<World | null>(null);
  const [text, setText] = useState('');
  const [textError, setTextError] = useState(false);
  const [problems, setProblems] = useState<Problem[] | null>(null);
  // the world as it was opened: the comparison each variant's changes were written against
  const [opened, setOpened] = useState<World | null>(null);
  const startFrom = (next: World) => {
    setWorld(next);
    setText(JSON.stringify(next, null, 2));
    setTextError(false);
    setProblems(null);
  };
  const open = (next: World) => {
    setOpened(next);
    startFrom(next);
  };
  const source = useLoad(async () => {
    if (!from) return null;
    const revision = await client.GET('/v1/world-revisions/{world_revision_id}', { path: { world_revision_id: from } }).then(unwrap);
    if (isWorld(revision.world)) open(revision.world);
    return revision;
  }, [from]);
  const onText = (next: string) => {
    setText(next);
    try {
      const parsed: unknown = JSON.parse(next);
      setTextError(!isWorld(parsed));
      if (isWorld(parsed)) setWorld(parsed);
    } catch {
      setTextError(true);
    }
  };
  return { world, opened, text, textError, problems, setProblems, startFrom, open, onText, sourceError: source.error };
}

type WorldDraft = ReturnType<typeof useWorldDraft>;
type EditorTab = 'pathway' | 'advanced';

function WorldTabs({
  draft,
  world,
  tab,
  onTab,
  selection,
  onSelect,
  variants,
}: {
  draft: WorldDraft;
  world: World;
  tab: EditorTab;
  onTab(tab: EditorTab): void;
  selection: Selection;
  onSelect(selection: Selection): void;
  variants: { shown: string; onShow(id: string): void; flags: VariantFlag[] };
}) {
  const schema = useWorldSchema(tab === 'advanced');
  return (
    <Tabs selectedKey={tab} onSelectionChange={(key) => onTab(key as EditorTab)}>
      <TabList aria-label="Ways to edit the world">
        <Tab id="pathway">Pathway</Tab>
        <Tab id="advanced">Advanced (JSON)</Tab>
      </TabList>
      <TabPanel id="pathway">
        {draft.textError ? (
          <p className="warning">The JSON in the Advanced tab is not a complete world yet; the diagram shows the last complete version.</p>
        ) : null}
        <PathwayEditor
          world={world}
          onWorld={draft.startFrom}
          selection={selection}
          onSelect={onSelect}
          variant={variants.shown}
          onVariant={variants.onShow}
          flags={variants.flags}
        />
      </TabPanel>
      <TabPanel id="advanced">
        <p className="muted small">The whole world as JSON. Suggestions appear as you type (Ctrl+Space); problems are marked on their lines.</p>
        <Suspense fallback={<p aria-busy="true">Loading the editor…</p>}>
          {schema && <JsonEditor value={draft.text} onChange={draft.onText} schema={schema} onProblems={draft.setProblems} />}
        </Suspense>
      </TabPanel>
    </Tabs>
  );
}

/** Check (the service's validation, problems shown in words) and save: saving checks first and saves only a valid world. */
function CheckAndSave({ project_id, draft, world }: { project_id: string; draft: WorldDraft; world: World }) {
  const validate = async () => {
    const result = await client.POST('/v1/world-specs/validate', { body: JSON.parse(draft.text) }).then(unwrap);
    draft.setProblems(result.problems);
    return result.problems;
  };
  const check = useAction(validate);
  const save = useAction(async () => {
    if ((await validate()).length > 0) return;
    const saved = await client.POST('/v1/projects/{project_id}/worlds', { path: { project_id }, body: JSON.parse(draft.text) }).then(unwrap);
    navigate(`/world-revisions/${saved.world_revision_id}`);
  });
  return (
    <>
      <PlainError error={check.error ?? save.error} world={world} />
      <div className="row">
        <Action onPress={() => void check.run()} isDisabled={draft.textError || check.pending}>
          Check
        </Action>
        <Action variant="primary" onPress={() => void save.run()} isDisabled={draft.textError || save.pending}>
          {save.pending ? 'Saving…' : 'Save this world'}
        </Action>
      </div>
    </>
  );
}

function EditorTechnical({ project_id, from, problems }: { project_id: string; from: string | null; problems: Problem[] | null }) {
  return (
    <TechnicalDetails>
      <p>
        The world is a WorldSpec 1.0.0 document; its schema is at /v1/schemas/WorldSpec. Checking calls POST /v1/world-specs/validate; saving POST /v1/projects/
        {project_id}/worlds.
      </p>
      {from && <p>Based on the world revision {from}.</p>}
      {problems && problems.length > 0 && (
        <ul>
          {problems.map((p) => (
            <li key={`${p.pointer}:${p.message}`}>
              <code>{p.pointer || '/'}</code> {p.message}
            </li>
          ))}
        </ul>
      )}
    </TechnicalDetails>
  );
}

export function WorldEditorPage({ project_id }: { project_id: string }) {
  const { search } = useLocation();
  const from = search.get('from');
  const draft = useWorldDraft(from);
  const [tab, setTab] = useState<EditorTab>('pathway');
  const [selection, setSelection] = useState<Selection>(null);
  const selectAndShow = (next: Selection) => {
    setSelection(next);
    if (next) setTab('pathway');
  };
  const [variant, setVariant] = useState('');
  const { world, problems } = draft;
  const flags = world ? variantFlags(world, draft.opened) : [];
  return (
    <>
      <h1>{from ? 'New version of a world' : 'New world'}</h1>
      <p className="muted">
        A world is a model of the care pathway: who arrives, the steps they go through, the staff and equipment each step needs, and the change you want to test
        against usual care. Every number in it is an assumption you can see and change.
      </p>
      <PlainError error={draft.sourceError} />
      {!world && !from && <SampleChooser onWorld={draft.open} />}
      {world && (
        <>
          <h2 className="world-title">{world.name}</h2>
          {world.description && <p>{world.description}</p>}
          <WorldTabs
            draft={draft}
            world={world}
            tab={tab}
            onTab={setTab}
            selection={selection}
            onSelect={setSelection}
            variants={{ shown: variant, onShow: setVariant, flags }}
          />
          {problems && <ProblemList problems={problems} world={world} onSelect={selectAndShow} />}
          <VariantFlags flags={flags} />
          <CheckAndSave project_id={project_id} draft={draft} world={world} />
        </>
      )}
      <EditorTechnical project_id={project_id} from={from} problems={problems} />
    </>
  );
}

const settingValue = (world: World, name: string, value: number | undefined) =>
  value === undefined ? 'not set' : formatSetting(value, world.settings[name]?.unit ?? '');

function WorldSummary({ world }: { world: World }) {
  const baseline = world.variants.find((v) => v.role === 'baseline');
  return (
    <>
      {world.description && <p>{world.description}</p>}
      <p>
        Simulates {sayTime(world, world.horizon)} after a warm-up of {sayTime(world, world.warm_up)}, repeated {formatNumber(world.replications)} times for each
        variant.
      </p>
      <h2>What is compared</h2>
      <ul className="variants">
        {world.variants.map((v) => (
          <li key={v.id}>
            <strong>{v.label}</strong> {v.role === 'baseline' ? '(the comparison: as things are)' : `(compared with ${baseline?.label ?? 'the baseline'})`}
            {v.changes.length > 0 && (
              <ul>
                {v.changes.map((c) => (
                  <li key={c.setting}>
                    {settingName(world, c.setting)}: {settingValue(world, c.setting, world.settings[c.setting]?.value)} becomes{' '}
                    {settingValue(world, c.setting, c.value)}
                    {c.rationale ? ` (${c.rationale})` : ''}
                  </li>
                ))}
              </ul>
            )}
            {v.structure ? (
              <ul>
                {structureWords(world, v).map((words) => (
                  <li key={words}>{words}</li>
                ))}
              </ul>
            ) : null}
          </li>
        ))}
      </ul>
      <h2>What is measured</h2>
      <ul>
        {world.measured.map((m) => (
          <li key={m.id}>
            {measureName(world, m.id)} <span className="muted small">({unitWords(m.unit)})</span>
          </li>
        ))}
      </ul>
    </>
  );
}

function EstimateReport({ estimate, budget }: { estimate: Estimate; budget: number }) {
  return (
    <div className={estimate.runnable ? 'ok' : 'error'} role="status" data-testid="estimate">
      <p>
        <strong>{estimate.runnable ? 'Ready to run.' : 'This run cannot start yet.'}</strong> It is estimated at about {formatNumber(estimate.credits_estimate)}{' '}
        credit
        {estimate.credits_estimate === 1 ? '' : 's'} ({formatNumber(estimate.events_estimate)} simulated events).
      </p>
      <p>
        Budget: up to {formatNumber(budget)} credits, charged at actual use. Your organization has {formatNumber(estimate.available_credits)} credits available;
        {estimate.runnable ? ` ${formatNumber(estimate.reserved_credits)} are held while it runs and what is not used is released when it ends.` : ''}
      </p>
      {estimate.issues.length > 0 && (
        <ul>
          {estimate.issues.map((issue) => (
            <li key={`${issue.kind}:${issue.message}`}>
              {issue.kind === 'budget'
                ? `The budget is below the estimate: raise it to at least ${formatNumber(estimate.credits_estimate)} credits, or make the world smaller (fewer repetitions or a shorter period).`
                : issue.kind === 'balance'
                  ? `Your organization has ${formatNumber(estimate.available_credits)} credits available and this run would hold ${formatNumber(estimate.reserved_credits)}: add credits or lower the budget.`
                  : `The world is too large to run: ${plainText(issue.message)}`}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

function BudgetField({ budget, typo, onChange }: { budget: string; typo: boolean; onChange(budget: string): void }) {
  return (
    <div className="field">
      <label htmlFor="budget">Budget (credits)</label>
      <input
        id="budget"
        inputMode="numeric"
        required
        value={budget}
        aria-invalid={typo || undefined}
        aria-describedby={typo ? 'budget-problem' : undefined}
        onChange={(event) => onChange(event.target.value)}
      />
      {typo && (
        <span id="budget-problem" className="field-problem">
          Type a whole number of credits, 1 or more.
        </span>
      )}
    </div>
  );
}

function EstimateTechnical({ estimate }: { estimate: Estimate }) {
  return (
    <TechnicalDetails summary="How the estimate is made">
      <p>{estimate.cost_model}</p>
      <ul>
        {estimate.issues.map((i) => (
          <li key={`${i.pointer}:${i.message}`}>
            <code>{i.pointer}</code> {i.message}
          </li>
        ))}
      </ul>
    </TechnicalDetails>
  );
}

/** spec: WorldSpec and run — the budget is what the user types; nothing is pre-filled, and a changed budget needs a new estimate. */
function RunPanel({ world_revision_id }: { world_revision_id: string }) {
  const [budget, setBudget] = useState('');
  const [estimate, setEstimate] = useState<{ estimate: Estimate; budget: number } | null>(null);
  const [typo, setTypo] = useState(false);
  const budgetNumber = /^\d+$/.test(budget.trim()) && Number(budget.trim()) >= 1 ? Number(budget.trim()) : null;
  const runEstimate = useAction(async () => {
    if (budgetNumber === null) return setTypo(true);
    const result = await client.POST('/v1/runs/estimate', { body: { world_revision_id, budget_limit_credits: budgetNumber } }).then(unwrap);
    setEstimate({ estimate: result, budget: budgetNumber });
  });
  const start = useAction(async () => {
    const run = await client
      .POST('/v1/runs', { body: { world_revision_id, budget_limit_credits: estimate!.budget }, idempotencyKey: newOperationKey() })
      .then(unwrap);
    navigate(`/runs/${run.run_id}`);
  });
  return (
    <section aria-labelledby="run-heading">
      <h2 id="run-heading">Run the simulation</h2>
      <p className="muted">
        Type the most this run may cost in credits, then estimate it. The run starts only when the budget covers the estimate; it is charged for what it
        actually uses.
      </p>
      <form
        className="inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          void runEstimate.run();
        }}
      >
        <BudgetField
          budget={budget}
          typo={typo}
          onChange={(next) => {
            setBudget(next);
            setEstimate(null);
            setTypo(false);
          }}
        />
        <Action type="submit" isDisabled={!budget.trim() || runEstimate.pending}>
          Estimate
        </Action>
        <Action variant="primary" onPress={() => void start.run()} isDisabled={!estimate?.estimate.runnable || start.pending}>
          Run
        </Action>
      </form>
      <PlainError error={runEstimate.error ?? start.error} />
      {estimate && <EstimateReport estimate={estimate.estimate} budget={estimate.budget} />}
      {estimate && <EstimateTechnical estimate={estimate.estimate} />}
    </section>
  );
}

export function WorldRevisionPage({ world_revision_id }: { world_revision_id: string }) {
  const revision = useLoad(() => client.GET('/v1/world-revisions/{world_revision_id}', { path: { world_revision_id } }).then(unwrap), [world_revision_id]);
  const w = revision.value;
  const world = w && isWorld(w.world) ? w.world : null;
  return (
    <>
      <PlainError error={revision.error} />
      {w && (
        <>
          <h1>
            {w.name} <span className="muted small">· revision {w.revision}</span>
          </h1>
          <p className="muted">
            Saved {formatDate(w.created_at)}. <Link to={`/projects/${w.project_id}/worlds/new?from=${w.world_revision_id}`}>Change it (as a new version)</Link>
          </p>
          {world && (
            <>
              <WorldDiagram world={world} selection={null} />
              <WorldSummary world={world} />
            </>
          )}
          <RunPanel world_revision_id={world_revision_id} />
          <TechnicalDetails>
            <p>
              World revision {w.world_revision_id} of project {w.project_id}, created by {w.created_by}.
            </p>
            <pre className="code">{JSON.stringify(w.world, null, 2)}</pre>
          </TechnicalDetails>
        </>
      )}
    </>
  );
}
