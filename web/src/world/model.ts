// A world (WorldSpec 1.0.0, docs/simulation.md) as a person reads it: names instead of ids, durations with their
// units, the pathway as a graph (arrivals → steps → exits, resources on the steps) and each JSON pointer of a
// problem as a place in words. The app has no generated type for the world (the API publishes its JSON Schema), so
// the shape is kept loosely here: the validator on the server is the judge.
import { problemSentence } from '../../../clients/sdk/src/words/index.ts';
import { durationWords, stillWaitingSays } from '../../../clients/sdk/src/words/index.ts';
import {
  RATE_WORDS,
  type RateUnit,
  TIME_UNIT_ONE,
  type TimeUnit,
  fromWorld,
  isRateUnit,
  isTimeUnit,
  naturalRateUnit,
  naturalTimeUnit,
  toWorld,
} from './quantities.ts';

export type Parameter = number | { setting: string };
export type Distribution = { dist: string; [field: string]: unknown };
export type Setting = { value: number; unit: string; source: unknown; description?: string };
export type Step = {
  id: string;
  label?: string;
  kind: string;
  next?: string;
  resource?: string;
  duration?: Distribution;
  by?: string;
  attribute?: string;
  options?: Array<{ next: string; probability?: Parameter; equals?: unknown; when?: unknown }>;
  otherwise?: string;
  renege_to?: string;
  queue_limit?: { to?: string; [field: string]: unknown };
  [field: string]: unknown;
};
export type Arrival = { id: string; label?: string; kind: string; to_step: string; rate?: Parameter; [field: string]: unknown };
export type Resource = { id: string; label?: string; capacity: Parameter; shifts?: unknown[]; [field: string]: unknown };
export type Measure = { id: string; label?: string; kind: string; unit: string; [field: string]: unknown };
export type Variant = {
  id: string;
  label: string;
  role: string;
  changes: Array<{ setting: string; value: number; rationale?: string }>;
  [field: string]: unknown;
};
export type World = {
  name: string;
  description?: string;
  time_unit: 'minutes' | 'hours' | 'days';
  horizon: number;
  warm_up: number;
  replications: number;
  seed: number;
  settings: Record<string, Setting>;
  arrivals: Arrival[];
  resources: Resource[];
  steps: Step[];
  measured: Measure[];
  variants: Variant[];
  cost_scenarios?: { currency: string; [field: string]: unknown };
  [field: string]: unknown;
};

export function isWorld(value: unknown): value is World {
  const w = value as World | null;
  return !!w && typeof w === 'object' && Array.isArray(w.steps) && Array.isArray(w.arrivals) && Array.isArray(w.resources);
}

/** Abbreviations an id writes in lower case that people write in capitals. */
const ACRONYMS = new Set(['gp', 'gps', 'ct', 'mri', 'ai', 'icu', 'nhs', 'ecg', 'ed', 'ae', 'hdu', 'ent', 'ot', 'uk', 'ok']);
/** `discharged_from_service` → `Discharged from service`, `gp_appointment` → `GP appointment`: an id read as words. */
export function humanize(id: string): string {
  const words = id
    .split('_')
    .filter(Boolean)
    .map((word) => (ACRONYMS.has(word) ? word.toUpperCase() : word))
    .join(' ');
  return words ? words[0]!.toUpperCase() + words.slice(1) : id;
}

export const resourceName = (world: World, id: string | undefined): string => {
  const resource = world.resources.find((r) => r.id === id);
  return resource?.label ?? humanize(id ?? '');
};
export const variantName = (world: World | undefined, id: string): string => world?.variants.find((v) => v.id === id)?.label ?? humanize(id);
export const measureName = (world: World | undefined, id: string): string => {
  const label = world?.measured.find((m) => m.id === id)?.label ?? humanize(id);
  return label[0]!.toUpperCase() + label.slice(1);
};
/** A step by its label, or its id read as words when it has none. */
export const stepName = (world: World, id: string): string => world.steps.find((s) => s.id === id)?.label ?? humanize(id);
export const arrivalName = (world: World, id: string): string => world.arrivals.find((a) => a.id === id)?.label ?? humanize(id);

// ---------- numbers ----------
const SIGNIFICANT = 3;
/** A number with thousands separators; non-integers to three significant figures (at most two decimals above 100). */
export function formatNumber(value: number | null | undefined, options: { sign?: boolean } = {}): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return 'not known';
  const signDisplay = options.sign ? ('exceptZero' as const) : ('auto' as const);
  if (Number.isInteger(value) || Math.abs(value) >= 1000) return Math.round(value).toLocaleString('en-GB', { signDisplay });
  return value.toLocaleString('en-GB', { maximumSignificantDigits: SIGNIFICANT, signDisplay });
}

