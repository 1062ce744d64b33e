// Small words shared by the service and the app (through the SDK): a 95% interval of a quantity that cannot be negative kept at or above 0,
// a JSON pointer as a place, a setting's value. A run's measured values in their units are in resultWords.ts. The
// machine values (`unit`, `interval_95`, a finding's `numbers`) keep their codes and their computed figures. Pure.

/** Three significant figures, float noise removed. */
export function figure(value: number, digits = 3): string {
  return Number(value.toPrecision(digits)).toString();
}

/** The note beside an interval whose bound was moved to what the quantity can be. */
export const FEW_REPETITIONS_NOTE = 'too few repetitions to say more precisely';

/**
 * A 95% interval of a measured value as shown: a wait, a count or a queue cannot be below 0 and a share not above 100%,
 * so a bound past that is shown at the limit (`clipped`). Display only: the stored interval keeps its computed figures.
 * Not for differences, which may be negative.
 */
export function shownInterval(low: number | null, high: number | null, unit: string): { low: number | null; high: number | null; clipped: boolean } {
  const top = unit === 'fraction' ? 1 : Number.POSITIVE_INFINITY;
  const shownLow = low === null ? null : Math.min(Math.max(low, 0), top);
  const shownHigh = high === null ? null : Math.min(Math.max(high, 0), top);
  return { low: shownLow, high: shownHigh, clipped: shownLow !== low || shownHigh !== high };
}

const COLLECTION_ONE: Record<string, string> = {
  steps: 'step',
  arrivals: 'arrival',
  resources: 'resource',
  measures: 'measure',
  variants: 'variant',
  settings: 'setting',
  costs: 'cost',
  options: 'option',
};

/** A JSON pointer as a place a person can find (`/steps/2/duration` → "step 3, duration"); the pointer itself stays in details. */
export function placeInWorld(pointer: string): string {
  const parts = pointer.split('/').filter(Boolean);
  if (parts.length === 0) return 'the world as a whole';
  const words: string[] = [];
  for (let index = 0; index < parts.length; index++) {
    const part = parts[index]!.replaceAll('~1', '/').replaceAll('~0', '~');
    const next = parts[index + 1];
    const one = COLLECTION_ONE[part];
    if (one && next !== undefined) {
      words.push(`${one} ${/^\d+$/.test(next) ? Number(next) + 1 : `“${next.replaceAll('_', ' ')}”`}`);
      index++;
    } else words.push(/^\d+$/.test(part) ? `item ${Number(part) + 1}` : part.replaceAll('_', ' '));
  }
  return words.join(', ');
}

/** Three significant figures with the thousands grouped, as people write them: "12,500", "0.25". */
function groupedFigure(value: number): string {
  return Number(figure(value)).toLocaleString('en-GB', { maximumFractionDigits: 10 });
}

/**
 * A setting's value in words: a probability or a share as a percentage, a count as its exact number, a rate "per
 * hour"; thousands grouped ("1,234 beds", "12,500 per year").
 */
export function settingValueWords(value: number, unit: string): string {
  if (unit === 'probability' || unit === 'fraction') return `${groupedFigure(value * 100)}%`;
  if (unit === 'count') return value.toLocaleString('en-GB', { maximumFractionDigits: 10 });
  return `${groupedFigure(value)} ${unit.replaceAll('_', ' ')}`;
}

/**
 * Whether "still waiting at the end" says something beside a measure of this kind: a time's unfinished patients, a
 * queue's patients still in it. Beside a count it is everyone in the model, beside utilisation another queue (the CSV
 * and MetricSummary keep the number for every measure). Read by the export's report and the app.
 */
export function stillWaitingSays(kind: string): boolean {
  return kind === 'time_between' || kind === 'queue_length';
}
