// The form of one node of the world's diagram, in plain words with units: a step's duration (its pattern and
// values), the resource it uses and how many there are, where it goes next, a decision's shares; an arrival's rate.
// A value that comes from a named setting edits the setting (and says so: other steps may share it).
import { useEffect, useId, useState } from 'react';
import {
  DISTRIBUTIONS,
  type Distribution,
  type Parameter,
  type Step,
  type World,
  formatNumber,
  parameterValue,
  resourceName,
  settingName,
  settingOf,
  stepKindName,
  stepName,
  withResource,
  withSetting,
  withStep,
} from './model.ts';
import { idFrom, removalWords, removeStep } from './edit.ts';
import { RoutingChoice, RulesForm } from './rulesForm.tsx';
import { RATE_UNITS, TIME_UNITS, UNIT_CHOICES, fromPercent, fromWorld, naturalRateUnit, naturalTimeUnit, toPercent, toWorld } from './quantities.ts';

/** The shares of a decision's options added up (1 when they are complete). */
const shareTotal = (world: World, step: Step) => (step.options ?? []).reduce((sum, o) => sum + (parameterValue(world, o.probability) ?? 0), 0);

/** A number input that keeps what is typed and reports only numbers. */
export function NumberInput({
  label,
  value,
  unit,
  hint,
  onChange,
  min,
  max,
}: {
  label: string;
  value: number | null;
  unit?: string;
  hint?: string;
  min?: number;
  max?: number;
  onChange(value: number): void;
}) {
  const id = useId();
  const [text, setText] = useState(value === null ? '' : String(value));
  useEffect(() => {
    setText((current) => (Number(current) === value ? current : value === null ? '' : String(value)));
  }, [value]);
  const outside = (number: number) => (min !== undefined && number < min) || (max !== undefined && number > max);
  const invalid = text.trim() !== '' && (!Number.isFinite(Number(text)) || outside(Number(text)));
  return (
    <div className="field">
      <label htmlFor={id}>
        {label}
        {unit ? ` (${unit})` : ''}
      </label>
      <input
        id={id}
        inputMode="decimal"
        value={text}
        aria-invalid={invalid || undefined}
        aria-describedby={hint || invalid ? `${id}-hint` : undefined}
        onChange={(event) => {
          setText(event.target.value);
          const number = Number(event.target.value);
          if (event.target.value.trim() !== '' && Number.isFinite(number) && !outside(number)) onChange(number);
        }}
      />
      {(hint || invalid) && (
        <span id={`${id}-hint`} className={invalid ? 'field-problem' : 'muted small'}>
          {invalid ? `Type a number${min !== undefined ? ` of at least ${min}` : ''}${max !== undefined ? ` and at most ${max}` : ''}.` : hint}
        </span>
      )}
    </div>
  );
}

export function Choice({
  label,
  value,
  options,
  onChange,
}: {
  label: string;
  value: string;
  options: Array<{ value: string; label: string }>;
  onChange(value: string): void;
}) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </div>
  );
}

export type Quantity = 'time' | 'rate' | 'share' | 'count';

/** The unit select beside a duration or a rate: the number is read in the chosen unit. */
function UnitChoice({ label, quantity, unit, onChange }: { label: string; quantity: Quantity; unit: string; onChange(unit: string): void }) {
  const units = quantity === 'time' ? TIME_UNITS : RATE_UNITS;
  return (
    <select className="unit-select" aria-label={`Unit of ${label.toLowerCase()}`} value={unit} onChange={(e) => onChange(e.target.value)}>
      {units.map((u) => (
        <option key={u} value={u}>
          {UNIT_CHOICES[u]}
        </option>
      ))}
    </select>
  );
}

/**
 * One parameter as people say it: a duration or a rate with a unit they choose, a share as a percentage, a count. A
 * plain number is stored in the world's time unit (converted exactly); a setting is shown and edited in its own unit
 * (changing the unit converts its value), and says that it is shared.
 */
