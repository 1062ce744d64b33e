// Durations, rates and shares as people say them: a number with its unit (minutes, hours or days; an hour, a day; a
// percentage), converted exactly to and from the world's time unit the way the engine reads a world: a plain number
// is in the world's time unit (a rate is per world time unit), a setting is converted from its own unit.
// The conversion is the engine's (domain/simulation/units.ts), kept here so the app stays a client of the service;
// a unit test holds the two together on every sample world.

export type TimeUnit = 'minutes' | 'hours' | 'days';
export type RateUnit = 'per_minute' | 'per_hour' | 'per_day';
export const TIME_UNITS: TimeUnit[] = ['minutes', 'hours', 'days'];
export const RATE_UNITS: RateUnit[] = ['per_hour', 'per_day', 'per_minute'];

const MINUTES_PER: Record<TimeUnit, number> = { minutes: 1, hours: 60, days: 1440 };
const RATE_OF: Record<RateUnit, TimeUnit> = { per_minute: 'minutes', per_hour: 'hours', per_day: 'days' };

export const isTimeUnit = (unit: string): unit is TimeUnit => unit in MINUTES_PER;
export const isRateUnit = (unit: string): unit is RateUnit => unit in RATE_OF;
export const isShareUnit = (unit: string): boolean => unit === 'probability' || unit === 'fraction';

/** Float noise removed (0.1 + 0.2 → 0.3): twelve significant figures, far beyond what any input carries. */
export const exact = (value: number): number => Number(value.toPrecision(12));

/** A value in `unit` in the world's time unit (a duration) or per world time unit (a rate); other units pass through. */
export function toWorld(value: number, unit: string, world: TimeUnit): number {
  if (isTimeUnit(unit)) return exact((value * MINUTES_PER[unit]) / MINUTES_PER[world]);
  if (isRateUnit(unit)) return exact((value * MINUTES_PER[world]) / MINUTES_PER[RATE_OF[unit]]);
  return value;
}

/** The inverse of toWorld: a value in world units read in `unit`. */
export function fromWorld(value: number, unit: string, world: TimeUnit): number {
  if (isTimeUnit(unit)) return exact((value * MINUTES_PER[world]) / MINUTES_PER[unit]);
  if (isRateUnit(unit)) return exact((value * MINUTES_PER[RATE_OF[unit]]) / MINUTES_PER[world]);
  return value;
}

const quarter = (value: number) => Math.abs(value * 4 - Math.round(value * 4)) < 1e-9;

/** The unit a duration is most naturally said in: the largest in which it is at least 1 and a whole number of quarters. */
export function naturalTimeUnit(value: number, world: TimeUnit): TimeUnit {
  for (const unit of ['days', 'hours', 'minutes'] as TimeUnit[]) {
    const said = fromWorld(value, unit, world);
    if (said >= 1 && quarter(said)) return unit;
  }
  return world;
}

/** The unit a rate is most naturally said in: an hour when at least one an hour arrives, else a day (a minute when very busy). */
export function naturalRateUnit(perWorldUnit: number, world: TimeUnit): RateUnit {
  const perHour = fromWorld(perWorldUnit, 'per_hour', world);
  if (perHour >= 600) return 'per_minute';
  return perHour >= 1 || perHour === 0 ? 'per_hour' : 'per_day';
}

export const TIME_UNIT_ONE: Record<TimeUnit, string> = { minutes: 'minute', hours: 'hour', days: 'day' };
export const RATE_WORDS: Record<RateUnit, string> = { per_minute: 'a minute', per_hour: 'an hour', per_day: 'a day' };
/** What a unit select offers: "minutes", "an hour". */
export const UNIT_CHOICES: Record<string, string> = {
  minutes: 'minutes',
  hours: 'hours',
  days: 'days',
  per_minute: 'a minute',
  per_hour: 'an hour',
  per_day: 'a day',
};

/** A share as a percentage number (0.3 → 30) and back, without float noise. */
export const toPercent = (share: number): number => exact(share * 100);
export const fromPercent = (percent: number): number => exact(percent / 100);
