// The whole world's parts that are not on the pathway: the staff and equipment (how many, or their shifts as a small
// table), what is measured, and the bar that adds a step of any kind after the selected one.
import { useId, useState } from 'react';
import { type NewKind, type NewMeasure, NEW_KINDS, addMeasure, addResource, addStep, removeResource, resourceDependents } from './edit.ts';
import { type Resource, type World, measureName, resourceName, stepName, unitWords, withResource } from './model.ts';
import { Choice, NameField, NumberInput, QuantityInput, RemoveButton } from './stepForm.tsx';

type Shift = { days: number[]; start_hour: number; end_hour: number; capacity: number | { setting: string } };
const DAY_SETS: Array<{ value: string; label: string; days: number[] }> = [
  { value: '0,1,2,3,4', label: 'Monday to Friday', days: [0, 1, 2, 3, 4] },
  { value: '0,1,2,3,4,5,6', label: 'Every day', days: [0, 1, 2, 3, 4, 5, 6] },
  { value: '5,6', label: 'Saturday and Sunday', days: [5, 6] },
  ...['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'].map((label, day) => ({ value: String(day), label, days: [day] })),
];

function ShiftsForm({ world, resource, onWorld }: { world: World; resource: Resource; onWorld(world: World): void }) {
  const shifts = (resource.shifts ?? []) as Shift[];
  const setShifts = (next: Shift[]) => {
    const { shifts: _old, ...rest } = resource;
    onWorld(withResource(world, next.length ? { ...rest, shifts: next } : { ...rest, capacity: shifts[0]?.capacity ?? rest.capacity }));
  };
  const change = (index: number, patch: Partial<Shift>) => setShifts(shifts.map((s, i) => (i === index ? { ...s, ...patch } : s)));
  const known = (days: number[]) => DAY_SETS.find((d) => d.value === days.join(','))?.value;
  return (
    <div className="shifts">
      {shifts.map((shift, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: shifts are positional and the form never reorders them
        <fieldset className="step-fieldset" key={index}>
          <legend>Shift {index + 1}</legend>
          <Choice
            label="Days"
            value={known(shift.days) ?? shift.days.join(',')}
            options={known(shift.days) ? DAY_SETS : [...DAY_SETS, { value: shift.days.join(','), label: 'As written', days: shift.days }]}
            onChange={(value) => change(index, { days: value.split(',').map(Number) })}
          />
          <NumberInput
            label="Starts at"
            unit="hour of the day, 8.5 = 08:30"
            value={shift.start_hour}
            min={0}
            max={23.99}
            onChange={(start_hour) => change(index, { start_hour })}
          />
          <NumberInput label="Ends at" unit="hour of the day" value={shift.end_hour} min={0.01} max={24} onChange={(end_hour) => change(index, { end_hour })} />
          <QuantityInput
            world={world}
            label="How many on this shift"
            quantity="count"
            parameter={shift.capacity}
            min={0}
            onWorld={onWorld}
            onValue={(capacity) => change(index, { capacity })}
          />
          <button type="button" className="link-button" onClick={() => setShifts(shifts.filter((_, i) => i !== index))}>
            Remove shift {index + 1}
          </button>
        </fieldset>
      ))}
      <button
        type="button"
        className="link-button"
        onClick={() => setShifts([...shifts, { days: [0, 1, 2, 3, 4], start_hour: 8, end_hour: 18, capacity: shifts[0]?.capacity ?? resource.capacity }])}
      >
        {shifts.length ? 'Add a shift' : 'Work in shifts (only during set hours)'}
      </button>
    </div>
  );
}