export function formatCurrency(value: number | null | undefined, currency: string): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return 'not known';
  return value.toLocaleString('en-GB', { style: 'currency', currency, maximumFractionDigits: Math.abs(value) >= 100 ? 0 : 2 });
}

/** `8 days`, `1 day`, `0.5 hours`. */
export function formatTime(value: number, unit: string): string {
  return `${formatNumber(value)} ${value === 1 ? (TIME_UNIT_ONE[unit as TimeUnit] ?? unit) : unit}`;
}

/** A duration in world time units said in the unit people would say it in (40,320 minutes → 28 days), or in `unit`. */
export function sayTime(world: World, value: number, unit: TimeUnit = naturalTimeUnit(value, world.time_unit)): string {
  return formatTime(fromWorld(value, unit, world.time_unit), unit);
}

/**
 * When a measure counts, in the units people say (world minutes 1,440 to 10,080 → "from 1 day to 7 days into the
 * simulated time"); a window that starts at zero is "over the first 7 days".
 */
export function windowWords(window: { start: number; end: number; unit: string }): string {
  if (window.start === 0) return `over the first ${durationWords(window.end, window.unit)} of the simulated time`;
  return `from ${durationWords(window.start, window.unit)} to ${durationWords(window.end, window.unit)} into the simulated time`;
}

/** A rate per world time unit said per hour, day or minute (`4 an hour`). */
export function sayRate(world: World, value: number, unit: RateUnit = naturalRateUnit(value, world.time_unit)): string {
  return `${formatNumber(fromWorld(value, unit, world.time_unit))} ${RATE_WORDS[unit]}`;
}

/** A run's repetitions in one statement, per variant where they divide evenly: "All 10 repetitions done: 5 for each of the 2 variants". */
export function repetitionsWords(completed: number, requested: number, variants: number): string {
  const per = variants > 0 && requested > 0 && requested % variants === 0 ? requested / variants : null;
  const each =
    per === null ? '' : variants === 1 ? `${formatNumber(per)} of the one variant` : `${formatNumber(per)} for each of the ${formatNumber(variants)} variants`;
  if (completed >= requested && requested > 0) return `All ${formatNumber(requested)} repetitions done${each ? `: ${each}` : ''}`;
  return `${formatNumber(completed)} of ${formatNumber(requested)} repetitions done${each ? ` (${each})` : ''}`;
}

/**
 * What was still waiting when the simulation ended, beside a measure, as a sentence (a mean over repetitions), or null
 * where it says nothing about the measure. The engine reports it for every measure, but it means: for a time measure,
 * the patients whose time had not ended (left out of or cut at the end of the average); for a queue, the patients
 * still in it. Beside a count or a share of busy time it is the people in the model or another queue: not shown.
 */
export function stillWaitingWords(kind: string, mean: number | null): string | null {
  // fewer than half a patient on average rounds to none: nothing a reader needs told
  if (mean === null || !(mean >= 0.5) || !stillWaitingSays(kind)) return null;
  const count = Math.round(mean);
  const who = `${Number.isInteger(mean) ? '' : 'about '}${formatNumber(count)} ${count === 1 ? 'patient' : 'patients'}`;
  return kind === 'time_between'
    ? `On average ${who} had started this time but not finished it when the simulation ended.`
    : `On average ${who} ${count === 1 ? 'was' : 'were'} still waiting in this queue when the simulation ended.`;
}

/** What a measure's unit means, for a heading: "hours per patient", "share of the time busy". */
export function unitWords(unit: string): string {
  const words: Record<string, string> = {
    minutes: 'minutes',
    hours: 'hours',
    days: 'days',
    fraction: 'percent of the available time',
    count: 'count over the measured period',
    count_per_arrival: 'per arrival',
    count_per_day: 'per day',
    entities: 'average number waiting',
  };
  return words[unit] ?? humanize(unit).toLowerCase();
}

/** A setting's value in its own unit: probabilities and fractions as percentages, times and rates with their unit. */
export function formatSetting(value: number, unit: string): string {
  if (unit === 'probability' || unit === 'fraction') return `${formatNumber(Number((value * 100).toPrecision(10)))}%`;
  if (isTimeUnit(unit)) return formatTime(value, unit);
  if (isRateUnit(unit)) return `${formatNumber(value)} ${RATE_WORDS[unit]}`;
  if (/^[A-Z]{3}$/.test(unit)) return formatCurrency(value, unit);
  return formatNumber(value);
}

