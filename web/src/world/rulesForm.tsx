// Characteristics and decisions by rule, in words: the people arriving have characteristics (urgency: urgent 30%,
// routine 70%), and a decision sends them by rule ("when urgency is urgent, goes to Same-day clinic; otherwise …")
// instead of at random. WorldSpec: an arrival's `attributes`, a branch `by: "rules"` (docs/simulation.md).
import { useId, useState } from 'react';
import { idFrom } from './edit.ts';
import { type Arrival, type Step, type World, humanize, stepName, withStep } from './model.ts';
import { fromPercent, toPercent } from './quantities.ts';
import { Choice, NumberInput } from './stepForm.tsx';

type Attribute = { name: string; values: Array<{ value: string | number; probability: number }> };
type Condition = { attribute: string; op: string; value: unknown };
type RuleOption = { when: Condition[]; next: string };

/** Every characteristic the world gives people (its arrivals' and its assign steps'), with the values it can take. */
export function characteristics(world: World): Map<string, Array<string | number>> {
  const out = new Map<string, Array<string | number>>();
  const add = (name: string, values: Array<string | number>) => out.set(name, [...new Set([...(out.get(name) ?? []), ...values])]);
  for (const arrival of world.arrivals)
    for (const a of (arrival.attributes ?? []) as Attribute[])
      add(
        a.name,
        a.values.map((v) => v.value),
      );
  for (const step of world.steps)
    if (step.kind === 'assign' && step.attribute)
      add(
        step.attribute,
        ((step.values ?? []) as Attribute['values']).map((v) => v.value),
      );
  return out;
}

/** One value of a characteristic and the share of people who have it. */
function CharacteristicValue({ id, attribute, j, onValues }: { id: string; attribute: Attribute; j: number; onValues(values: Attribute['values']): void }) {
  const v = attribute.values[j]!;
  const change = (patch: Partial<Attribute['values'][number]>) => onValues(attribute.values.map((o, k) => (k === j ? { ...o, ...patch } : o)));
  return (
    <div className="inline-form">
      <div className="field">
        <label htmlFor={id}>{`${humanize(attribute.name)}: value ${j + 1}`}</label>
        <input id={id} value={String(v.value)} onChange={(e) => change({ value: e.target.value })} />
      </div>
      <NumberInput
        label={`Share of people who are ${String(v.value) || `value ${j + 1}`}`}
        unit="%"
        value={toPercent(v.probability)}
        min={0}
        max={100}
        onChange={(typed) => change({ probability: fromPercent(typed) })}
      />
    </div>
  );
}

/** The characteristics of the people an arrival stream brings: each a name and its values with their shares. */
export function CharacteristicsForm({ world, arrival, setArrival }: { world: World; arrival: Arrival; setArrival(next: Arrival): void }) {
  const [name, setName] = useState('');
  const nameId = useId();
  const attributes = (arrival.attributes ?? []) as Attribute[];
  const set = (next: Attribute[]) => {
    const { attributes: _old, ...rest } = arrival;
    setArrival(next.length ? { ...rest, attributes: next } : rest);
  };
  const setValues = (index: number, values: Attribute['values']) => set(attributes.map((a, i) => (i === index ? { ...a, values } : a)));
  return (
    <fieldset className="step-fieldset">
      <legend>Characteristics of the people arriving</legend>
      {attributes.length === 0 && <p className="muted small">None yet. A decision can send people by a characteristic (urgency, age group…).</p>}
      {attributes.map((attribute, index) => (
        <div key={attribute.name} className="way" data-testid="characteristic">
          <strong>{humanize(attribute.name)}</strong>
          {attribute.values.map((v, j) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: values are positional and the form never reorders them
            <CharacteristicValue key={j} id={`${nameId}-${index}-${j}`} attribute={attribute} j={j} onValues={(values) => setValues(index, values)} />
          ))}
          <button type="button" className="link-button" onClick={() => setValues(index, [...attribute.values, { value: '', probability: 0 }])}>
            Add a value of {humanize(attribute.name).toLowerCase()}
          </button>
          <button type="button" className="link-button" onClick={() => set(attributes.filter((_, i) => i !== index))}>
            Remove {humanize(attribute.name).toLowerCase()}
          </button>
        </div>
      ))}
      <div className="add-row">
        <div className="field">
          <label htmlFor={nameId}>A new characteristic</label>
          <input id={nameId} value={name} placeholder="Urgency" onChange={(e) => setName(e.target.value)} />
        </div>
        <button
          type="button"
          className="button"
          disabled={!name.trim()}
          onClick={() => {
            const id = idFrom(name, new Set(characteristics(world).keys()), 'characteristic');
            set([
              ...attributes,
              {
                name: id,
                values: [
                  { value: 'yes', probability: 0.5 },
                  { value: 'no', probability: 0.5 },
                ],
              },
            ]);
            setName('');
          }}
        >
          Add this characteristic
        </button>
      </div>
    </fieldset>
  );
}

const OP_WORDS: Record<string, string> = {
  eq: 'is',
  ne: 'is not',
  lt: 'is less than',
  le: 'is at most',
  gt: 'is more than',
  ge: 'is at least',
  in: 'is one of',
};

/** The comparisons the form offers, in the words the rule is read in. */
const OPS = ['eq', 'ne', 'lt', 'gt'].map((value) => ({ value, label: OP_WORDS[value]! }));

/** A rule in words: "urgency is urgent and age is more than 65". */
export function ruleWords(when: Condition[]): string {
  return when
    .map((c) => `${humanize(c.attribute).toLowerCase()} ${OP_WORDS[c.op] ?? c.op} ${Array.isArray(c.value) ? c.value.join(', ') : String(c.value)}`)
    .join(' and ');
}

