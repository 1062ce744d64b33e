// Variants in the editor: which variant the diagram shows (the baseline, or a treatment as the baseline with its
// changes applied and highlighted), the variant's own form (its name, each change beside the baseline's value, in the
// setting's unit, with its reason), and the flags to look at before saving.
import { useId, useState } from 'react';
import { idFrom } from './edit.ts';
import { type World, formatSetting, settingName, stepKindName, stepName } from './model.ts';
import { fromPercent, isShareUnit, toPercent } from './quantities.ts';
import { Choice, NameField, NumberInput, RemoveButton } from './stepForm.tsx';
import { type Structure, type VariantFlag, baselineOf, baselineValue, setChange, structureOf, variantView, withStructure } from './variants.ts';

export function VariantBar({ world, shown, onShow, onWorld }: { world: World; shown: string; onShow(id: string): void; onWorld(world: World): void }) {
  const baseline = baselineOf(world);
  return (
    <div className="variant-bar">
      <Choice
        label="The diagram shows"
        value={shown}
        options={world.variants.map((v) => ({ value: v.id, label: v.role === 'baseline' ? `${v.label} (the baseline)` : `${v.label} (changes highlighted)` }))}
        onChange={onShow}
      />
      <button
        type="button"
        className="link-button"
        onClick={() => {
          const id = idFrom('another change', new Set(world.variants.map((v) => v.id)), 'variant');
          onWorld({
            ...world,
            variants: [...world.variants, { id, label: `Another change to ${baseline?.label ?? 'the baseline'}`, role: 'treatment', changes: [] }],
          });
          onShow(id);
        }}
      >
        Add a variant
      </button>
    </div>
  );
}

function ChangeRow({
  world,
  variantId,
  change,
  flags,
  onWorld,
}: {
  world: World;
  variantId: string;
  change: { setting: string; value: number; rationale?: string };
  flags: VariantFlag[];
  onWorld(world: World): void;
}) {
  const setting = world.settings[change.setting]!;
  const share = isShareUnit(setting.unit);
  const base = baselineValue(world, change.setting);
  const name = settingName(world, change.setting);
  const id = useId();
  return (
    <li className={flags.length ? 'change is-flagged' : 'change'} data-testid="variant-change">
      <strong>{name}</strong>
      <span className="muted small"> — in the baseline {base === undefined ? 'not set' : formatSetting(base, setting.unit)}</span>
      <NumberInput
        label={`${name} in this variant`}
        unit={share ? '%' : setting.unit.replace('per_', 'per ')}
        value={share ? toPercent(change.value) : change.value}
        min={share ? 0 : undefined}
        max={share ? 100 : undefined}
        onChange={(typed) => onWorld(setChange(world, variantId, change.setting, { value: share ? fromPercent(typed) : typed }))}
      />
      <div className="field">
        <label htmlFor={id}>Why it changes</label>
        <input id={id} value={change.rationale ?? ''} onChange={(e) => onWorld(setChange(world, variantId, change.setting, { rationale: e.target.value }))} />
      </div>
      {flags.map((f) => (
        <p key={f.kind} className="field-problem">
          {f.message}
        </p>
      ))}
      <button type="button" className="link-button" onClick={() => onWorld(setChange(world, variantId, change.setting, null))}>
        Keep the baseline's value instead
      </button>
    </li>
  );
}

/** A value the variant does not change yet, chosen and added as a change (at the baseline's value, flagged until edited). */
function AddChange({ world, variantId, onWorld }: { world: World; variantId: string; onWorld(world: World): void }) {
  const [adding, setAdding] = useState('');
  const variant = world.variants.find((v) => v.id === variantId);
  const unchanged = Object.keys(world.settings).filter((name) => !variant?.changes.some((c) => c.setting === name));
  if (unchanged.length === 0) return null;
  return (
    <div className="add-row">
      <Choice
        label="Change another value"
        value={adding || unchanged[0]!}
        options={unchanged.map((name) => ({ value: name, label: settingName(world, name) }))}
        onChange={setAdding}
      />
      <button type="button" className="button" onClick={() => onWorld(setChange(world, variantId, unchanged.includes(adding) ? adding : unchanged[0]!, {}))}>
        Change it in this variant
      </button>
    </div>
  );
}