export function QuantityInput({
  world,
  label,
  quantity,
  parameter,
  onWorld,
  onValue,
  min,
  hint,
  owner,
  onParameter,
}: {
  world: World;
  label: string;
  quantity: Quantity;
  parameter: Parameter | undefined;
  onWorld(world: World): void;
  onValue(value: number): void;
  min?: number;
  hint?: string;
  /** what the value belongs to ("Triage"), to name the setting it may become */
  owner?: string;
  /** given: a plain number can become a named setting, so variants can change it (the world has the setting added) */
  onParameter?(world: World, parameter: Parameter): void;
}) {
  const setting = settingOf(parameter);
  const named = setting ? world.settings[setting] : undefined;
  const worldValue = parameterValue(world, parameter);
  // the unit people would say the value in, chosen once: it does not jump while a number is typed
  const [chosen, setChosen] = useState<string>(() => naturalUnit(quantity, worldValue ?? 1, world));
  const unit = named ? named.unit : chosen;
  const share = quantity === 'share';
  const shown = named ? named.value : worldValue === null ? null : fromWorld(worldValue, unit, world.time_unit);
  const withUnit = quantity === 'time' || quantity === 'rate';
  return (
    <div className="quantity">
      <NumberInput
        label={label}
        unit={share ? '%' : undefined}
        value={shown === null ? null : share ? toPercent(shown) : shown}
        min={min}
        max={share ? 100 : undefined}
        hint={[hint, setting && sharedHint(world, setting)].filter(Boolean).join(' ') || undefined}
        onChange={(typed) => {
          const value = share ? fromPercent(typed) : typed;
          if (setting) onWorld(withSetting(world, setting, value));
          else onValue(toWorld(value, unit, world.time_unit));
        }}
      />
      {withUnit && (
        <UnitChoice
          label={label}
          quantity={quantity}
          unit={unit}
          onChange={(next) => (setting ? onWorld(withSettingUnit(world, setting, next)) : setChosen(next))}
        />
      )}
      {onParameter && !setting && worldValue !== null && (
        <button type="button" className="link-button share-button" onClick={() => shareValue(world, { label, owner, quantity, unit, worldValue }, onParameter)}>
          Let variants change it
        </button>
      )}
    </div>
  );
}

/** The unit a plain value is first shown in: the one people would say it in (a count or a share has its own). */
function naturalUnit(quantity: Quantity, value: number, world: World): string {
  if (quantity === 'time') return naturalTimeUnit(value, world.time_unit);
  return quantity === 'rate' ? naturalRateUnit(value, world.time_unit) : quantity;
}

const sharedHint = (world: World, setting: string) =>
  `From the setting “${settingName(world, setting)}”: changing it here changes it wherever it is used, and variants may change it.`;

/** A setting said in another unit: its value converted, so what the engine runs stays the same. */
function withSettingUnit(world: World, name: string, unit: string): World {
  const named = world.settings[name];
  if (!named) return world;
  const value = fromWorld(toWorld(named.value, named.unit, world.time_unit), unit, world.time_unit);
  return { ...world, settings: { ...world.settings, [name]: { ...named, value, unit } } };
}

/** A plain number made a named setting in the unit it is shown in, so a variant can change it. */
function shareValue(
  world: World,
  value: { label: string; owner?: string; quantity: Quantity; unit: string; worldValue: number },
  onParameter: (world: World, parameter: Parameter) => void,
) {
  const owner = value.owner && /^[A-Z][a-z]/.test(value.owner) ? value.owner[0]!.toLowerCase() + value.owner.slice(1) : value.owner;
  const description = owner ? `${value.label}, ${owner}` : value.label;
  const name = idFrom(description, new Set(Object.keys(world.settings)), 'value');
  const unit = value.quantity === 'share' ? 'probability' : value.quantity === 'count' ? 'count' : value.unit;
  const setting = { value: fromWorld(value.worldValue, unit, world.time_unit), unit, source: { kind: 'user_declared' }, description };
  onParameter({ ...world, settings: { ...world.settings, [name]: setting } }, { setting: name });
}

