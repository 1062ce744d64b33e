// Rate tables with a trend and holidays, and shifts that start or end between whole hours (docs/simulation.md,
// Model features and their checks). Seeds are fixed, so each check is deterministic.
import { describe, expect, it } from 'vitest';
import type { WorldSpec } from '../../domain/contracts/worldSpec.ts';
import { costReport, estimateRun, runSequential, summarize, validateWorld } from '../../domain/simulation/index.ts';

const REPLICATIONS = 20;

/** Arrivals counted at the exit they go straight to, in three windows (days): the first week, the holiday block, a late week. */
function trendWorld(): WorldSpec {
  const weekday = Array.from({ length: 24 }, () => 4);
  const sunday = Array.from({ length: 24 }, () => 0.5);
  const count = (id: string, start: number, end: number) =>
    ({
      id,
      kind: 'count',
      event: { step: 'done', at: 'enter' },
      unit: 'count',
      denominator: 'replication',
      censoring: 'none',
      window: { start, end },
    }) as const;
  return {
    contract: 'WorldSpec',
    version: '1.0.0',
    name: 'Growing demand with a closure',
    synthetic: true,
    time_unit: 'days',
    horizon: 730,
    warm_up: 0,
    replications: REPLICATIONS,
    seed: 41,
    settings: { growth: { value: 1, unit: 'fraction', source: { kind: 'assumption', rationale: 'demand doubles each year (test)' } } },
    arrivals: [
      {
        id: 'referrals',
        kind: 'rate_table',
        rates_per_hour: [weekday, weekday, weekday, weekday, weekday, weekday, sunday],
        growth_per_year: { setting: 'growth' },
        // Days 28 to 55 (weeks 5 to 8) follow the Sunday row.
        holidays: Array.from({ length: 28 }, (_, index) => ({ day: 28 + index })),
        to_step: 'done',
      },
    ],
    resources: [],
    steps: [{ id: 'done', kind: 'exit' }],
    measured: [count('first_week', 0, 7), count('holidays', 28, 56), count('late_week', 700, 707)],
    variants: [
      { id: 'baseline', label: 'Demand', role: 'baseline', changes: [] },
      { id: 'treatment', label: 'Same', role: 'treatment', changes: [] },
    ],
  };
}

/** The integrated rate over [startDay, endDay): each hour's table rate times the integral of 2^(t / 365.25 days) over the hour. */
function integratedRate(startDay: number, endDay: number, isHoliday: (day: number) => boolean): number {
  const growthPerHour = Math.log(2) / (365.25 * 24);
  let total = 0;
  for (let hour = startDay * 24; hour < endDay * 24; hour++) {
    const day = Math.floor(hour / 24);
    const rate = isHoliday(day) || day % 7 === 6 ? 0.5 : 4;
    total += (rate * (Math.exp(growthPerHour * (hour + 1)) - Math.exp(growthPerHour * hour))) / growthPerHour;
  }
  return total;
}

describe('rate tables with a trend and holidays', () => {
  it(`counts arrivals per window within 4% of the table's integrated rate (${REPLICATIONS} replications)`, () => {
    const world = trendWorld();
    expect(validateWorld(world).problems).toEqual([]);
    const results = runSequential(world, {
      jobs: Array.from({ length: REPLICATIONS }, (_, index) => ({ variant_id: 'baseline', replication_index: index, trace_limit: 0 })),
    });
    const mean = (id: string) => summarize(world, results).find((summary) => summary.measure_id === id && summary.variant_id === 'baseline')!.mean!;
    const holiday = (day: number) => day >= 28 && day < 56;
    const firstWeek = integratedRate(0, 7, holiday); // 588 x ~1.0
    const holidays = integratedRate(28, 56, holiday); // 336 x ~1.06
    const lateWeek = integratedRate(700, 707, holiday); // 588 x ~3.8
    expect(Math.abs(mean('first_week') - firstWeek) / firstWeek).toBeLessThan(0.04);
    expect(Math.abs(mean('holidays') - holidays) / holidays).toBeLessThan(0.04);
    expect(Math.abs(mean('late_week') - lateWeek) / lateWeek).toBeLessThan(0.04);
    // The estimate integrates the same rates: total arrivals over the horizon within 2%.
    const expected = integratedRate(0, 730, holiday);
    const estimate = estimateRun({ ...world, replications: 1 });
    const arrivals = results.reduce((sum, result) => sum + result.event_counts.arrivals, 0) / REPLICATIONS;
    expect(Math.abs(arrivals - expected) / expected).toBeLessThan(0.02);
    expect(Math.abs(estimate.events_per_replication_estimate.baseline! - expected) / expected).toBeLessThan(0.01);
  });

  it('refuses a holiday listed twice and a growth below -99%, at their pointers', () => {
    const world = trendWorld();
    const arrival = world.arrivals[0]!;
    if (arrival.kind === 'rate_table') {
      arrival.holidays!.push({ day: 28 });
      arrival.growth_per_year = -1.5;
    }
    const pointers = validateWorld(world).problems.map((problem) => problem.pointer);
    expect(pointers).toContain('/arrivals/0/holidays/28/day');
    expect(pointers.some((pointer) => pointer.startsWith('/arrivals/0/growth_per_year'))).toBe(true);
  });
});

