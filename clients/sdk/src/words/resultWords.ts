// A run's results as a clinician reads them, shared by the run page, the findings and the export's report: each measure
// in its natural unit (a share of people as a percentage, a count per repetition, a time in minutes, hours or days as
// fits), one sentence per comparison saying what it means in the model and how sure it is, totals with what they total
// over, and the event trace's moments as clock times. Model language only: it describes the model, never advises. Pure.
import { inSentence } from './sentences.ts';
import { FEW_REPETITIONS_NOTE, shownInterval } from './simulationWords.ts';

/** The parts of a measure the words read (a WorldSpec measure, or the app's looser copy of one). */
export type MeasureForWords = { id: string; label?: string; kind: string; unit: string };
/** The parts of a world the words read. */
export type WorldForWords = {
  time_unit: string;
  steps: ReadonlyArray<{ id: string; kind: string; label?: string }>;
  variants: ReadonlyArray<{ id: string; label: string }>;
  resources?: ReadonlyArray<{ id: string; label?: string }>;
  arrivals?: ReadonlyArray<{ kind: string }>;
};

/**
 * How a measure's values read: a time; a share of the available time (utilisation); a share of arrivals (a count per
 * arrival of a moment each person passes at most once); another count per arrival; a count per repetition or per day;
 * people waiting (a time-average queue).
 */
export type Scale = 'time' | 'share_of_time' | 'share_of_arrivals' | 'per_arrival' | 'per_repetition' | 'per_day' | 'waiting' | 'number';

type Fields = Record<string, unknown>;
const fields = (value: unknown): Fields => (value && typeof value === 'object' ? (value as Fields) : {});
const TIME_UNITS = ['minutes', 'hours', 'days'] as const;
export type TimeUnitWords = (typeof TIME_UNITS)[number];
const MINUTES_PER: Record<TimeUnitWords, number> = { minutes: 1, hours: 60, days: 1440 };
const isTimeUnit = (unit: string): unit is TimeUnitWords => (TIME_UNITS as readonly string[]).includes(unit);

export function measureScale(world: WorldForWords | undefined, measure: MeasureForWords): Scale {
  if (isTimeUnit(measure.unit)) return 'time';
  if (measure.unit === 'fraction') return 'share_of_time';
  if (measure.unit === 'count_per_arrival') return world && passedAtMostOnce(world, measure) ? 'share_of_arrivals' : 'per_arrival';
  if (measure.unit === 'count') return 'per_repetition';
  if (measure.unit === 'count_per_day') return 'per_day';
  if (measure.unit === 'entities') return 'waiting';
  return 'number';
}

/** The steps a step leads to: its next, its options', otherwise, where reneging and turned-away people go. */
function successors(step: Fields): string[] {
  const out = [step.next, step.otherwise, step.renege_to, fields(step.queue_limit).to];
  if (Array.isArray(step.options)) for (const option of step.options) out.push(fields(option).next);
  return out.filter((id): id is string => typeof id === 'string');
}

/** The steps of each variant: the world's, with a variant's structure applied (as the engine applies it). */
function variantSteps(world: WorldForWords): Fields[][] {
  const base = world.steps.map(fields);
  const out = [base];
  for (const variant of world.variants) {
    const structure = fields(fields(variant).structure);
    if (Object.keys(structure).length === 0) continue;
    const removed = new Set(Array.isArray(structure.remove_steps) ? structure.remove_steps : []);
    const replaced = new Map((Array.isArray(structure.replace_steps) ? structure.replace_steps : []).map((step) => [fields(step).id, fields(step)]));
    const added = (Array.isArray(structure.add_steps) ? structure.add_steps : []).map(fields);
    out.push([...base.filter((step) => !removed.has(step.id)).map((step) => replaced.get(step.id) ?? step), ...added]);
  }
  return out;
}

/** Whether a step can be reached again from itself (a loop in the pathway). */
function onLoop(steps: Fields[], id: string): boolean {
  const byId = new Map(steps.map((step) => [step.id, step]));
  const seen = new Set<unknown>();
  const stack = successors(byId.get(id) ?? {});
  while (stack.length > 0) {
    const next = stack.pop()!;
    if (next === id) return true;
    if (seen.has(next)) continue;
    seen.add(next);
    stack.push(...successors(byId.get(next) ?? {}));
  }
  return false;
}

/**
 * A count per arrival is a share of people when each person passes its moment at most once, in every variant: one moment
 * of a step no loop returns to (a start only where no pre-emption or breakdown can start a service again), or exits only
 * (a person leaves once). Otherwise it stays a count per arrival.
 */