/** A setting's name for a person: its description when it has one, else its name as words (`p_gp` → `Share: GP`). */
export function settingName(world: World, name: string): string {
  const description = world.settings[name]?.description;
  if (description) return description[0]!.toUpperCase() + description.slice(1);
  return name.startsWith('p_') ? `Share: ${humanize(name.slice(2)).replace(/^[A-Z](?=[a-z])/, (c) => c.toLowerCase())}` : humanize(name);
}

// ---------- parameters and distributions ----------
/** The setting a parameter names, or null for a plain number. */
export const settingOf = (parameter: unknown): string | null => (parameter as { setting?: string } | null)?.setting ?? null;

/**
 * A parameter as the engine reads it: a plain number as it is (in the world's time unit, a rate per world time unit),
 * a setting converted from its own unit (20 minutes in a world counted in days is 0.0139).
 */
export function parameterValue(world: World, parameter: unknown): number | null {
  if (typeof parameter === 'number') return parameter;
  const setting = settingOf(parameter);
  const named = setting ? world.settings[setting] : undefined;
  return named ? toWorld(named.value, named.unit, world.time_unit) : null;
}

export const DISTRIBUTIONS: Record<string, { name: string; fields: Array<{ key: string; label: string }> }> = {
  fixed: { name: 'Always the same', fields: [{ key: 'value', label: 'Duration' }] },
  exponential: { name: 'Exponential: varies a lot', fields: [{ key: 'mean', label: 'Average duration' }] },
  lognormal: {
    name: 'Log-normal: near the average, sometimes much longer',
    fields: [
      { key: 'mean', label: 'Average duration' },
      { key: 'sd', label: 'Spread, as a standard deviation' },
    ],
  },
  uniform: {
    name: 'Uniform: anywhere from a shortest to a longest',
    fields: [
      { key: 'min', label: 'Shortest' },
      { key: 'max', label: 'Longest' },
    ],
  },
  triangular: {
    name: 'Triangular: shortest, most likely, longest',
    fields: [
      { key: 'min', label: 'Shortest' },
      { key: 'mode', label: 'Most likely' },
      { key: 'max', label: 'Longest' },
    ],
  },
  gamma: {
    name: 'Gamma: shape and scale',
    fields: [
      { key: 'shape', label: 'Shape (no unit)' },
      { key: 'scale', label: 'Scale' },
    ],
  },
};

/** The values of a duration in world time units, by field (a setting converted from its unit); null where one is missing. */
function durationValues(world: World, duration: Distribution, keys: string[]): number[] | null {
  const values = keys.map((key) => parameterValue(world, duration[key]));
  return values.every((v) => v !== null) ? (values as number[]) : null;
}

/** One unit for all the values of a duration, the one its typical value is said in. */
function sayTimes(world: World, values: number[], typical: number): string[] {
  const unit = naturalTimeUnit(typical, world.time_unit);
  return values.map((value) => sayTime(world, value, unit));
}

/** "8 days on average", "2 to 15 minutes, most often 6 minutes", each time in the unit people would say it in. */
export function describeDuration(world: World, duration: Distribution | undefined): string {
  if (!duration) return '';
  const fields: Record<string, { keys: string[]; typical: (v: number[]) => number; say: (t: string[]) => string }> = {
    fixed: { keys: ['value'], typical: (v) => v[0]!, say: (t) => t[0]! },
    exponential: { keys: ['mean'], typical: (v) => v[0]!, say: (t) => `${t[0]} on average` },
    lognormal: { keys: ['mean'], typical: (v) => v[0]!, say: (t) => `${t[0]} on average` },
    normal: { keys: ['mean', 'sd'], typical: (v) => v[0]!, say: (t) => `around ${t[0]} (spread ${t[1]})` },
    uniform: { keys: ['min', 'max'], typical: (v) => (v[0]! + v[1]!) / 2, say: (t) => `${t[0]} to ${t[1]}` },
    triangular: { keys: ['min', 'mode', 'max'], typical: (v) => v[1]!, say: (t) => `${t[0]} to ${t[2]}, most often ${t[1]}` },
  };
  if (duration.dist === 'gamma') {
    const shape = typeof duration.shape === 'number' ? duration.shape : parameterValue(world, duration.shape);
    const scale = parameterValue(world, duration.scale);
    return shape !== null && scale !== null ? `${sayTime(world, shape * scale)} on average` : 'varies (gamma)';
  }
  if (duration.dist === 'empirical') return 'from observed values';
  const known = fields[duration.dist];
  if (!known) return humanize(duration.dist);
  const values = durationValues(world, duration, known.keys);
  return values ? known.say(sayTimes(world, values, known.typical(values))) : 'a setting not yet given';
}

