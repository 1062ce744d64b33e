// Units of WorldSpec settings and parameters: a setting may be used only where its dimension fits (spec: WorldSpec and run).
// Time and rate units convert between minutes, hours and days; every other unit must match exactly in dimension.
import type { TimeUnit } from '../contracts/worldSpec.ts';

export type Dimension = 'time' | 'rate' | 'probability' | 'count' | 'dimensionless' | 'currency';

const MINUTES_PER: Record<TimeUnit, number> = { minutes: 1, hours: 60, days: 1440 };
const RATE_UNITS: Record<string, TimeUnit> = { per_minute: 'minutes', per_hour: 'hours', per_day: 'days' };

/** The dimension of a unit string, or null when the unit is not one the service knows. */
export function dimensionOf(unit: string): Dimension | null {
  if (unit in MINUTES_PER) return 'time';
  if (unit in RATE_UNITS) return 'rate';
  if (unit === 'probability') return 'probability';
  if (unit === 'count' || unit === 'entities') return 'count';
  if (unit === 'fraction' || unit === 'ratio' || unit === 'dimensionless') return 'dimensionless';
  if (/^[A-Z]{3}$/.test(unit)) return 'currency';
  return null;
}

export function minutesPer(unit: TimeUnit): number {
  return MINUTES_PER[unit];
}

/** World time units in one hour (60 for minutes, 1 for hours, 1/24 for days). */
export function unitsPerHour(unit: TimeUnit): number {
  return 60 / MINUTES_PER[unit];
}

/** Converts a value in `unit` to the world's time unit (durations) or per world time unit (rates); other dimensions pass through. */
export function toWorldUnit(value: number, unit: string, worldUnit: TimeUnit): number {
  if (unit in MINUTES_PER) return (value * MINUTES_PER[unit as TimeUnit]) / MINUTES_PER[worldUnit];
  const rateOf = RATE_UNITS[unit];
  if (rateOf !== undefined) return (value * MINUTES_PER[worldUnit]) / MINUTES_PER[rateOf];
  return value;
}

/** Converts a duration in world time units to a measure's time unit. */
export function convertTime(value: number, from: TimeUnit, to: TimeUnit): number {
  return (value * MINUTES_PER[from]) / MINUTES_PER[to];
}
