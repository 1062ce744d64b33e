// The diagram's sentences say the numbers the engine runs: every arrival rate and every step's duration of every sample
// world, and of a world whose settings mix minutes, hours, days and rates per hour and per day, read back from the
// words the diagram shows (web/src/world/model.ts) and compared with the engine's compiled model.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { WorldSpec } from '../../domain/contracts/worldSpec.ts';
import { ARRIVAL_POISSON, ARRIVAL_RATE_TABLE, ARRIVAL_RENEWAL, DIST_TRIANGULAR, DIST_UNIFORM, compileModel } from '../../domain/simulation/model.ts';
import { validateWorld } from '../../domain/simulation/validate.ts';
import { type World, arrivalSummary, describeDuration, sayTime, settingName, stepName } from '../../web/src/world/model.ts';
import { fromPercent, fromWorld, naturalTimeUnit, toPercent, toWorld } from '../../web/src/world/quantities.ts';

const SAMPLES_DIR = join(import.meta.dirname, '../../samples/worlds');
const samples = readdirSync(SAMPLES_DIR)
  .filter((file) => file.endsWith('.json'))
  .map((file) => ({ file, world: JSON.parse(readFileSync(join(SAMPLES_DIR, file), 'utf8')) as WorldSpec }));

const MINUTES: Record<string, number> = { minute: 1, minutes: 1, hour: 60, hours: 60, day: 1440, days: 1440 };
const number = (text: string) => Number(text.replaceAll(',', ''));

/** Every time a sentence says ("2 minutes to 15 minutes"), in the world's time unit. */
function timesSaid(sentence: string, world: WorldSpec): number[] {
  return [...sentence.matchAll(/([\d,.]+) (minutes?|hours?|days?)\b/g)].map((m) => (number(m[1]!) * MINUTES[m[2]!]!) / MINUTES[world.time_unit]!);
}

/** The rate an arrival sentence says ("about 4 an hour"), per world time unit. */
function rateSaid(sentence: string, world: WorldSpec): number {
  const match = /about ([\d,.]+) an? (minute|hour|day|week)/.exec(sentence);
  expect(match, sentence).not.toBeNull();
  const per = { minute: 1, hour: 60, day: 1440, week: 10080 }[match![2] as 'minute']!;
  return (number(match![1]!) * MINUTES[world.time_unit]!) / per;
}

/** Three significant figures on screen: the words and the engine agree within half a unit of the third. */
const expectClose = (said: number, engine: number, what: string) => expect(Math.abs(said - engine), what).toBeLessThanOrEqual(Math.abs(engine) * 0.005 + 1e-12);

function expectWorldSaysWhatRuns(world: WorldSpec) {
  const model = compileModel(world, world.variants.find((v) => v.role === 'baseline')!.id);
  const web = world as unknown as World;
  let compared = 0;
  world.arrivals.forEach((arrival, index) => {
    const compiled = model.arrivals[index]!;
    const sentence = arrivalSummary(web, web.arrivals[index]!);
    if (compiled.kind === ARRIVAL_POISSON) expectClose(rateSaid(sentence, world), compiled.rate, `${arrival.id}: ${sentence}`);
    if (compiled.kind === ARRIVAL_RATE_TABLE) {
      const perWeek = compiled.ratesByHour!.reduce((sum, rate) => sum + rate, 0) * model.unitsPerHour;
      const said = rateSaid(sentence, world);
      expectClose(said, /a week/.test(sentence) ? perWeek / (10080 / MINUTES[world.time_unit]!) : perWeek / (7 * (1440 / MINUTES[world.time_unit]!)), sentence);
    }
    if (compiled.kind === ARRIVAL_RENEWAL) expectTimesMatch(sentence, compiled.interarrival!, world);
    compared++;
  });
  world.steps.forEach((step, index) => {
    const compiled = model.steps[index]!.duration;
    if (!compiled || !('duration' in step)) return;
    const sentence = describeDuration(web, step.duration as World['steps'][number]['duration']);
    expectTimesMatch(sentence, compiled, world);
    compared++;
  });
  return compared;
}

function expectTimesMatch(sentence: string, compiled: { kind: number; a: number; b: number; c: number; mean: number }, world: WorldSpec) {
  const said = timesSaid(sentence, world);
  if (/from observed values|around/.test(sentence)) return;
  // "min to max" and "min to max, most often mode"
  const expected =
    compiled.kind === DIST_UNIFORM ? [compiled.a, compiled.b] : compiled.kind === DIST_TRIANGULAR ? [compiled.a, compiled.c, compiled.b] : [compiled.mean];
  expect(said.length, sentence).toBe(expected.length);
  for (const [i, value] of said.entries()) expectClose(value, expected[i]!, sentence);
}