const STEP_KINDS: Record<string, string> = {
  service: 'Care step',
  delay: 'Time passes',
  branch: 'Decision',
  assign: 'Record a characteristic',
  seize: 'Takes a resource',
  release: 'Gives back a resource',
  exit: 'Leaves the pathway',
};
export const stepKindName = (kind: string) => STEP_KINDS[kind] ?? humanize(kind);

const OP_LABELS: Record<string, string> = { eq: 'is', ne: 'is not', lt: 'under', le: 'at most', gt: 'over', ge: 'at least', in: 'one of' };
/** A rule on an arrow: "Urgency is urgent". */
function ruleLabel(when: Array<{ attribute: string; op: string; value: unknown }>): string {
  return when.map((c) => `${humanize(c.attribute)} ${OP_LABELS[c.op] ?? c.op} ${Array.isArray(c.value) ? c.value.join(', ') : String(c.value)}`).join(' and ');
}

/** The steps an entity can go to from a step, with the condition in words. */
export function stepEdges(world: World, step: Step): Array<{ to: string; label?: string; dashed?: boolean }> {
  const edges: Array<{ to: string; label?: string; dashed?: boolean }> = [];
  if (step.next) edges.push({ to: step.next });
  for (const option of step.options ?? []) {
    let label: string | undefined;
    if (option.probability !== undefined) {
      const p = parameterValue(world, option.probability);
      label = p === null ? undefined : `${formatNumber(p * 100)}%`;
    } else if (option.equals !== undefined) label = `${humanize(step.attribute ?? '')} is ${String(option.equals)}`;
    else if (Array.isArray(option.when)) label = ruleLabel(option.when as Array<{ attribute: string; op: string; value: unknown }>);
    edges.push({ to: option.next, label });
  }
  if (step.otherwise) edges.push({ to: step.otherwise, label: 'otherwise' });
  if (step.renege_to) edges.push({ to: step.renege_to, label: 'gives up waiting', dashed: true });
  if (step.queue_limit?.to) edges.push({ to: step.queue_limit.to, label: 'turned away: queue full', dashed: true });
  return edges;
}

/** Arrivals in a week of a rate table, as the engine reads it (a one-day table repeats every day; `scale` multiplies). */
export function timetableWeek(world: World, arrival: Arrival): number {
  const rows = (arrival.rates_per_hour as number[][] | undefined) ?? [];
  const scale = arrival.scale === undefined ? 1 : (parameterValue(world, arrival.scale) ?? 1);
  const total = rows.reduce((sum, row) => sum + row.reduce((a, b) => a + b, 0), 0);
  return (rows.length === 1 ? total * 7 : total) * scale;
}

/** How people arrive, with the rate in the unit its setting is given in (`about 4 an hour, at random`). */
export function arrivalSummary(world: World, arrival: Arrival): string {
  if (arrival.kind === 'poisson') {
    const rate = parameterValue(world, arrival.rate);
    const unit = world.settings[settingOf(arrival.rate) ?? '']?.unit;
    const groups = arrival.batch_sizes ? ' (in groups)' : '';
    return rate === null ? 'at random' : `about ${sayRate(world, rate, unit && isRateUnit(unit) ? unit : undefined)}, at random${groups}`;
  }
  if (arrival.kind === 'renewal') {
    const every = describeDuration(world, arrival.interarrival as Distribution | undefined);
    return every ? `one every ${every}` : 'at intervals drawn from a distribution';
  }
  if (arrival.kind === 'scheduled') {
    const count = (arrival.times as number[] | undefined)?.length ?? 0;
    const period = typeof arrival.period === 'number' ? ` every ${sayTime(world, arrival.period)}` : '';
    return `${formatNumber(count)} at set times${period}`;
  }
  if (arrival.kind === 'rate_table') {
    const week = timetableWeek(world, arrival);
    return (arrival.rates_per_hour as unknown[]).length === 1
      ? `about ${formatNumber(week / 7)} a day, by hour of the day`
      : `about ${formatNumber(week)} a week, by hour of the week`;
  }
  return humanize(arrival.kind);
}