function passedAtMostOnce(world: WorldForWords, measure: MeasureForWords): boolean {
  const event = fields(measure).event;
  const moments = (Array.isArray(event) ? event : [event]).map(fields);
  if (moments.length === 0 || moments.some((moment) => typeof moment.step !== 'string')) return false;
  const restartable = new Set((world.resources ?? []).filter((resource) => fields(resource).breakdowns !== undefined).map((resource) => resource.id));
  return variantSteps(world).every((steps) => {
    const byId = new Map(steps.map((step) => [step.id, step]));
    if (moments.length > 1) return moments.every((moment) => moment.at === 'enter' && byId.get(moment.step)?.kind === 'exit');
    const moment = moments[0]!;
    const step = byId.get(moment.step);
    if (!step) return true; // a step this variant does not have is never passed
    if (moment.at === 'start' && (step.preempt !== undefined || restartable.has(step.resource as string))) return false;
    return !onLoop(steps, moment.step as string);
  });
}

// ---------- numbers ----------

/** A number for reading: thousands separators, three significant figures, float noise removed. */
export function numberWords(value: number): string {
  if (!Number.isFinite(value)) return 'not known';
  const clean = Number(value.toPrecision(12)) || 0; // -0 reads as 0
  if (Number.isInteger(clean) || Math.abs(clean) >= 1000) return Math.round(clean).toLocaleString('en-GB');
  return clean.toLocaleString('en-GB', { maximumSignificantDigits: 3 });
}

/** A number said with "about": two significant figures ("2.1", "0.77", "1,200"). */
export function aboutWords(value: number): string {
  if (!Number.isFinite(value)) return 'not known';
  return (Number(value.toPrecision(12)) || 0).toLocaleString('en-GB', { maximumSignificantDigits: 2 });
}

/** The time unit that reads best for these times (in `unit`): minutes under 2 hours, hours under 2 days, days beyond. */
export function timeUnitFor(values: ReadonlyArray<number | null | undefined>, unit: string): TimeUnitWords {
  const perUnit = isTimeUnit(unit) ? MINUTES_PER[unit] : 1;
  const largest = Math.max(
    0,
    ...values.filter((value): value is number => typeof value === 'number' && Number.isFinite(value)).map((value) => Math.abs(value) * perUnit),
  );
  if (largest === 0) return isTimeUnit(unit) ? unit : 'minutes';
  return largest < 120 ? 'minutes' : largest < 2880 ? 'hours' : 'days';
}

const ONE: Record<TimeUnitWords, string> = { minutes: 'minute', hours: 'hour', days: 'day' };

/** Whole numbers exactly with thousands grouped, others to three significant figures: "2,880", "2.5", "12.3". */
const durationFigure = (value: number) =>
  (Number.isInteger(value) ? value : Number(value.toPrecision(3))).toLocaleString('en-GB', { maximumFractionDigits: 10 });

/**
 * A duration (in `unit`) in the largest unit it is at least 1 and a whole number of quarters of, as a person says it:
 * 2,880 minutes → "2 days", 150 minutes → "2.5 hours", 1,440 minutes → "1 day", 200 minutes → "200 minutes".
 */
export function durationWords(value: number, unit: string): string {
  if (!isTimeUnit(unit) || !Number.isFinite(value)) return `${durationFigure(value)} ${unit}`;
  const minutes = value * MINUTES_PER[unit];
  for (const shown of ['days', 'hours', 'minutes'] as const) {
    const said = Number((minutes / MINUTES_PER[shown]).toPrecision(12));
    if (said >= 1 && Math.abs(said * 4 - Math.round(said * 4)) < 1e-9) return `${durationFigure(said)} ${said === 1 ? ONE[shown] : shown}`;
  }
  return `${durationFigure(value)} ${value === 1 ? ONE[unit] : unit}`;
}

/** A time (in `unit`) in the unit shown: "45 minutes", "1 hour", "2.1 hours". */
function timeWords(value: number, unit: string, shown: TimeUnitWords, number: (value: number) => string): string {
  const converted = (value * (isTimeUnit(unit) ? MINUTES_PER[unit] : 1)) / MINUTES_PER[shown];
  const text = number(converted);
  return `${text} ${text === '1' ? ONE[shown] : shown}`;
}