/** Two nurses on weekdays from 08:30 to 17:15; one patient a weekday arrives at 08:00 for exactly one hour. */
function shiftWorld(): WorldSpec {
  return {
    contract: 'WorldSpec',
    version: '1.0.0',
    name: 'Half-hour shifts',
    synthetic: true,
    time_unit: 'hours',
    horizon: 336,
    warm_up: 0,
    replications: 1,
    seed: 1,
    settings: {},
    arrivals: [{ id: 'patients', kind: 'scheduled', times: [8, 32, 56, 80, 104], period: 168, to_step: 'visit' }],
    resources: [{ id: 'nurse', capacity: 0, shifts: [{ days: [0, 1, 2, 3, 4], start_hour: 8.5, end_hour: 17.25, capacity: 2 }] }],
    steps: [
      { id: 'visit', kind: 'service', resource: 'nurse', duration: { dist: 'fixed', value: 1 }, next: 'done' },
      { id: 'done', kind: 'exit' },
    ],
    measured: [
      {
        id: 'wait',
        kind: 'time_between',
        from: { step: 'visit', at: 'enter' },
        to: { step: 'visit', at: 'start' },
        unit: 'minutes',
        denominator: 'entity',
        censoring: 'exclude',
      },
      { id: 'nurse_use', kind: 'utilisation', resource: 'nurse', unit: 'fraction', denominator: 'capacity_time', censoring: 'none' },
    ],
    variants: [
      { id: 'baseline', label: 'Current', role: 'baseline', changes: [] },
      { id: 'treatment', label: 'Same', role: 'treatment', changes: [] },
    ],
    cost_scenarios: {
      currency: 'GBP',
      rates: [{ id: 'staffing', measure: 'nurse_use', per: 'capacity_hour', low: 1, base: 1, high: 1, source: { kind: 'user_declared' } }],
    },
  };
}

describe('shifts that start or end between whole hours', () => {
  it('opens at 08:30 and closes at 17:15: 30-minute waits, 175 nurse-hours in two weeks, 20 capacity changes, as computed by hand', () => {
    const world = shiftWorld();
    expect(validateWorld(world).problems).toEqual([]);
    const results = runSequential(world);
    const baseline = results.find((result) => result.variant_id === 'baseline')!;
    expect(summarize(world, results).find((summary) => summary.measure_id === 'wait' && summary.variant_id === 'baseline')!.mean).toBeCloseTo(30, 9);
    const staffing = costReport(world, results)!.variants[0]!.lines[0]!;
    expect(staffing.mean_quantity).toBeCloseTo(2 * 8.75 * 5 * 2, 9); // 175 nurse-hours
    expect(baseline.measures[1]!.value).toBeCloseTo(10 / 175, 9); // ten one-hour visits
    expect(baseline.event_counts.capacity_changes).toBe(20);
    expect(estimateRun(world).events_per_replication_estimate.baseline).toBe(10 + 10 + 20); // arrivals, service ends, capacity changes
  });

  it('refuses a boundary that is not a whole minute, at its pointer', () => {
    const world = shiftWorld();
    world.resources[0]!.shifts![0]!.start_hour = 8.501;
    expect(validateWorld(world).problems.map((problem) => problem.pointer)).toContain('/resources/0/shifts/0/start_hour');
  });
});