/** How a decision sends people: at random by shares, or by rules on their characteristics. */
export function RoutingChoice({ world, step, onWorld }: { world: World; step: Step; onWorld(world: World): void }) {
  const known = characteristics(world);
  const ways = (step.options ?? []).map((o) => o.next);
  const first = [...known.entries()][0];
  return (
    <>
      <Choice
        label="How people are sent on"
        value={step.by === 'rules' ? 'rules' : 'probability'}
        options={[
          { value: 'probability', label: 'At random, by shares' },
          ...(first || step.by === 'rules' ? [{ value: 'rules', label: 'By rules on their characteristics' }] : []),
        ]}
        onChange={(by) => {
          const { options: _o, otherwise: _w, by: _b, attribute: _a, ...rest } = step;
          if (by === 'rules' && first) {
            const option: RuleOption = { when: [{ attribute: first[0], op: 'eq', value: first[1][0] ?? '' }], next: ways[0] ?? step.id };
            onWorld(withStep(world, { ...rest, by: 'rules', options: [option], otherwise: ways[1] ?? ways[0] ?? step.id } as Step));
          } else if (by === 'probability') {
            const to = [...new Set([...ways, ...(step.otherwise ? [step.otherwise] : [])])];
            const share = to.length ? 1 / to.length : 1;
            onWorld(withStep(world, { ...rest, by: 'probability', options: to.map((next) => ({ probability: share, next })) } as Step));
          }
        }}
      />
      {!first && step.by !== 'rules' && (
        <p className="muted small">To send people by a characteristic (urgency, age group…), give the arrivals one in their form first.</p>
      )}
    </>
  );
}

/** A rule's one condition: a characteristic, how it compares, a value (several conditions: the Advanced tab). */
function RuleCondition({
  index,
  option,
  known,
  onCondition,
}: {
  index: number;
  option: RuleOption;
  known: Map<string, Array<string | number>>;
  onCondition(patch: Partial<Condition>): void;
}) {
  if (option.when.length !== 1) return <p className="muted small">This rule has several conditions: change them in the Advanced tab.</p>;
  const condition = option.when[0]!;
  const values = known.get(condition.attribute) ?? [];
  const names = [...known.keys()].map((name) => ({ value: name, label: humanize(name) }));
  return (
    <div className="inline-form">
      <Choice
        label={`Rule ${index + 1}: characteristic`}
        value={condition.attribute}
        options={names}
        onChange={(attribute) => onCondition({ attribute, value: known.get(attribute)?.[0] ?? '' })}
      />
      <Choice label={`Rule ${index + 1}: how it compares`} value={condition.op} options={OPS} onChange={(op) => onCondition({ op })} />
      {values.length > 0 && (condition.op === 'eq' || condition.op === 'ne') ? (
        <Choice
          label={`Rule ${index + 1}: value`}
          value={String(condition.value)}
          options={values.map((v) => ({ value: String(v), label: String(v) }))}
          onChange={(value) => onCondition({ value: values.find((v) => String(v) === value) ?? value })}
        />
      ) : (
        <NumberInput
          label={`Rule ${index + 1}: value`}
          value={typeof condition.value === 'number' ? condition.value : 0}
          onChange={(value) => onCondition({ value })}
        />
      )}
    </div>
  );
}

/** A decision by rules: each way a rule (a characteristic, how it compares, a value) and where it goes; otherwise. */
export function RulesForm({ world, step, onWorld }: { world: World; step: Step; onWorld(world: World): void }) {
  const known = characteristics(world);
  const options = (step.options ?? []) as RuleOption[];
  const others = world.steps.filter((s) => s.id !== step.id).map((s) => ({ value: s.id, label: stepName(world, s.id) }));
  const setOptions = (next: RuleOption[]) => onWorld(withStep(world, { ...step, options: next } as Step));
  const setCondition = (index: number, patch: Partial<Condition>) =>
    setOptions(options.map((o, i) => (i === index ? { ...o, when: [{ ...o.when[0]!, ...patch }, ...o.when.slice(1)] } : o)));
  return (
    <fieldset className="step-fieldset">
      <legend>Where people go, by rule</legend>
      <p className="muted small">The first rule that holds sends a person on; whoever no rule fits goes where “Everyone else goes to” says.</p>
      {options.map((option, index) => {
        return (
          // biome-ignore lint/suspicious/noArrayIndexKey: rules are positional (their order decides) and the form never reorders them
          <div className="way" key={index} data-testid="rule">
            <p className="small">
              <strong>Rule {index + 1}:</strong> when {ruleWords(option.when)}
            </p>
            <RuleCondition index={index} option={option} known={known} onCondition={(patch) => setCondition(index, patch)} />
            <Choice
              label={`Rule ${index + 1} goes to`}
              value={option.next}
              options={others}
              onChange={(next) => setOptions(options.map((o, i) => (i === index ? { ...o, next } : o)))}
            />
            {options.length > 1 && (
              <button type="button" className="link-button" onClick={() => setOptions(options.filter((_, i) => i !== index))}>
                Take away rule {index + 1}
              </button>
            )}
          </div>
        );
      })}
      <button
        type="button"
        className="link-button"
        onClick={() => {
          const [name, values] = [...known.entries()][0] ?? ['', []];
          setOptions([...options, { when: [{ attribute: name, op: 'eq', value: values[0] ?? '' }], next: others[0]?.value ?? step.id }]);
        }}
      >
        Add a rule
      </button>
      <Choice
        label="Everyone else goes to"
        value={step.otherwise ?? ''}
        options={others}
        onChange={(otherwise) => onWorld(withStep(world, { ...step, otherwise }))}
      />
    </fieldset>
  );
}