/** What the measured values are, for a heading: "hours", "percent of arrivals", "number per repetition". */
export function scaleWords(scale: Scale, shownTime: TimeUnitWords): string {
  switch (scale) {
    case 'time':
      return shownTime;
    case 'share_of_time':
      return 'percent of the available time';
    case 'share_of_arrivals':
      return 'percent of arrivals';
    case 'per_arrival':
      return 'per arrival';
    case 'per_repetition':
      return 'number per repetition';
    case 'per_day':
      return 'per day';
    case 'waiting':
      return 'average number waiting';
    default:
      return 'number';
  }
}

export type ValueOptions = { difference?: boolean; about?: boolean; shownTime?: TimeUnitWords };

/**
 * A value (or, with `difference`, the size of a change) with its unit: "2.1 hours", "21.9%", "7.7 percentage points",
 * "480 per repetition", "0.4 per arrival", "3.2 a day", "0.42 people". Magnitudes: the sentence says the direction.
 */
export function scaledValueWords(value: number | null | undefined, unit: string, scale: Scale, options: ValueOptions = {}): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return 'not known';
  const number = options.about ? aboutWords : numberWords;
  switch (scale) {
    case 'time':
      return timeWords(value, unit, options.shownTime ?? timeUnitFor([value], unit), number);
    case 'share_of_time':
    case 'share_of_arrivals':
      return options.difference ? `${number(value * 100)} percentage points` : `${number(value * 100)}%`;
    case 'per_arrival':
      return `${number(value)} per arrival`;
    case 'per_repetition':
      return `${number(value)} per repetition`;
    case 'per_day':
      return `${number(value)} a day`;
    case 'waiting': {
      const text = number(value);
      return `${text} ${text === '1' ? 'person' : 'people'}`;
    }
    default:
      return number(value);
  }
}

// ---------- a variant's mean ----------

export type MeanForWords = { mean: number | null; unit: string; interval_95: { low: number | null; high: number | null }; n: number };

/** "from 5 repetitions", "from 1 repetition". */
export function repetitionCountWords(n: number): string {
  return `from ${numberWords(n)} ${n === 1 ? 'repetition' : 'repetitions'}`;
}

/**
 * A variant's mean in parts, for a line ("Usual care: 3.2 hours on average (95% interval 2.9 to 3.5 hours, from 5
 * repetitions)"): the value, what it is ("on average", "on average per repetition", "of arrivals"), the interval kept
 * within what the quantity can be (`clipped` says a bound was moved, with the note) and the repetitions.
 */
export function meanParts(summary: MeanForWords, scale: Scale, shownTime?: TimeUnitWords) {
  const shown = shownInterval(summary.interval_95.low, summary.interval_95.high, scale === 'share_of_arrivals' ? 'count' : summary.unit);
  const time = shownTime ?? timeUnitFor([summary.mean], summary.unit);
  const bare = (value: number | null) => scaledValueWords(value, summary.unit, scale, { shownTime: time }).replace(/ per repetition$/, '');
  const value = bare(summary.mean);
  const qualifier =
    summary.mean === null ? '' : scale === 'share_of_arrivals' ? 'of arrivals' : scale === 'per_repetition' ? 'on average per repetition' : 'on average';
  const interval =
    summary.interval_95.low === null || summary.interval_95.high === null
      ? 'too few repetitions for an interval'
      : `95% interval ${rangeWords(bare(shown.low), bare(shown.high))}`;
  return { value, qualifier, interval, repetitions: repetitionCountWords(summary.n), clipped: shown.clipped, note: FEW_REPETITIONS_NOTE };
}

/** "2.9 to 3.5 hours" when both ends carry the same unit, else each with its own ("1 hour to 2.5 hours"). */
function rangeWords(low: string, high: string): string {
  const unitOf = (text: string) => text.replace(/^[-−\d.,]+/, '');
  const lowUnit = unitOf(low);
  if (lowUnit === unitOf(high) && lowUnit !== '' && !lowUnit.startsWith('%')) return `${low.slice(0, low.length - lowUnit.length)} to ${high}`;
  return `${low} to ${high}`;
}

/** A variant's mean as one line: "3.2 hours on average (95% interval 2.9 to 3.5 hours, from 5 repetitions)". */
export function meanWords(summary: MeanForWords, scale: Scale, shownTime?: TimeUnitWords): string {
  const parts = meanParts(summary, scale, shownTime);
  return `${[parts.value, parts.qualifier].filter(Boolean).join(' ')} (${parts.interval}, ${parts.repetitions}${parts.clipped ? `: ${parts.note}` : ''})`;
}

// ---------- a comparison ----------