function DurationForm({ world, step, onWorld }: { world: World; step: Step; onWorld(world: World): void }) {
  const duration = step.duration as Distribution;
  const known = DISTRIBUTIONS[duration.dist];
  const setDuration = (next: Distribution) => onWorld(withStep(world, { ...step, duration: next }));
  const changeFamily = (dist: string) => {
    const average = parameterValue(world, duration.mean ?? duration.value ?? duration.mode) ?? 1;
    const fresh: Record<string, Distribution> = {
      fixed: { dist, value: average },
      exponential: { dist, mean: average },
      lognormal: { dist, mean: average, sd: average / 2 },
      uniform: { dist, min: average / 2, max: average * 1.5 },
      triangular: { dist, min: average / 2, mode: average, max: average * 2 },
      gamma: { dist, shape: 2, scale: average / 2 },
    };
    setDuration(fresh[dist] ?? duration);
  };
  return (
    <fieldset className="step-fieldset">
      <legend>How long it takes</legend>
      {known ? (
        <>
          <Choice
            label="Pattern"
            value={duration.dist}
            options={Object.entries(DISTRIBUTIONS).map(([value, d]) => ({ value, label: d.name }))}
            onChange={changeFamily}
          />
          {known.fields.map((field) => (
            <QuantityInput
              key={field.key}
              world={world}
              label={field.label}
              quantity={field.key === 'shape' ? 'count' : 'time'}
              parameter={duration[field.key] as Parameter}
              min={0}
              onWorld={onWorld}
              onValue={(value) => setDuration({ ...duration, [field.key]: value })}
              owner={stepName(world, step.id)}
              onParameter={(next, parameter) => onWorld(withStep(next, { ...step, duration: { ...duration, [field.key]: parameter } }))}
            />
          ))}
        </>
      ) : (
        <p className="muted">This duration is drawn from a list of observed values: edit it in the Advanced tab.</p>
      )}
    </fieldset>
  );
}

function ResourceForm({ world, step, onWorld }: { world: World; step: Step; onWorld(world: World): void }) {
  const resource = world.resources.find((r) => r.id === step.resource);
  return (
    <fieldset className="step-fieldset">
      <legend>Who or what it needs</legend>
      <Choice
        label="Resource"
        value={step.resource ?? ''}
        options={world.resources.map((r) => ({ value: r.id, label: resourceName(world, r.id) }))}
        onChange={(id) => onWorld(withStep(world, { ...step, resource: id }))}
      />
      {resource &&
        (resource.shifts ? (
          <p className="muted small">{resourceName(world, resource.id)} work in shifts: change them under “Staff and equipment” in the whole world's form.</p>
        ) : (
          <QuantityInput
            world={world}
            label={`How many ${resourceName(world, resource.id).toLowerCase()} at once`}
            quantity="count"
            parameter={resource.capacity}
            min={0}
            onWorld={onWorld}
            onValue={(value) => onWorld(withResource(world, { ...resource, capacity: value }))}
            owner={resourceName(world, resource.id)}
            onParameter={(next, capacity) => onWorld(withResource(next, { ...resource, capacity }))}
          />
        ))}
    </fieldset>
  );
}

/**
 * When too many are waiting (a service's or a seize's `queue_limit`): people who find this many already waiting are
 * turned away, to a step chosen here or out of the pathway; optionally only a share of them (the others wait anyway).
 */
