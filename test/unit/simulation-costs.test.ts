// Costs per resource-hour, per entity-hour and per unit of time, and discounting at an annual rate, on deterministic
// worlds whose costs are computed by hand (docs/simulation.md, Results: costReport).
import { describe, expect, it } from 'vitest';
import type { WorldSpec } from '../../domain/contracts/worldSpec.ts';
import { costReport, runSequential, validateWorld } from '../../domain/simulation/index.ts';

const user = { kind: 'user_declared' as const };

/**
 * One patient a day at 12:00 for two years (730 days), each seen for exactly 6 hours by one of two nurses: 730 visits,
 * 2 x 24 x 730 = 35,040 nurse-hours available, 730 x 6 = 4,380 nurse-hours busy and 4,380 patient-hours in a visit.
 */
function clinicWorld(discount_rate_annual?: number): WorldSpec {
  return {
    contract: 'WorldSpec',
    version: '1.0.0',
    name: 'Deterministic cost clinic',
    synthetic: true,
    time_unit: 'days',
    horizon: 730,
    warm_up: 0,
    replications: 2,
    seed: 1,
    settings: {},
    arrivals: [{ id: 'patients', kind: 'scheduled', times: [0.5], period: 1, to_step: 'visit' }],
    resources: [{ id: 'nurse', capacity: 2 }],
    steps: [
      { id: 'visit', kind: 'service', resource: 'nurse', duration: { dist: 'fixed', value: 0.25 }, next: 'done' },
      { id: 'done', kind: 'exit' },
    ],
    measured: [
      { id: 'visits', kind: 'count', event: { step: 'visit', at: 'end' }, unit: 'count', denominator: 'replication', censoring: 'none' },
      { id: 'nurse_use', kind: 'utilisation', resource: 'nurse', unit: 'fraction', denominator: 'capacity_time', censoring: 'none' },
      {
        id: 'visit_time',
        kind: 'time_between',
        from: { step: 'visit', at: 'enter' },
        to: { step: 'visit', at: 'end' },
        unit: 'hours',
        denominator: 'entity',
        censoring: 'exclude',
      },
    ],
    variants: [
      { id: 'baseline', label: 'Current', role: 'baseline', changes: [] },
      { id: 'treatment', label: 'Same', role: 'treatment', changes: [] },
    ],
    cost_scenarios: {
      currency: 'GBP',
      ...(discount_rate_annual === undefined ? {} : { discount_rate_annual }),
      rates: [
        { id: 'visit_fee', measure: 'visits', low: 80, base: 100, high: 120, source: user },
        { id: 'staffing', measure: 'nurse_use', per: 'capacity_hour', low: 30, base: 30, high: 30, source: user },
        { id: 'consumables', measure: 'nurse_use', per: 'busy_hour', low: 5, base: 5, high: 5, source: user },
        { id: 'patient_time', measure: 'visit_time', per: 'entity_hour', low: 2, base: 2, high: 2, source: user },
      ],
      additional_costs: [
        { id: 'licence', label: 'Software licence', variants: ['baseline'], per: 'year', low: 1000, base: 1000, high: 1000, source: user },
        { id: 'cleaning', label: 'Cleaning', variants: ['baseline'], per: 'week', low: 70, base: 70, high: 70, source: user },
        { id: 'setup', label: 'Set-up', variants: ['baseline'], per: 'replication', low: 500, base: 500, high: 500, source: user },
      ],
    },
  };
}

function baselineCosts(world: WorldSpec) {
  expect(validateWorld(world).problems).toEqual([]);
  const report = costReport(world, runSequential(world))!;
  const baseline = report.variants.find((variant) => variant.variant_id === 'baseline')!;
  const line = (id: string) => baseline.lines.find((entry) => entry.rate_id === id)!.cost.base!;
  const extra = (id: string) => baseline.additional_costs.find((entry) => entry.id === id)!.cost.base!;
  return { baseline, line, extra };
}

