// Editing a world from the diagram: add a step of any kind, connect, rename, remove (saying first what depends on it),
// add and remove resources and measures, and a world made from nothing. Pure functions from a world to a new world;
// the service's validator stays the judge of the result.
import { type Arrival, type Measure, type Resource, type Step, type World, arrivalName, measureName, resourceName, stepName } from './model.ts';
import { toWorld } from './quantities.ts';

export type NewKind = 'arrival' | 'service' | 'delay' | 'branch' | 'seize' | 'release' | 'exit';
export const NEW_KINDS: Array<{ kind: NewKind; name: string; label: string }> = [
  { kind: 'arrival', name: 'Arrivals', label: 'Arrivals: where people come from' },
  { kind: 'service', name: 'Care step', label: 'Care step: needs staff or equipment, takes time' },
  { kind: 'delay', name: 'Time passes', label: 'Time passes: no one is needed' },
  { kind: 'branch', name: 'Decision', label: 'Decision: people go one way or another' },
  { kind: 'seize', name: 'Takes a resource', label: 'Takes a resource and holds it' },
  { kind: 'release', name: 'Gives back a resource', label: 'Gives the resource back' },
  { kind: 'exit', name: 'Leaves', label: 'Leaves the pathway' },
];

/** An id from a name: "GP appointment" → "gp_appointment" (lower case, digits, underscores; starts with a letter). */
export function idFrom(name: string, taken: Set<string>, fallback = 'step'): string {
  const base = (
    name
      .toLowerCase()
      .normalize('NFKD')
      .replace(/[^a-z0-9]+/g, '_')
      .replace(/^_+|_+$/g, '')
      .replace(/^(?=[0-9])/, 's_') || fallback
  ).slice(0, 56);
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) if (!taken.has(`${base}_${n}`)) return `${base}_${n}`;
}

const takenIds = (world: World) => new Set([...world.steps.map((s) => s.id), ...world.arrivals.map((a) => a.id)]);

/** The first step where people leave, made when the world has none. */
function anExit(world: World): { world: World; id: string } {
  const exit = world.steps.find((s) => s.kind === 'exit');
  if (exit) return { world, id: exit.id };
  const id = idFrom('leaves', takenIds(world));
  return { world: { ...world, steps: [...world.steps, { id, label: 'Leaves the pathway', kind: 'exit' }] }, id };
}

/** A resource for a new step: the first the world has, or new staff. */
function aResource(world: World): { world: World; id: string } {
  const first = world.resources[0];
  if (first) return { world, id: first.id };
  const resource: Resource = { id: 'staff', label: 'Staff', capacity: 1 };
  return { world: { ...world, resources: [...world.resources, resource] }, id: resource.id };
}

/** The step a new step goes on to: where the selected step went, else where people leave. */
function followOn(world: World, after: string | null): { world: World; next: string } {
  const step = world.steps.find((s) => s.id === after);
  const arrival = world.arrivals.find((a) => a.id === after);
  const next = step?.next ?? arrival?.to_step;
  if (next) return { world, next };
  const exit = anExit(world);
  return { world: exit.world, next: exit.id };
}

/** The selected step (or arrival) now leads to `id`. */
function leadTo(world: World, after: string | null, id: string): World {
  if (world.arrivals.some((a) => a.id === after)) return { ...world, arrivals: world.arrivals.map((a) => (a.id === after ? { ...a, to_step: id } : a)) };
  return { ...world, steps: world.steps.map((s) => (s.id === after && s.next !== undefined ? { ...s, next: id } : s)) };
}

/**
 * Adds a step (or an arrival stream) named `name` after the selected one: it takes the selected step's place in the
 * pathway (the selected step now leads to it, and it leads where that step went). Returns the world and the new id.
 */
export function addStep(world: World, kind: NewKind, name: string, after: string | null): { world: World; id: string } {
  const id = idFrom(name, takenIds(world), kind);
  const label = name.trim() || NEW_KINDS.find((k) => k.kind === kind)!.name;
  if (kind === 'arrival') {
    const to = world.steps.find((s) => s.id === after)?.id ?? world.steps[0]?.id ?? anExit(world).id;
    const base = world.steps.length ? world : anExit(world).world;
    const arrival: Arrival = { id, label, kind: 'poisson', rate: toWorld(1, 'per_hour', world.time_unit), to_step: to };
    return { world: { ...base, arrivals: [...base.arrivals, arrival] }, id };
  }
  if (kind === 'exit') return { world: { ...world, steps: [...world.steps, { id, label, kind: 'exit' }] }, id };
  const { world: withNext, next } = followOn(world, after);
  let step: Step;
  let base = withNext;
  if (kind === 'service' || kind === 'seize' || kind === 'release') {
    const resource = aResource(base);
    base = resource.world;
    step =
      kind === 'service'
        ? { id, label, kind, resource: resource.id, duration: { dist: 'exponential', mean: toWorld(20, 'minutes', world.time_unit) }, next }
        : { id, label, kind, resource: resource.id, next };
  } else if (kind === 'delay') step = { id, label, kind, duration: { dist: 'fixed', value: toWorld(1, 'hours', world.time_unit) }, next };
  else {
    const exit = anExit(base);
    base = exit.world;
    step = {
      id,
      label,
      kind: 'branch',
      by: 'probability',
      options: [
        { probability: 0.5, next },
        { probability: 0.5, next: exit.id === next ? next : exit.id },
      ],
    };
  }
  const added = { ...base, steps: [...base.steps, step] };
  return { world: after ? leadTo(added, after, id) : added, id };
}

