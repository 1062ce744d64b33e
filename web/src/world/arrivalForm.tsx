// The form of an arrival stream: its name, how people arrive (at random at an average rate with its unit, or by a
// timetable of arrivals per hour for a day that repeats or for a whole week, as a small table), and its first step.
import { CharacteristicsForm } from './rulesForm.tsx';
import { useEffect, useId, useState } from 'react';
import { type Arrival, type World, arrivalName, arrivalSummary, parameterValue, stepName } from './model.ts';
import { fromWorld, toWorld } from './quantities.ts';
import { removeArrival } from './edit.ts';
import { Choice, NameField, QuantityInput, RemoveButton } from './stepForm.tsx';

const DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
const HOURS = Array.from({ length: 24 }, (_, hour) => hour);
type Pattern = 'poisson' | 'day' | 'week' | 'other';

function patternOf(arrival: Arrival): Pattern {
  if (arrival.kind === 'poisson') return 'poisson';
  if (arrival.kind === 'rate_table') return (arrival.rates_per_hour as unknown[]).length === 1 ? 'day' : 'week';
  return 'other';
}

/** Arrivals per hour on average over the week, whatever the pattern. */
function perHour(world: World, arrival: Arrival): number {
  if (arrival.kind === 'poisson') return fromWorld(parameterValue(world, arrival.rate) ?? 0, 'per_hour', world.time_unit);
  if (arrival.kind === 'rate_table') {
    const rows = arrival.rates_per_hour as number[][];
    return rows.flat().reduce((a, b) => a + b, 0) / (rows.length * 24);
  }
  return 1;
}

/** The same stream under another pattern, at the same average rate (a timetable starts flat: every hour alike). */
function withPattern(world: World, arrival: Arrival, pattern: Pattern): Arrival {
  const { id, label, to_step, attributes } = arrival;
  const common = { id, ...(label ? { label } : {}), to_step, ...(attributes ? { attributes } : {}) };
  const hourly = Number(perHour(world, arrival).toPrecision(6));
  if (pattern === 'poisson') return { ...common, kind: 'poisson', rate: toWorld(hourly, 'per_hour', world.time_unit) };
  const day = arrival.kind === 'rate_table' ? (arrival.rates_per_hour as number[][])[0]! : HOURS.map(() => hourly);
  return { ...common, kind: 'rate_table', rates_per_hour: pattern === 'day' ? [day] : DAYS.map(() => [...day]) };
}

function Cell({ label, value, onChange }: { label: string; value: number; onChange(value: number): void }) {
  const [text, setText] = useState(String(value));
  useEffect(() => setText((current) => (Number(current) === value ? current : String(value))), [value]);
  const bad = text.trim() === '' || !Number.isFinite(Number(text)) || Number(text) < 0;
  return (
    <input
      className="cell"
      inputMode="decimal"
      aria-label={label}
      aria-invalid={bad || undefined}
      value={text}
      onChange={(e) => {
        setText(e.target.value);
        const number = Number(e.target.value);
        if (e.target.value.trim() !== '' && Number.isFinite(number) && number >= 0) onChange(number);
      }}
    />
  );
}

/** Arrivals per hour: one column for a day that repeats, seven for a week; rows are the hours of the day. */
function Timetable({ rows, onRows }: { rows: number[][]; onRows(rows: number[][]): void }) {
  const days = rows.length === 1 ? ['Every day'] : DAYS;
  const caption = useId();
  return (
    <div className="timetable-box">
      <table className="timetable" aria-labelledby={caption}>
        <caption id={caption}>Arrivals in each hour</caption>
        <thead>
          <tr>
            <th scope="col">Hour</th>
            {days.map((day) => (
              <th scope="col" key={day}>
                {day.slice(0, 3)}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {HOURS.map((hour) => (
            <tr key={hour}>
              <th scope="row">{`${String(hour).padStart(2, '0')}:00`}</th>
              {rows.map((row, day) => (
                <td key={days[day]}>
                  <Cell
                    label={`${days[day]}, ${String(hour).padStart(2, '0')}:00 to ${String(hour + 1).padStart(2, '0')}:00`}
                    value={row[hour] ?? 0}
                    onChange={(value) => onRows(rows.map((r, d) => (d === day ? r.map((v, h) => (h === hour ? value : v)) : r)))}
                  />
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function ArrivalPattern({
  world,
  arrival,
  onWorld,
  setArrival,
}: {
  world: World;
  arrival: Arrival;
  onWorld(world: World): void;
  setArrival(a: Arrival): void;
}) {
  const pattern = patternOf(arrival);
  const options = [
    { value: 'poisson', label: 'At random, at an average rate' },
    { value: 'day', label: 'By a timetable of the day, every day alike' },
    { value: 'week', label: 'By a timetable of the week' },
    ...(pattern === 'other' ? [{ value: 'other', label: `As written: ${arrivalSummary(world, arrival)}` }] : []),
  ];
  return (
    <>
      <Choice
        label="How people arrive"
        value={pattern}
        options={options}
        onChange={(next) => next !== 'other' && setArrival(withPattern(world, arrival, next as Pattern))}
      />
      {pattern === 'poisson' && (
        <QuantityInput
          world={world}
          label="Arrivals on average"
          quantity="rate"
          parameter={arrival.rate}
          min={0}
          onWorld={onWorld}
          onValue={(rate) => setArrival({ ...arrival, rate })}
          owner={arrivalName(world, arrival.id)}
          onParameter={(next, rate) => onWorld({ ...next, arrivals: next.arrivals.map((a) => (a.id === arrival.id ? { ...arrival, rate } : a)) })}
        />
      )}
      {(pattern === 'day' || pattern === 'week') && (
        <>
          <p className="muted small">{arrivalSummary(world, arrival)}.</p>
          <Timetable rows={arrival.rates_per_hour as number[][]} onRows={(rows) => setArrival({ ...arrival, rates_per_hour: rows })} />
        </>
      )}
      {pattern === 'other' && <p className="muted small">This pattern is edited in the Advanced tab; choose another above to edit it here.</p>}
    </>
  );
}

export function ArrivalForm({ world, arrival, onWorld, onRemoved }: { world: World; arrival: Arrival; onWorld(world: World): void; onRemoved(): void }) {
  const setArrival = (next: Arrival) => onWorld({ ...world, arrivals: world.arrivals.map((a) => (a.id === arrival.id ? next : a)) });
  const name = arrivalName(world, arrival.id);
  return (
    <div className="step-form" data-testid="step-form">
      <h3>
        {name} <span className="muted small">· Arrivals</span>
      </h3>
      <NameField value={arrival.label ?? name} onChange={(label) => setArrival({ ...arrival, label: label.trim() ? label : undefined })} />
      <ArrivalPattern world={world} arrival={arrival} onWorld={onWorld} setArrival={setArrival} />
      <CharacteristicsForm world={world} arrival={arrival} setArrival={setArrival} />
      <Choice
        label="First step"
        value={arrival.to_step}
        options={world.steps.map((s) => ({ value: s.id, label: stepName(world, s.id) }))}
        onChange={(to_step) => setArrival({ ...arrival, to_step })}
      />
      <RemoveButton
        what={`the arrivals “${name}”`}
        consequences={[]}
        refusal={world.arrivals.length === 1 ? 'A world needs at least one arrival stream: add another before removing this one.' : undefined}
        onRemove={() => {
          onWorld(removeArrival(world, arrival.id));
          onRemoved();
        }}
      />
    </div>
  );
}