function ResourceFields({ world, resource, onWorld }: { world: World; resource: Resource; onWorld(world: World): void }) {
  const name = resourceName(world, resource.id);
  const users = resourceDependents(world, resource.id);
  return (
    <fieldset className="step-fieldset" data-testid="resource">
      <legend>{name}</legend>
      <NameField value={resource.label ?? name} onChange={(label) => onWorld(withResource(world, { ...resource, label: label.trim() ? label : undefined }))} />
      {!resource.shifts && (
        <QuantityInput
          world={world}
          label="How many at once"
          quantity="count"
          parameter={resource.capacity}
          min={0}
          onWorld={onWorld}
          onValue={(capacity) => onWorld(withResource(world, { ...resource, capacity }))}
        />
      )}
      <ShiftsForm world={world} resource={resource} onWorld={onWorld} />
      <RemoveButton
        what={`“${name}”`}
        consequences={users.map((u) => `${u}: it will be removed with it`)}
        refusal={world.steps.some((s) => s.resource === resource.id) ? `${users[0]}: give it another resource before removing “${name}”.` : undefined}
        onRemove={() => onWorld(removeResource(world, resource.id))}
      />
    </fieldset>
  );
}

export function ResourcesForm({ world, onWorld }: { world: World; onWorld(world: World): void }) {
  const [name, setName] = useState('');
  const id = useId();
  return (
    <section className="world-part" aria-labelledby={`${id}-heading`}>
      <h3 id={`${id}-heading`}>Staff and equipment</h3>
      {world.resources.length === 0 && <p className="muted small">None yet: a care step adds staff when it needs them.</p>}
      {world.resources.map((resource) => (
        <ResourceFields key={resource.id} world={world} resource={resource} onWorld={onWorld} />
      ))}
      <div className="add-row">
        <div className="field">
          <label htmlFor={id}>New staff or equipment</label>
          <input id={id} value={name} placeholder="e.g. Practice nurses" onChange={(e) => setName(e.target.value)} />
        </div>
        <button
          type="button"
          className="button"
          disabled={!name.trim()}
          onClick={() => {
            onWorld(addResource(world, name).world);
            setName('');
          }}
        >
          Add
        </button>
      </div>
    </section>
  );
}

const MEASURE_KINDS = [
  { value: 'time_between', label: 'How long from one step to another' },
  { value: 'count', label: 'How many people reach a step' },
  { value: 'turned_away', label: 'How many people are turned away at a full queue' },
  { value: 'utilisation', label: 'How busy staff or equipment are' },
  { value: 'queue_length', label: 'How many wait for staff or equipment' },
];

function NewMeasureForm({ world, onWorld }: { world: World; onWorld(world: World): void }) {
  const all = world.steps.map((s) => ({ value: s.id, label: stepName(world, s.id) }));
  const limited = world.steps.filter((s) => s.queue_limit).map((s) => ({ value: s.id, label: stepName(world, s.id) }));
  const resources = world.resources.map((r) => ({ value: r.id, label: resourceName(world, r.id) }));
  const [kind, setKind] = useState('time_between');
  const steps = kind === 'turned_away' ? limited : all;
  const [from, setFrom] = useState(steps[0]?.value ?? '');
  const [to, setTo] = useState(steps.at(-1)?.value ?? '');
  const [unit, setUnit] = useState<'minutes' | 'hours' | 'days'>('hours');
  const [resource, setResource] = useState(resources[0]?.value ?? '');
  const valid = (v: string, list: Array<{ value: string }>) => (list.some((o) => o.value === v) ? v : (list[0]?.value ?? ''));
  const wanted: NewMeasure =
    kind === 'time_between'
      ? { kind: 'time_between', from: valid(from, steps), to: valid(to, steps), unit }
      : kind === 'count' || kind === 'turned_away'
        ? { kind: 'count', step: valid(from, steps), at: kind === 'turned_away' ? 'turned_away' : 'enter' }
        : { kind: kind === 'utilisation' ? 'utilisation' : 'queue_length', resource: valid(resource, resources) };
  const ready = kind === 'utilisation' || kind === 'queue_length' ? resources.length > 0 : steps.length > 0;
  return (
    <fieldset className="step-fieldset">
      <legend>Measure something else</legend>
      <Choice label="What to measure" value={kind} options={MEASURE_KINDS} onChange={setKind} />
      {(kind === 'time_between' || kind === 'count' || (kind === 'turned_away' && steps.length > 0)) && (
        <Choice label={kind === 'time_between' ? 'From' : 'Step'} value={valid(from, steps)} options={steps} onChange={setFrom} />
      )}
      {kind === 'turned_away' && steps.length === 0 && (
        <p className="muted small">No step turns people away yet: choose “Turn people away when the queue is full” in a step's form first.</p>
      )}
      {kind === 'time_between' && <Choice label="To" value={valid(to, steps)} options={steps} onChange={setTo} />}
      {kind === 'time_between' && (
        <Choice
          label="In"
          value={unit}
          options={['minutes', 'hours', 'days'].map((u) => ({ value: u, label: u }))}
          onChange={(u) => setUnit(u as typeof unit)}
        />
      )}
      {(kind === 'utilisation' || kind === 'queue_length') && (
        <Choice label="Staff or equipment" value={valid(resource, resources)} options={resources} onChange={setResource} />
      )}
      <button type="button" className="button" disabled={!ready} onClick={() => onWorld(addMeasure(world, wanted))}>
        Add this measure
      </button>
    </fieldset>
  );
}