function QueueLimitForm({ world, step, onWorld }: { world: World; step: Step; onWorld(world: World): void }) {
  const id = useId();
  const limit = step.queue_limit as { max_waiting: Parameter; balk_probability?: Parameter; to?: string } | undefined;
  const set = (next: typeof limit) => {
    const { queue_limit: _old, ...rest } = step;
    onWorld(withStep(world, next ? { ...rest, queue_limit: next } : rest));
  };
  const others = world.steps.filter((s) => s.id !== step.id).map((s) => ({ value: s.id, label: stepName(world, s.id) }));
  return (
    <fieldset className="step-fieldset">
      <legend>When too many are waiting</legend>
      <div className="field check-field">
        <label htmlFor={id}>
          <input id={id} type="checkbox" checked={!!limit} onChange={(e) => set(e.target.checked ? { max_waiting: 5 } : undefined)} /> Turn people away when the
          queue is full
        </label>
      </div>
      {limit ? (
        <>
          <QuantityInput
            world={world}
            label="Full when this many are already waiting"
            quantity="count"
            parameter={limit.max_waiting}
            min={0}
            onWorld={onWorld}
            onValue={(value) => set({ ...limit, max_waiting: Math.max(0, Math.round(value)) })}
            owner={stepName(world, step.id)}
            onParameter={(next, max_waiting) => onWorld(withStep(next, { ...step, queue_limit: { ...limit, max_waiting } }))}
          />
          <Choice
            label="People turned away go to"
            value={limit.to ?? ''}
            options={[{ value: '', label: 'Out of the pathway (they leave)' }, ...others]}
            onChange={(to) => {
              const { to: _old, ...rest } = limit;
              set(to ? { ...rest, to } : rest);
            }}
          />
          <QuantityInput
            world={world}
            label="Share of them turned away"
            quantity="share"
            parameter={limit.balk_probability ?? 1}
            min={0}
            hint="100%: everyone who finds the queue full is turned away; less, and the others wait anyway."
            onWorld={onWorld}
            onValue={(value) => {
              const { balk_probability: _old, ...rest } = limit;
              set(value === 1 ? rest : { ...rest, balk_probability: value });
            }}
          />
          <p className="muted small">
            {limit.max_waiting === 0
              ? 'Nobody waits here: whoever finds no one free is turned away.'
              : 'To count them, add the measure “How many people are turned away at a full queue” in the whole world’s form.'}
          </p>
        </>
      ) : (
        <p className="muted small">Everyone waits, however long the queue.</p>
      )}
    </fieldset>
  );
}

/** A decision's ways out: each with its share (a percentage) and where it goes; a way can be added or taken away. */
function SharesForm({ world, step, onWorld }: { world: World; step: Step; onWorld(world: World): void }) {
  const options = step.options ?? [];
  const setOptions = (next: typeof options) => onWorld(withStep(world, { ...step, options: next }));
  const others = world.steps.filter((s) => s.id !== step.id).map((s) => ({ value: s.id, label: stepName(world, s.id) }));
  return (
    <fieldset className="step-fieldset">
      <legend>Where people go, and how often</legend>
      {options.map((option, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: options are positional (two may lead to the same step) and the form never reorders them
        <div className="way" key={index}>
          <QuantityInput
            world={world}
            label={`Share going to ${stepName(world, option.next)}`}
            quantity="share"
            parameter={option.probability}
            min={0}
            onWorld={onWorld}
            onValue={(value) => setOptions(options.map((o, i) => (i === index ? { ...o, probability: value } : o)))}
            owner={stepName(world, step.id)}
            onParameter={(next, probability) => onWorld(withStep(next, { ...step, options: options.map((o, i) => (i === index ? { ...o, probability } : o)) }))}
          />
          <Choice
            label={`Way ${index + 1} goes to`}
            value={option.next}
            options={others}
            onChange={(next) => setOptions(options.map((o, i) => (i === index ? { ...o, next } : o)))}
          />
          {options.length > 1 && (
            <button type="button" className="link-button" onClick={() => setOptions(options.filter((_, i) => i !== index))}>
              Take away way {index + 1}
            </button>
          )}
        </div>
      ))}
      <button type="button" className="link-button" onClick={() => setOptions([...options, { probability: 0, next: others[0]?.value ?? step.id }])}>
        Add a way
      </button>
      <p className="muted small">The shares must add up to 100% (now {formatNumber(toPercent(shareTotal(world, step)))}%).</p>
    </fieldset>
  );
}