/** What a measure is called inside a sentence: "the average wait for a bed", "emergency admissions". */
export function measureSubject(measure: MeasureForWords): string {
  const label = inSentence((measure.label ?? measure.id.replaceAll('_', ' ')).trim());
  if (measure.kind !== 'time_between' || /^(the|average|mean)\b/i.test(label)) return label;
  return `the average ${label}`;
}

/** A measure's name as a heading: its label with a capital. */
export function measureHeading(measure: MeasureForWords): string {
  const label = (measure.label ?? measure.id.replaceAll('_', ' ')).trim();
  return label.charAt(0).toUpperCase() + label.slice(1);
}

export type ComparisonForWords = {
  mean_difference: number | null;
  sd_difference?: number | null;
  interval_95: { low: number | null; high: number | null };
  n_pairs: number;
  unit: string;
};

/** "from 5 pairs of repetitions run under the same conditions". */
export function pairsWords(pairs: number): string {
  return `from ${numberWords(pairs)} ${pairs === 1 ? 'pair' : 'pairs'} of repetitions run under the same conditions`;
}

const DIRECTION: Record<'time' | 'other', { down: string; up: string; lower: string; higher: string }> = {
  time: { down: 'shortens', up: 'lengthens', lower: 'shorter', higher: 'longer' },
  other: { down: 'lowers', up: 'raises', lower: 'lower', higher: 'higher' },
};

/** The interval of a change in words: "1.4 to 2.8 hours" on one side of no change, "from 0.9 hours shorter to 0.3 hours longer" across it. */
function changeRangeWords(low: number, high: number, size: (value: number) => string, words: { lower: string; higher: string }): string {
  if (low >= 0 || high <= 0) {
    const [near, far] = low >= 0 ? [low, high] : [-high, -low];
    return rangeWords(size(near), size(far));
  }
  return `from ${size(-low)} ${words.lower} to ${size(high)} ${words.higher}`;
}

/**
 * One sentence on what a paired comparison means in the model and how sure it is, from its 95% interval: "Remote
 * monitoring lowers emergency admissions by about 120 per repetition compared with usual care (95% interval 90 to 150
 * per repetition, from 5 pairs of repetitions run under the same conditions); the interval excludes no change, so this
 * is a clear difference in the model."
 */
export function comparisonSentence(treatment: string, baseline: string, measure: MeasureForWords, scale: Scale, metric: ComparisonForWords): string {
  const subject = measureSubject(measure);
  const against = `compared with ${inSentence(baseline)}`;
  const { mean_difference: mean, n_pairs: pairs } = metric;
  const { low, high } = metric.interval_95;
  if (mean === null || pairs === 0)
    return `There is no comparison of ${subject} between ${treatment} and ${inSentence(baseline)}: no pair of repetitions has a value for both.`;
  if (mean === 0 && (pairs === 1 || (low === 0 && high === 0)))
    return `${treatment} gives the same result for ${subject} as ${inSentence(baseline)} in ${pairs === 1 ? 'the one pair' : `every one of the ${numberWords(pairs)} pairs`} of repetitions run under the same conditions: in the model this change does not affect it.`;
  const shownTime = timeUnitFor([mean, low, high], metric.unit);
  const size = (value: number) => scaledValueWords(value, metric.unit, scale, { difference: true, about: true, shownTime });
  const words = DIRECTION[scale === 'time' ? 'time' : 'other'];
  const change = mean === 0 ? `does not change ${subject} on average` : `${mean < 0 ? words.down : words.up} ${subject} by about ${size(Math.abs(mean))}`;
  if (low === null || high === null) return `${treatment} ${change} ${against} (${pairsWords(pairs)}); with one pair the model cannot say how sure this is.`;
  const clear = low > 0 || high < 0;
  const sure = clear
    ? 'the interval excludes no change, so this is a clear difference in the model'
    : 'the interval includes no change, so the model does not show a clear difference';
  return `${treatment} ${change} ${against} (95% interval ${changeRangeWords(low, high, size, words)}, ${pairsWords(pairs)}); ${sure}.`;
}

// ---------- totals ----------

/**
 * People whose time had not ended when the simulated period ended, as an average per repetition with the total it
 * comes from: "On average 1.3 people per repetition had not reached the end of this measure when the simulated period
 * ended (13 over 10 repetitions; left out of the average)."
 */