/** A variant's own pathway in words: each step it adds, changes or removes, each one undone on its own, and why. */
function PathwayChanges({ world, variantId, onWorld }: { world: World; variantId: string; onWorld(world: World): void }) {
  const id = useId();
  const variant = world.variants.find((v) => v.id === variantId);
  if (!variant) return null;
  const structure = structureOf(variant);
  const view = variantView(world, variantId);
  const set = (next: Structure) => onWorld({ ...world, variants: world.variants.map((v) => (v.id === variantId ? withStructure(v, next) : v)) });
  const rows = [
    ...(structure.add_steps ?? []).map((step) => ({
      key: `add:${step.id}`,
      words: `Adds “${stepName(view, step.id)}” (${stepKindName(step.kind).toLowerCase()})`,
      undo: `Take “${stepName(view, step.id)}” out of this variant`,
      onUndo: () => set({ ...structure, add_steps: structure.add_steps?.filter((s) => s.id !== step.id) }),
    })),
    ...(structure.replace_steps ?? []).map((step) => ({
      key: `replace:${step.id}`,
      words: `Changes “${stepName(view, step.id)}” from the baseline's`,
      undo: `Keep the baseline's “${stepName(world, step.id)}”`,
      onUndo: () => set({ ...structure, replace_steps: structure.replace_steps?.filter((s) => s.id !== step.id) }),
    })),
    ...(structure.remove_steps ?? []).map((stepId) => ({
      key: `remove:${stepId}`,
      words: `Leaves out “${stepName(world, stepId)}”`,
      undo: `Keep “${stepName(world, stepId)}” in this variant`,
      onUndo: () => set({ ...structure, remove_steps: structure.remove_steps?.filter((s) => s !== stepId) }),
    })),
  ];
  if (rows.length === 0)
    return <p className="muted small">Its pathway is the baseline's. Steps you add, change or remove while it is shown change it in this variant only.</p>;
  return (
    <div className="variant-pathway">
      <h4>Its own pathway</h4>
      <ul className="changes">
        {rows.map((row) => (
          <li key={row.key} data-testid="variant-step-change">
            {row.words}{' '}
            <button type="button" className="link-button" onClick={row.onUndo}>
              {row.undo}
            </button>
          </li>
        ))}
      </ul>
      <div className="field">
        <label htmlFor={id}>Why its pathway changes</label>
        <input id={id} value={structure.rationale ?? ''} onChange={(e) => set({ ...structure, rationale: e.target.value || undefined })} />
      </div>
    </div>
  );
}

/** A treatment's form: its name, its changes beside the baseline's values, a value to change, and removing it. */
export function VariantForm({
  world,
  variantId,
  flags,
  onWorld,
  onRemoved,
}: {
  world: World;
  variantId: string;
  flags: VariantFlag[];
  onWorld(world: World): void;
  onRemoved(): void;
}) {
  const variant = world.variants.find((v) => v.id === variantId);
  if (!variant) return null;
  return (
    <section className="variant-form" data-testid="variant-form" aria-label={`The variant ${variant.label}`}>
      <h3>{variant.label}</h3>
      <p className="muted small">
        The diagram shows this variant: the baseline with its changes, the steps they touch highlighted. Select a step to change it in the same form as the
        baseline's: a step you add, change or remove, a number from a named setting and how many staff or equipment a step has at once change in this variant
        only; arrivals and what is measured change every variant.
      </p>
      <NameField
        value={variant.label}
        onChange={(label) => onWorld({ ...world, variants: world.variants.map((v) => (v.id === variantId ? { ...v, label } : v)) })}
      />
      {variant.changes.length === 0 && !variant.structure && <p>It changes nothing yet.</p>}
      <ul className="changes">
        {variant.changes
          .filter((c) => world.settings[c.setting])
          .map((change) => (
            <ChangeRow
              key={change.setting}
              world={world}
              variantId={variantId}
              change={change}
              flags={flags.filter((f) => f.variant === variantId && f.setting === change.setting)}
              onWorld={onWorld}
            />
          ))}
      </ul>
      <AddChange world={world} variantId={variantId} onWorld={onWorld} />
      <PathwayChanges world={world} variantId={variantId} onWorld={onWorld} />
      <RemoveButton
        what={`the variant “${variant.label}”`}
        consequences={[]}
        refusal={
          world.variants.filter((v) => v.role === 'treatment').length === 1
            ? 'A world compares at least one variant with the baseline: add another before removing this one.'
            : undefined
        }
        onRemove={() => {
          onWorld({ ...world, variants: world.variants.filter((v) => v.id !== variantId) });
          onRemoved();
        }}
      />
    </section>
  );
}

/** The flags, above the save button: what each variant would compare, said before the world is saved. */
export function VariantFlags({ flags }: { flags: VariantFlag[] }) {
  if (flags.length === 0) return null;
  return (
    <div className="warning" role="status" data-testid="variant-flags">
      <p>
        <strong>Check {flags.length === 1 ? 'this variant' : 'these variants'} before saving:</strong>
      </p>
      <ul>
        {flags.map((f) => (
          <li key={`${f.variant}:${f.setting}:${f.kind}`}>{f.message}</li>
        ))}
      </ul>
    </div>
  );
}