/** Connects a step or an arrival stream to a step: its next step, or a new way out of a decision (with no share yet). */
export function connect(world: World, from: { kind: 'step' | 'arrival'; id: string }, to: string): World {
  if (from.kind === 'arrival') return { ...world, arrivals: world.arrivals.map((a) => (a.id === from.id ? { ...a, to_step: to } : a)) };
  const step = world.steps.find((s) => s.id === from.id);
  if (!step || step.id === to || step.kind === 'exit') return world;
  if (step.next !== undefined) return { ...world, steps: world.steps.map((s) => (s.id === step.id ? { ...s, next: to } : s)) };
  if (step.by === 'probability' && step.options && !step.options.some((o) => o.next === to)) {
    const options = [...step.options, { probability: 0, next: to }];
    return { ...world, steps: world.steps.map((s) => (s.id === step.id ? { ...s, options } : s)) };
  }
  if (step.otherwise !== undefined) return { ...world, steps: world.steps.map((s) => (s.id === step.id ? { ...s, otherwise: to } : s)) };
  return world;
}

/** Every moment a measure counts or times, as step ids. */
function measureSteps(measure: Measure): string[] {
  return ['from', 'to', 'event'].flatMap((field) => {
    const refs = measure[field];
    const list = Array.isArray(refs) ? refs : refs ? [refs] : [];
    return list.map((ref) => (ref as { step: string }).step);
  });
}

const leadsTo = (step: Step, id: string) =>
  step.next === id || step.otherwise === id || step.renege_to === id || step.queue_limit?.to === id || (step.options ?? []).some((o) => o.next === id);

/** What depends on a step, in words: who goes on to it, which arrivals start at it, which measures and variants use it. */
export function stepDependents(world: World, id: string): string[] {
  const before = world.steps.filter((s) => s.id !== id && leadsTo(s, id)).map((s) => `“${stepName(world, s.id)}” goes on to it`);
  const arrivals = world.arrivals.filter((a) => a.to_step === id).map((a) => `the arrivals “${arrivalName(world, a.id)}” start at it`);
  const measures = world.measured.filter((m) => measureSteps(m).includes(id)).map((m) => `the measure “${measureName(world, m.id)}” uses it`);
  const variants = world.variants.filter((v) => JSON.stringify(v.structure ?? {}).includes(`"${id}"`)).map((v) => `the variant “${v.label}” changes it`);
  return [...before, ...arrivals, ...measures, ...variants];
}

/** What removing a step does to what depends on it, in words (the confirmation a person reads). */
export function removalWords(world: World, id: string): string[] {
  const step = world.steps.find((s) => s.id === id);
  const instead = step?.next ? `“${stepName(world, step.next)}”` : null;
  return stepDependents(world, id).map((dependent) =>
    dependent.includes('measure') || dependent.includes('variant')
      ? `${dependent}: it will be removed with the step`
      : instead
        ? `${dependent}: it will go on to ${instead} instead`
        : `${dependent}: connect it to another step afterwards`,
  );
}

/** Removes a step: what went on to it goes where it went (its `next`), the measures that use it go with it. */
export function removeStep(world: World, id: string): World {
  const removed = world.steps.find((s) => s.id === id);
  if (!removed) return world;
  const instead = removed.next;
  const swap = (target: string | undefined) => (target === id ? instead : target);
  const steps = world.steps
    .filter((s) => s.id !== id)
    .map((s) => {
      const next: Step = { ...s };
      if (s.next === id && instead) next.next = instead;
      if (s.otherwise === id && instead) next.otherwise = instead;
      if (s.renege_to === id) next.renege_to = swap(s.renege_to);
      if (s.queue_limit?.to === id) next.queue_limit = { ...s.queue_limit, to: swap(s.queue_limit.to) };
      if (s.options?.some((o) => o.next === id))
        next.options = instead ? s.options.map((o) => (o.next === id ? { ...o, next: instead } : o)) : s.options.filter((o) => o.next !== id);
      return next;
    });
  const arrivals = world.arrivals.map((a) => (a.to_step === id ? { ...a, to_step: instead ?? steps[0]?.id ?? a.to_step } : a));
  const measured = world.measured.filter((m) => !measureSteps(m).includes(id));
  return { ...world, steps, arrivals, measured };
}