export function unfinishedWords(total: number, repetitions: number, censoring: string | undefined, what = 'this measure'): string {
  const per = repetitions > 0 ? total / repetitions : total;
  const perText = numberWords(per);
  const how = censoring === 'at_horizon' ? 'counted up to the end of the period' : 'left out of the average';
  const over = `${numberWords(total)} over ${numberWords(repetitions)} ${repetitions === 1 ? 'repetition' : 'repetitions'}`;
  return `On average ${perText} ${perText === '1' ? 'person' : 'people'} per repetition had not reached the end of ${what} when the simulated period ended (${over}; ${how}).`;
}

// ---------- the event trace ----------

/**
 * Minutes after Monday 00:00 at which the world's time 0 falls: Monday 00:00, unless the world has no shifts and its
 * rate tables all start elsewhere (`start` {weekday, hour}), whose clock the world then keeps.
 */
export function clockStartMinutes(world: WorldForWords): number {
  if ((world.resources ?? []).some((resource) => Array.isArray(fields(resource).shifts))) return 0;
  const starts = new Set(
    (world.arrivals ?? [])
      .filter((arrival) => arrival.kind === 'rate_table')
      .map((arrival) => {
        const start = fields(fields(arrival).start);
        return (typeof start.weekday === 'number' ? start.weekday : 0) * 1440 + (typeof start.hour === 'number' ? start.hour : 0) * 60;
      }),
  );
  return starts.size === 1 ? [...starts][0]! : 0;
}

/** A moment of the model as a clock time: "day 2, 08:00" (day 1 is the day the simulated period starts in). */
export function clockWords(time: number, world: WorldForWords): string {
  const start = clockStartMinutes(world);
  const unit = isTimeUnit(world.time_unit) ? world.time_unit : 'minutes';
  const minutes = Math.round(start + time * MINUTES_PER[unit]);
  const day = Math.floor(minutes / 1440) - Math.floor(start / 1440) + 1;
  const ofDay = minutes - Math.floor(minutes / 1440) * 1440;
  const two = (value: number) => String(value).padStart(2, '0');
  return `day ${numberWords(day)}, ${two(Math.floor(ofDay / 60))}:${two(ofDay % 60)}`;
}

/** A person of the trace by their number in the repetition (the trace counts arrivals from 0): "Person 12". */
export function personWords(entity: number | null): string {
  return entity === null ? '' : `Person ${numberWords(entity + 1)}`;
}

/** A step by its label, else its id as words. */
export function stepWords(world: WorldForWords | undefined, id: string | null): string {
  if (!id) return '';
  const label = world?.steps.find((step) => step.id === id)?.label;
  if (label) return label;
  const words = id.replaceAll('_', ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** A resource by its label, else its id as words. */
export function resourceWords(world: WorldForWords | undefined, id: string | null): string {
  if (!id) return '';
  const label = world?.resources?.find((resource) => resource.id === id)?.label;
  if (label) return label;
  const words = id.replaceAll('_', ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

const AXIS_TIME: Record<TimeUnitWords, string> = { minutes: ' min', hours: ' h', days: ' days' };

/** A chart's tick label: short (the heading names the unit), float noise removed, shares as percentages, a change with its sign. */
export function axisWords(value: number, unit: string, scale: Scale, options: { difference?: boolean; shownTime?: TimeUnitWords } = {}): string {
  const signDisplay = options.difference ? ('exceptZero' as const) : ('auto' as const);
  const number = (v: number) => {
    const clean = Number(v.toPrecision(10));
    return Math.abs(clean) >= 1000 || Number.isInteger(clean)
      ? Math.round(clean).toLocaleString('en-GB', { signDisplay })
      : clean.toLocaleString('en-GB', { maximumSignificantDigits: 3, signDisplay });
  };
  if (scale === 'share_of_time' || scale === 'share_of_arrivals') return options.difference ? `${number(value * 100)} pts` : `${number(value * 100)}%`;
  if (scale === 'time') {
    const shown = options.shownTime ?? timeUnitFor([value], unit);
    return `${number((value * (isTimeUnit(unit) ? MINUTES_PER[unit] : 1)) / MINUTES_PER[shown])}${AXIS_TIME[shown]}`;
  }
  return number(value);
}

/** An amount of money: "£12,345", "£45.50"; "not known" for an unknown amount. */
export function moneyWords(value: number | null | undefined, currency: string): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return 'not known';
  try {
    return value.toLocaleString('en-GB', { style: 'currency', currency, maximumFractionDigits: Math.abs(value) >= 100 || Number.isInteger(value) ? 0 : 2 });
  } catch {
    return `${numberWords(value)} ${currency}`;
  }
}
