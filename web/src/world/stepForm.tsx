// The form of one node of the world's diagram, in plain words with units: a step's duration (its pattern and
// values), the resource it uses and how many there are, where it goes next, a decision's shares; an arrival's rate.
// A value that comes from a named setting edits the setting (and says so: other steps may share it).
import { useEffect, useId, useState } from 'react';
import {
  type Arrival,
  DISTRIBUTIONS,
  type Distribution,
  type Parameter,
  type Step,
  type World,
  humanize,
  parameterValue,
  resourceName,
  stepKindName,
  stepName,
  withResource,
  withSetting,
  withStep,
} from './model.ts';

/** A number input that keeps what is typed and reports only numbers. */
export function NumberInput({
  label,
  value,
  unit,
  hint,
  onChange,
  min,
}: {
  label: string;
  value: number | null;
  unit?: string;
  hint?: string;
  min?: number;
  onChange(value: number): void;
}) {
  const id = useId();
  const [text, setText] = useState(value === null ? '' : String(value));
  useEffect(() => {
    setText((current) => (Number(current) === value ? current : value === null ? '' : String(value)));
  }, [value]);
  const invalid = text.trim() !== '' && (!Number.isFinite(Number(text)) || (min !== undefined && Number(text) < min));
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
          if (event.target.value.trim() !== '' && Number.isFinite(number) && (min === undefined || number >= min)) onChange(number);
        }}
      />
      {(hint || invalid) && (
        <span id={`${id}-hint`} className={invalid ? 'field-problem' : 'muted small'}>
          {invalid ? `Type a number${min !== undefined ? ` of at least ${min}` : ''}.` : hint}
        </span>
      )}
    </div>
  );
}

function Choice({
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

/** One parameter: a number, or a setting's value (edited in the setting, in its own unit). */
function ParameterInput({
  world,
  label,
  unit,
  parameter,
  onWorld,
  onValue,
  min,
}: {
  world: World;
  label: string;
  unit: string;
  parameter: Parameter | undefined;
  onWorld(world: World): void;
  onValue(value: number): void;
  min?: number;
}) {
  const setting = typeof parameter === 'object' && parameter ? parameter.setting : null;
  if (setting) {
    const named = world.settings[setting];
    return (
      <NumberInput
        label={label}
        unit={named ? humanize(named.unit).toLowerCase() : unit}
        value={named?.value ?? null}
        min={min}
        hint={`From the setting “${humanize(setting)}”: changing it here changes it wherever it is used, and variants may change it.`}
        onChange={(value) => onWorld(withSetting(world, setting, value))}
      />
    );
  }
  return <NumberInput label={label} unit={unit} value={parameterValue(world, parameter)} min={min} onChange={onValue} />;
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
            <ParameterInput
              key={field.key}
              world={world}
              label={field.label}
              unit={field.key === 'shape' ? '' : world.time_unit}
              parameter={duration[field.key] as Parameter}
              min={0}
              onWorld={onWorld}
              onValue={(value) => setDuration({ ...duration, [field.key]: value })}
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
          <p className="muted small">{resourceName(world, resource.id)} work in shifts: edit them in the Advanced tab.</p>
        ) : (
          <ParameterInput
            world={world}
            label={`How many ${resourceName(world, resource.id).toLowerCase()} at once`}
            unit="count"
            parameter={resource.capacity}
            min={0}
            onWorld={onWorld}
            onValue={(value) => onWorld(withResource(world, { ...resource, capacity: value }))}
          />
        ))}
    </fieldset>
  );
}

function NextForm({ world, step, onWorld }: { world: World; step: Step; onWorld(world: World): void }) {
  const others = world.steps.filter((s) => s.id !== step.id).map((s) => ({ value: s.id, label: stepName(world, s.id) }));
  if (step.next !== undefined)
    return <Choice label="Then goes to" value={step.next} options={others} onChange={(next) => onWorld(withStep(world, { ...step, next }))} />;
  if (step.by === 'probability' && step.options)
    return (
      <fieldset className="step-fieldset">
        <legend>Where people go, and how often</legend>
        {step.options.map((option, index) => (
          <ParameterInput
            // biome-ignore lint/suspicious/noArrayIndexKey: options are positional (two may lead to the same step) and the form never reorders them
            key={`${option.next}-${index}`}
            world={world}
            label={`Share going to ${stepName(world, option.next)}`}
            unit="probability, 0 to 1"
            parameter={option.probability}
            min={0}
            onWorld={onWorld}
            onValue={(value) => onWorld(withStep(world, { ...step, options: step.options!.map((o, i) => (i === index ? { ...o, probability: value } : o)) }))}
          />
        ))}
        <p className="muted small">The shares must add up to 1.</p>
      </fieldset>
    );
  if (step.options) return <p className="muted small">This decision routes by rules or characteristics: edit them in the Advanced tab.</p>;
  return null;
}

export function StepForm({ world, step, onWorld }: { world: World; step: Step; onWorld(world: World): void }) {
  return (
    <div className="step-form" data-testid="step-form">
      <h3>
        {stepName(world, step.id)} <span className="muted small">· {stepKindName(step.kind)}</span>
      </h3>
      {step.kind === 'exit' && <p className="muted">People leave the pathway here.</p>}
      {step.resource !== undefined && step.kind === 'service' && <ResourceForm world={world} step={step} onWorld={onWorld} />}
      {step.duration && <DurationForm world={world} step={step} onWorld={onWorld} />}
      {(step.kind === 'seize' || step.kind === 'release') && <p className="muted small">Resource: {resourceName(world, step.resource)}.</p>}
      <NextForm world={world} step={step} onWorld={onWorld} />
    </div>
  );
}

export function ArrivalForm({ world, arrival, onWorld }: { world: World; arrival: Arrival; onWorld(world: World): void }) {
  const unit = { minutes: 'a minute', hours: 'an hour', days: 'a day' }[world.time_unit];
  const setArrival = (next: Arrival) => onWorld({ ...world, arrivals: world.arrivals.map((a) => (a.id === arrival.id ? next : a)) });
  return (
    <div className="step-form" data-testid="step-form">
      <h3>
        {humanize(arrival.id)} <span className="muted small">· Arrivals</span>
      </h3>
      {arrival.kind === 'poisson' ? (
        <ParameterInput
          world={world}
          label="Arrivals on average"
          unit={unit}
          parameter={arrival.rate}
          min={0}
          onWorld={onWorld}
          onValue={(rate) => setArrival({ ...arrival, rate })}
        />
      ) : (
        <p className="muted">These arrivals follow a timetable or a weekly pattern: edit them in the Advanced tab.</p>
      )}
      <Choice
        label="First step"
        value={arrival.to_step}
        options={world.steps.map((s) => ({ value: s.id, label: stepName(world, s.id) }))}
        onChange={(to_step) => setArrival({ ...arrival, to_step })}
      />
    </div>
  );
}