export function MeasuresForm({ world, onWorld }: { world: World; onWorld(world: World): void }) {
  const id = useId();
  return (
    <section className="world-part" aria-labelledby={id}>
      <h3 id={id}>What is measured</h3>
      <ul className="measure-list">
        {world.measured.map((measure) => {
          const name = measureName(world, measure.id);
          return (
            <li key={measure.id}>
              <NameField
                value={measure.label ?? name}
                onChange={(label) =>
                  onWorld({ ...world, measured: world.measured.map((m) => (m.id === measure.id ? { ...m, label: label.trim() ? label : undefined } : m)) })
                }
              />
              <span className="muted small">{unitWords(measure.unit)}</span>{' '}
              <RemoveButton
                what={`the measure “${name}”`}
                consequences={[]}
                refusal={world.measured.length === 1 ? 'A world needs at least one measure: add another before removing this one.' : undefined}
                onRemove={() => onWorld({ ...world, measured: world.measured.filter((m) => m.id !== measure.id) })}
              />
            </li>
          );
        })}
      </ul>
      <NewMeasureForm world={world} onWorld={onWorld} />
    </section>
  );
}

/** Adds a step of any kind after the selected one (or an arrival stream), by keyboard as well as by pointer. */
export function AddStepBar({
  world,
  after,
  onWorld,
  onAdded,
}: {
  world: World;
  after: string | null;
  onWorld(world: World): void;
  onAdded(kind: NewKind, id: string): void;
}) {
  const [kind, setKind] = useState<NewKind>('service');
  const [name, setName] = useState('');
  const id = useId();
  const where = after ? (world.steps.some((s) => s.id === after) ? `after “${stepName(world, after)}”` : 'after the selected arrivals') : 'on its own';
  return (
    <form
      className="add-step"
      aria-label="A new step"
      onSubmit={(event) => {
        event.preventDefault();
        const added = addStep(world, kind, name || NEW_KINDS.find((k) => k.kind === kind)!.name, kind === 'exit' ? null : after);
        onWorld(added.world);
        onAdded(kind, added.id);
        setName('');
      }}
    >
      <Choice label="Add a step" value={kind} options={NEW_KINDS.map((k) => ({ value: k.kind, label: k.label }))} onChange={(k) => setKind(k as NewKind)} />
      <div className="field">
        <label htmlFor={id}>Its name</label>
        <input id={id} value={name} placeholder={NEW_KINDS.find((k) => k.kind === kind)!.name} onChange={(e) => setName(e.target.value)} />
      </div>
      <button type="submit" className="button">
        {kind === 'exit' || kind === 'arrival' ? 'Add' : `Add ${where}`}
      </button>
    </form>
  );
}