describe('cost scenarios priced per event, per resource-hour, per entity-hour and per unit of time', () => {
  it('prices the deterministic clinic exactly as computed by hand', () => {
    const { baseline, line, extra } = baselineCosts(clinicWorld());
    expect(line('visit_fee')).toBeCloseTo(730 * 100, 6); // 73,000
    expect(line('staffing')).toBeCloseTo(2 * 24 * 730 * 30, 6); // 1,051,200
    expect(line('consumables')).toBeCloseTo(730 * 6 * 5, 6); // 21,900
    expect(line('patient_time')).toBeCloseTo(730 * 6 * 2, 6); // 8,760
    expect(baseline.total).toEqual({
      low: expect.closeTo(1_154_860 - 730 * 20, 6),
      base: expect.closeTo(1_154_860, 6),
      high: expect.closeTo(1_154_860 + 730 * 20, 6),
    });
    expect(extra('licence')).toBeCloseTo((730 / 365.25) * 1000, 6); // 1,998.63: two years less half a day
    expect(extra('cleaning')).toBeCloseTo((730 / 7) * 70, 6); // 7,300
    expect(extra('setup')).toBe(500);
  });

  it('discounts at 3.5% a year: an event one year after the warm-up costs rate / 1.035', () => {
    const world = clinicWorld(0.035);
    world.horizon = 400;
    world.arrivals = [{ id: 'patients', kind: 'scheduled', times: [365], to_step: 'visit' }]; // seen 365 to 365.25
    const { line } = baselineCosts(world);
    expect(line('visit_fee')).toBeCloseTo(100 / 1.035, 9); // 96.618...
  });

  it('discounts every kind of cost over two years by the integrals of (1.035)^-(t / 365.25 days)', () => {
    const rate = 0.035;
    const { line, extra } = baselineCosts(clinicWorld(rate));
    const k = Math.log(1 + rate) / 365.25; // per day
    const q = Math.exp(-k); // one day's factor
    const days = (1 - q ** 730) / (1 - q); // sum over the days i = 0..729 of q^i
    // Visits end at i + 0.75 days; nurses are staffed all the time; visits occupy [i + 0.5, i + 0.75).
    expect(line('visit_fee')).toBeCloseTo(100 * q ** 0.75 * days, 6);
    expect(line('staffing')).toBeCloseTo(30 * 2 * 24 * ((1 - Math.exp(-k * 730)) / k), 6);
    const visitHours = (24 * (Math.exp(-0.5 * k) - Math.exp(-0.75 * k))) / k; // discounted hours of the first visit
    expect(line('consumables')).toBeCloseTo(5 * visitHours * days, 6);
    expect(line('patient_time')).toBeCloseTo(2 * visitHours * days, 6);
    expect(extra('licence')).toBeCloseTo((1000 * (1 - Math.exp(-k * 730))) / k / 365.25, 6);
    expect(extra('setup')).toBe(500); // once per replication, not discounted
    // Discounting lowers every time-spread cost: the first year is worth about 1 / 1.035^0.5 of its face value on average.
    expect(line('staffing')).toBeLessThan(2 * 24 * 730 * 30);
  });

  it('refuses a rate whose measure does not fit what it is per, at its pointer', () => {
    const world = clinicWorld();
    world.cost_scenarios!.rates[0]!.per = 'capacity_hour';
    world.cost_scenarios!.rates[3]!.per = 'event';
    const problems = validateWorld(world).problems;
    expect(problems).toContainEqual({
      pointer: '/cost_scenarios/rates/0/measure',
      message: "measure 'visits' is a count measure; a rate per capacity_hour prices a utilisation measure",
    });
    expect(problems).toContainEqual({
      pointer: '/cost_scenarios/rates/3/measure',
      message: "measure 'visit_time' is a time_between measure; a rate per event prices a count measure",
    });
  });
});