/** A world counted in days whose settings are given in minutes, hours, days, per hour and per day, and one plain rate per day. */
function mixedUnitsWorld(): WorldSpec {
  const assumption = { kind: 'assumption' as const, rationale: 'test value' };
  return {
    contract: 'WorldSpec',
    version: '1.0.0',
    name: 'Mixed units',
    time_unit: 'days',
    horizon: 28,
    warm_up: 7,
    replications: 2,
    seed: 1,
    settings: {
      calls_per_hour: { value: 4, unit: 'per_hour', source: assumption },
      scan_minutes: { value: 20, unit: 'minutes', source: assumption },
      stay_hours: { value: 60, unit: 'hours', source: assumption },
      wait_days: { value: 2, unit: 'days', source: assumption },
      gap_hours: { value: 5, unit: 'hours', source: assumption },
      p_scan: { value: 0.4, unit: 'probability', source: assumption },
      p_home: { value: 0.6, unit: 'probability', source: assumption },
    },
    arrivals: [
      { id: 'calls', kind: 'poisson', rate: { setting: 'calls_per_hour' }, to_step: 'triage' },
      { id: 'letters', kind: 'poisson', rate: 18, to_step: 'triage' },
      { id: 'transfers', kind: 'renewal', interarrival: { dist: 'exponential', mean: { setting: 'gap_hours' } }, to_step: 'triage' },
      { id: 'clinic', kind: 'rate_table', rates_per_hour: [[0, 0, 0, 0, 0, 0, 0, 0, 3, 3, 3, 3, 2, 2, 2, 2, 1, 0, 0, 0, 0, 0, 0, 0]], to_step: 'triage' },
    ],
    resources: [{ id: 'scanner', capacity: 2 }],
    steps: [
      { id: 'triage', kind: 'delay', duration: { dist: 'triangular', min: 0.005, mode: { setting: 'scan_minutes' }, max: 0.05 }, next: 'route' },
      {
        id: 'route',
        kind: 'branch',
        by: 'probability',
        options: [
          { probability: { setting: 'p_scan' }, next: 'scan' },
          { probability: { setting: 'p_home' }, next: 'home' },
        ],
      },
      { id: 'scan', kind: 'service', resource: 'scanner', duration: { dist: 'gamma', shape: 2, scale: { setting: 'scan_minutes' } }, next: 'stay' },
      { id: 'stay', kind: 'delay', duration: { dist: 'lognormal', mean: { setting: 'stay_hours' }, sd: 1 }, next: 'wait' },
      { id: 'wait', kind: 'delay', duration: { dist: 'uniform', min: 1, max: { setting: 'wait_days' } }, next: 'home' },
      { id: 'home', kind: 'exit' },
    ],
    measured: [{ id: 'scans', kind: 'count', event: { step: 'scan', at: 'start' }, unit: 'count', denominator: 'replication', censoring: 'none' }],
    variants: [
      { id: 'usual', label: 'Usual care', role: 'baseline', changes: [] },
      { id: 'faster_scan', label: 'Faster scan', role: 'treatment', changes: [{ setting: 'scan_minutes', value: 15 }] },
    ],
  };
}

describe("the diagram's sentences and the engine's rates", () => {
  it.each(samples)('say the rates and durations the engine runs in $file', ({ world }) => {
    expect(expectWorldSaysWhatRuns(world)).toBeGreaterThan(0);
  });

  it('say each setting in its own unit in a world that mixes them', () => {
    const world = mixedUnitsWorld();
    expect(validateWorld(world).problems).toEqual([]);
    expect(expectWorldSaysWhatRuns(world)).toBe(8);
    const web = world as unknown as World;
    // the rate reads the setting's unit: 4 an hour, not "4 a day" (the world's unit) nor 96
    expect(arrivalSummary(web, web.arrivals[0]!)).toBe('about 4 an hour, at random');
    expect(arrivalSummary(web, web.arrivals[1]!)).toBe('about 18 a day, at random');
    expect(arrivalSummary(web, web.arrivals[2]!)).toBe('one every 5 hours on average');
    expect(arrivalSummary(web, web.arrivals[3]!)).toBe('about 21 a day, by hour of the day');
    expect(describeDuration(web, web.steps[2]!.duration)).toBe('40 minutes on average');
    expect(describeDuration(web, web.steps[3]!.duration)).toBe('2.5 days on average');
  });

  it('reads the GP sample per hour of the week and its periods in days', () => {
    const gp = samples.find((s) => s.file === 'gp_triage_digital_front_door.json')!.world as unknown as World;
    expect(arrivalSummary(gp, gp.arrivals[0]!)).toBe('about 455 a week, by hour of the week');
    expect(sayTime(gp, gp.horizon)).toBe('28 days');
    expect(stepName(gp, 'gp_appointment')).toBe('GP appointment');
    expect(settingName(gp, 'p_self_care')).not.toMatch(/^P /);
  });
});

describe('units and shares as people type them', () => {
  it('converts a duration and a rate to the world unit and back exactly', () => {
    expect(toWorld(4, 'per_hour', 'minutes')).toBe(0.0666666666667);
    expect(fromWorld(toWorld(4, 'per_hour', 'minutes'), 'per_hour', 'minutes')).toBe(4);
    expect(fromWorld(toWorld(18, 'per_day', 'hours'), 'per_day', 'hours')).toBe(18);
    expect(toWorld(20, 'minutes', 'days')).toBe(0.0138888888889);
    expect(fromWorld(toWorld(20, 'minutes', 'days'), 'minutes', 'days')).toBe(20);
    expect(fromWorld(40320, 'days', 'minutes')).toBe(28);
    expect(naturalTimeUnit(40320, 'minutes')).toBe('days');
    expect(naturalTimeUnit(90, 'minutes')).toBe('hours');
    expect(naturalTimeUnit(100, 'minutes')).toBe('minutes');
  });

  it('reads shares as percentages without float noise', () => {
    expect(toPercent(0.07)).toBe(7);
    expect(fromPercent(30)).toBe(0.3);
    expect(toPercent(fromPercent(57))).toBe(57);
  });
});