export function removeArrival(world: World, id: string): World {
  return { ...world, arrivals: world.arrivals.filter((a) => a.id !== id) };
}

/** What uses a resource, in words. */
export function resourceDependents(world: World, id: string): string[] {
  return [
    ...world.steps.filter((s) => s.resource === id).map((s) => `“${stepName(world, s.id)}” needs it`),
    ...world.measured.filter((m) => m.resource === id).map((m) => `the measure “${measureName(world, m.id)}” uses it`),
  ];
}

export function addResource(world: World, name: string): { world: World; id: string } {
  const id = idFrom(name, new Set(world.resources.map((r) => r.id)), 'resource');
  return { world: { ...world, resources: [...world.resources, { id, label: name.trim() || 'Staff', capacity: 1 }] }, id };
}

/** Removes a resource no step needs (the caller names the steps that do); its measures go with it. */
export function removeResource(world: World, id: string): World {
  if (world.steps.some((s) => s.resource === id)) return world;
  return { ...world, resources: world.resources.filter((r) => r.id !== id), measured: world.measured.filter((m) => m.resource !== id) };
}

export type NewMeasure =
  | { kind: 'time_between'; from: string; to: string; unit: 'minutes' | 'hours' | 'days' }
  | { kind: 'count'; step: string; at?: 'enter' | 'turned_away' }
  | { kind: 'utilisation' | 'queue_length'; resource: string };

/** A measure in words, named from what it measures ("Time from Triage to GP appointment"). */
export function addMeasure(world: World, wanted: NewMeasure): World {
  const taken = new Set(world.measured.map((m) => m.id));
  let measure: Measure;
  if (wanted.kind === 'time_between') {
    const label = `time from ${stepName(world, wanted.from)} to ${stepName(world, wanted.to)}`;
    measure = {
      id: idFrom(label, taken, 'measure'),
      label,
      kind: 'time_between',
      from: { step: wanted.from, at: 'enter' },
      to: { step: wanted.to, at: 'enter' },
      unit: wanted.unit,
      denominator: 'entity',
      censoring: 'at_horizon',
    };
  } else if (wanted.kind === 'count') {
    const label = wanted.at === 'turned_away' ? `people turned away at ${stepName(world, wanted.step)}` : `people reaching ${stepName(world, wanted.step)}`;
    measure = {
      id: idFrom(label, taken, 'measure'),
      label,
      kind: 'count',
      event: { step: wanted.step, at: wanted.at ?? 'enter' },
      unit: 'count',
      denominator: 'replication',
      censoring: 'none',
    };
  } else {
    const resource = resourceName(world, wanted.resource);
    const label = wanted.kind === 'utilisation' ? `how busy ${resource} are` : `people waiting for ${resource}`;
    measure = {
      id: idFrom(label, taken, 'measure'),
      label,
      kind: wanted.kind,
      resource: wanted.resource,
      unit: wanted.kind === 'utilisation' ? 'fraction' : 'entities',
      denominator: wanted.kind === 'utilisation' ? 'capacity_time' : 'time',
      censoring: 'none',
    };
  }
  return { ...world, measured: [...world.measured, measure] };
}

/**
 * A world made from nothing: people arrive at random (1 an hour) and leave, one measure counts them, and usual care
 * is the baseline. It validates as it is; the diagram adds the steps between.
 */
export function blankWorld(): World {
  return {
    contract: 'WorldSpec',
    version: '1.0.0',
    name: 'My care pathway',
    time_unit: 'minutes',
    horizon: 28 * 1440,
    warm_up: 7 * 1440,
    replications: 10,
    seed: 1,
    settings: {},
    arrivals: [{ id: 'patients', label: 'Patients', kind: 'poisson', rate: toWorld(1, 'per_hour', 'minutes'), to_step: 'leaves' }],
    resources: [],
    steps: [{ id: 'leaves', label: 'Leaves the pathway', kind: 'exit' }],
    measured: [
      {
        id: 'people_leaving',
        label: 'people leaving the pathway',
        kind: 'count',
        event: { step: 'leaves', at: 'enter' },
        unit: 'count',
        denominator: 'replication',
        censoring: 'none',
      },
    ],
    variants: [
      { id: 'usual_care', label: 'Usual care', role: 'baseline', changes: [] },
      { id: 'with_the_change', label: 'With the change', role: 'treatment', changes: [] },
    ],
  };
}