function NextForm({ world, step, onWorld }: { world: World; step: Step; onWorld(world: World): void }) {
  const others = world.steps.filter((s) => s.id !== step.id).map((s) => ({ value: s.id, label: stepName(world, s.id) }));
  if (step.next !== undefined)
    return <Choice label="Then goes to" value={step.next} options={others} onChange={(next) => onWorld(withStep(world, { ...step, next }))} />;
  if (step.by === 'probability' && step.options)
    return (
      <>
        <RoutingChoice world={world} step={step} onWorld={onWorld} />
        <SharesForm world={world} step={step} onWorld={onWorld} />
      </>
    );
  if (step.by === 'rules' && step.options)
    return (
      <>
        <RoutingChoice world={world} step={step} onWorld={onWorld} />
        <RulesForm world={world} step={step} onWorld={onWorld} />
      </>
    );
  if (step.options) return <p className="muted small">This decision routes by characteristics or the shortest queue: edit it in the Advanced tab.</p>;
  return null;
}

/** The name people know a step or an arrival stream by (its label); the id underneath stays as it is. */
export function NameField({ value, onChange }: { value: string; onChange(label: string): void }) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>Name</label>
      <input id={id} value={value} onChange={(e) => onChange(e.target.value)} />
    </div>
  );
}

/** Removing asks first, naming what depends on what is removed and what will happen to it. */
export function RemoveButton({ what, consequences, onRemove, refusal }: { what: string; consequences: string[]; onRemove(): void; refusal?: string }) {
  const [asking, setAsking] = useState(false);
  if (refusal) return <p className="muted small">{refusal}</p>;
  if (!asking)
    return (
      <button type="button" className="link-button danger" onClick={() => setAsking(true)}>
        Remove {what}
      </button>
    );
  return (
    <div className="warning" role="alert" data-testid="remove-confirm">
      <p>
        Remove {what}?{consequences.length === 0 ? ' Nothing else depends on it.' : ''}
      </p>
      {consequences.length > 0 && (
        <ul>
          {consequences.map((c) => (
            <li key={c}>{c}</li>
          ))}
        </ul>
      )}
      <div className="row">
        <button type="button" className="button danger" onClick={onRemove}>
          Remove it
        </button>
        <button type="button" className="button" onClick={() => setAsking(false)}>
          Keep it
        </button>
      </div>
    </div>
  );
}

export function StepForm({ world, step, onWorld, onRemoved }: { world: World; step: Step; onWorld(world: World): void; onRemoved(): void }) {
  const name = stepName(world, step.id);
  return (
    <div className="step-form" data-testid="step-form">
      <h3>
        {name} <span className="muted small">· {stepKindName(step.kind)}</span>
      </h3>
      <NameField value={step.label ?? name} onChange={(label) => onWorld(withStep(world, { ...step, label: label.trim() ? label : undefined }))} />
      {step.kind === 'exit' && <p className="muted">People leave the pathway here.</p>}
      {step.resource !== undefined && <ResourceForm world={world} step={step} onWorld={onWorld} />}
      {step.duration && <DurationForm world={world} step={step} onWorld={onWorld} />}
      {(step.kind === 'service' || step.kind === 'seize') && <QueueLimitForm world={world} step={step} onWorld={onWorld} />}
      <NextForm world={world} step={step} onWorld={onWorld} />
      <RemoveButton
        what={`“${name}”`}
        consequences={removalWords(world, step.id)}
        refusal={world.steps.length === 1 ? 'A world needs at least one step: add another before removing this one.' : undefined}
        onRemove={() => {
          onWorld(removeStep(world, step.id));
          onRemoved();
        }}
      />
    </div>
  );
}