// ---------- problems: a JSON pointer as a place in words ----------
const COLLECTIONS: Record<string, { one: string; name?: (world: World, index: number) => string | undefined }> = {
  steps: { one: 'step', name: (w, i) => (w.steps[i] ? stepName(w, w.steps[i]!.id) : undefined) },
  arrivals: { one: 'arrivals', name: (w, i) => (w.arrivals[i] ? arrivalName(w, w.arrivals[i]!.id) : undefined) },
  resources: { one: 'resource', name: (w, i) => (w.resources[i] ? resourceName(w, w.resources[i]!.id) : undefined) },
  measured: { one: 'measure', name: (w, i) => (w.measured[i] ? measureName(w, w.measured[i]!.id) : undefined) },
  variants: { one: 'variant', name: (w, i) => w.variants[i]?.label },
  settings: { one: 'setting' },
};

/** The world's own numbers by the names the editor's form gives them. */
const WORLD_FIELDS: Record<string, string> = {
  horizon: 'Simulated period',
  warm_up: 'Warm-up',
  replications: 'Repetitions per variant',
  time_unit: 'Time unit',
  seed: 'Random seed',
};

/** "/steps/2/duration/mean" → "Step “Admission”: duration, mean". */
export function placeInWords(world: World | null, pointer: string): string {
  const parts = pointer
    .split('/')
    .slice(1)
    .map((p) => p.replaceAll('~1', '/').replaceAll('~0', '~'));
  if (parts.length === 0) return 'The world';
  const [head, second, ...rest] = parts;
  if (parts.length === 1 && WORLD_FIELDS[head!]) return WORLD_FIELDS[head!]!;
  const collection = COLLECTIONS[head!];
  if (collection && second !== undefined) {
    const index = Number(second);
    const named =
      world && Number.isInteger(index)
        ? collection.name?.(world, index)
        : head === 'settings'
          ? world
            ? settingName(world, second)
            : humanize(second)
          : undefined;
    const where = `${humanize(collection.one)} ${named ? `“${named}”` : Number.isInteger(index) ? index + 1 : `“${humanize(second)}”`}`;
    const tail = rest.filter((p) => !/^\d+$/.test(p)).map((p) => humanize(p).toLowerCase());
    return tail.length ? `${where}: ${tail.join(', ')}` : where;
  }
  return parts
    .filter((p) => !/^\d+$/.test(p))
    .map((p) => humanize(p).toLowerCase())
    .join(', ')
    .replace(/^./, (c) => c.toUpperCase());
}

/** A message from the service read as words: identifiers with underscores become words, pointers become places. */
export function plainText(message: string, world: World | null = null): string {
  return message
    .replace(
      /(^|[\s("'])(\/[A-Za-z0-9_~-]+(?:\/[A-Za-z0-9_~-]+)*)/g,
      (_m, before: string, pointer: string) => `${before}${placeInWords(world, pointer).toLowerCase()}`,
    )
    .replace(/\b[a-z]+(?:_[a-z0-9]+)+\b/g, (id) => id.replaceAll('_', ' '))
    .replace(/\b(?:GET|POST|PUT|PATCH|DELETE) \/v1\/\S+/g, 'the service')
    .replace(/\bWorldSpec\b/g, 'world')
    .replace(/\bmust be >= /g, 'must be at least ')
    .replace(/\bmust be <= /g, 'must be at most ')
    .replace(/\bmust be > /g, 'must be more than ')
    .replace(/\bmust be < /g, 'must be less than ');
}

/**
 * A model problem as a person reads it: the step (or other part) by its name and what to change in words, from the
 * checker's own sentences (clients/sdk/src/words/problemWords.ts); a message it does not know keeps its place and is read
 * as words. The pointer and the message as sent stay in the technical details.
 */
export function problemText(world: World | null, problem: { pointer?: string; message: string }): string {
  const known = problemSentence(world, { pointer: problem.pointer ?? '', message: problem.message });
  if (known) return known;
  const text = plainText(problem.message, world);
  return problem.pointer === undefined ? text : `${placeInWords(world, problem.pointer)}: ${text}`;
}

/** A copy of the world with one step replaced. */
export function withStep(world: World, step: Step): World {
  return { ...world, steps: world.steps.map((s) => (s.id === step.id ? step : s)) };
}
export function withSetting(world: World, name: string, value: number): World {
  const setting = world.settings[name];
  if (!setting) return world;
  return { ...world, settings: { ...world.settings, [name]: { ...setting, value } } };
}
export function withResource(world: World, resource: Resource): World {
  return { ...world, resources: world.resources.map((r) => (r.id === resource.id ? resource : r)) };
}
