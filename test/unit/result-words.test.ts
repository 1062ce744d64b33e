// A run's results in words (clients/sdk/src/words/resultWords.ts), as the run page, the findings and the export's report
// say them: natural units, what a comparison means and how sure it is, totals with what they total over, clock times.
import { describe, expect, it } from 'vitest';
import type { WorldSpec } from '../../domain/contracts/worldSpec.ts';
import {
  clockWords,
  comparisonSentence,
  measureScale,
  meanWords,
  personWords,
  resourceWords,
  stepWords,
  scaleWords,
  timeUnitFor,
  unfinishedWords,
} from '../../clients/sdk/src/words/resultWords.ts';
import { queueWorld } from '../support/worlds.ts';

/** The test clinic, where patients may give up waiting, with a count per arrival of those who do (and of those seen). */
function clinicWithGivingUp(): WorldSpec {
  const world = queueWorld({ servers: 1, arrivals_per_minute: 0.5, mean_service_minutes: 1.5 });
  world.steps = [
    {
      id: 'consult',
      kind: 'service',
      resource: 'clinician',
      duration: { dist: 'exponential', mean: { setting: 'mean_service' } },
      renege_after: 20,
      renege_to: 'gave_up',
      next: 'done',
    },
    { id: 'gave_up', kind: 'exit' },
    { id: 'done', kind: 'exit' },
  ];
  world.measured.push(
    {
      id: 'giving_up',
      label: 'callers giving up',
      kind: 'count',
      event: { step: 'consult', at: 'renege' },
      unit: 'count_per_arrival',
      denominator: 'arrival',
      censoring: 'none',
    },
    {
      id: 'leaving',
      kind: 'count',
      event: [
        { step: 'gave_up', at: 'enter' },
        { step: 'done', at: 'enter' },
      ],
      unit: 'count_per_arrival',
      denominator: 'arrival',
      censoring: 'none',
    },
  );
  return world;
}

const measure = (world: WorldSpec, id: string) => world.measured.find((m) => m.id === id)!;
const summary = (mean: number, low: number | null, high: number | null, unit: string, n = 10) => ({ mean, unit, interval_95: { low, high }, n });

describe('each measure in its natural unit', () => {
  it('reads a count per arrival of a moment each person passes once as a percentage of arrivals', () => {
    const world = clinicWithGivingUp();
    expect(measureScale(world, measure(world, 'giving_up'))).toBe('share_of_arrivals');
    // leaving by either exit: a person leaves once
    expect(measureScale(world, measure(world, 'leaving'))).toBe('share_of_arrivals');
    expect(meanWords(summary(0.0766, 0.061, 0.092, 'count_per_arrival'), 'share_of_arrivals')).toBe(
      '7.66% of arrivals (95% interval 6.1% to 9.2%, from 10 repetitions)',
    );
    expect(scaleWords('share_of_arrivals', 'minutes')).toBe('percent of arrivals');
  });

  it('keeps a count per arrival that a loop can repeat as a count per arrival', () => {
    const world = clinicWithGivingUp();
    world.steps[1] = { id: 'gave_up', kind: 'delay', duration: { dist: 'fixed', value: 60 }, next: 'consult' };
    expect(measureScale(world, measure(world, 'giving_up'))).toBe('per_arrival');
    expect(meanWords(summary(1.2, 1.1, 1.3, 'count_per_arrival'), 'per_arrival')).toBe(
      '1.2 per arrival on average (95% interval 1.1 to 1.3 per arrival, from 10 repetitions)',
    );
  });

  it('says a count is an average per repetition, and a share of time as a percentage', () => {
    expect(meanWords(summary(480.4, 450.2, 510.9, 'count'), 'per_repetition')).toBe(
      '480 on average per repetition (95% interval 450 to 511, from 10 repetitions)',
    );
    expect(meanWords(summary(0.6834, 0.65, 0.71, 'fraction'), 'share_of_time')).toBe('68.3% on average (95% interval 65% to 71%, from 10 repetitions)');
    expect(meanWords(summary(0.42, 0.3, 0.5, 'entities'), 'waiting')).toBe('0.42 people on average (95% interval 0.3 to 0.5 people, from 10 repetitions)');
  });

  it('gives a wait in minutes, hours or days as fits, whatever unit the measure is kept in', () => {
    expect(timeUnitFor([0.5], 'hours')).toBe('minutes');
    expect(timeUnitFor([2.13], 'hours')).toBe('hours');
    expect(timeUnitFor([3000], 'minutes')).toBe('days');
    expect(meanWords(summary(0.5, 0.25, 0.75, 'hours'), 'time')).toBe('30 minutes on average (95% interval 15 to 45 minutes, from 10 repetitions)');
    expect(meanWords(summary(128, 100, 150, 'minutes'), 'time')).toBe('2.13 hours on average (95% interval 1.67 to 2.5 hours, from 10 repetitions)');
    expect(meanWords(summary(1, 0.5, 1.5, 'hours'), 'time', 'hours')).toBe('1 hour on average (95% interval 0.5 to 1.5 hours, from 10 repetitions)');
  });

  it('shows a mean interval cut at zero with its reason', () => {
    expect(meanWords(summary(0.8, -1.61, 3.21, 'hours', 5), 'time', 'hours')).toBe(
      '0.8 hours on average (95% interval 0 to 3.21 hours, from 5 repetitions: too few repetitions to say more precisely)',
    );
  });
});

describe('what a comparison means and how sure it is', () => {
  const wait = { id: 'wait_for_gp', label: 'wait for a GP appointment', kind: 'time_between', unit: 'hours' };
  const compared = (mean: number | null, low: number | null, high: number | null, unit: string, n_pairs = 10) => ({
    mean_difference: mean,
    interval_95: { low, high },
    n_pairs,
    unit,
  });

  it('says a clear difference when the interval excludes no change', () => {
    expect(comparisonSentence('The new pathway', 'Phone triage only', wait, 'time', compared(-2.1, -2.8, -1.4, 'hours'))).toBe(
      'The new pathway shortens the average wait for a GP appointment by about 2.1 hours compared with phone triage only (95% interval 1.4 to 2.8 hours, from 10 pairs of repetitions run under the same conditions); the interval excludes no change, so this is a clear difference in the model.',
    );
  });

  it('says no clear difference when the interval includes no change, naming each side', () => {
    const share = { id: 'giving_up', label: 'callers giving up', kind: 'count', unit: 'count_per_arrival' };
    expect(
      comparisonSentence('Online triage form', 'Phone triage only', share, 'share_of_arrivals', compared(-0.00766, -0.02, 0.0045, 'count_per_arrival', 5)),
    ).toBe(
      'Online triage form lowers callers giving up by about 0.77 percentage points compared with phone triage only (95% interval from 2 percentage points lower to 0.45 percentage points higher, from 5 pairs of repetitions run under the same conditions); the interval includes no change, so the model does not show a clear difference.',
    );
  });

  it('says a count changes per repetition, a difference of minutes in minutes, and an unchanged measure plainly', () => {
    const admissions = { id: 'admissions', label: 'emergency admissions', kind: 'count', unit: 'count' };
    expect(comparisonSentence('Remote monitoring', 'Usual care', admissions, 'per_repetition', compared(23.4, 15.2, 31.7, 'count', 5))).toMatch(
      /^Remote monitoring raises emergency admissions by about 23 per repetition compared with usual care \(95% interval 15 to 32 per repetition, /,
    );
    expect(comparisonSentence('Faster clinic', 'Current clinic', wait, 'time', compared(-0.1, -0.15, -0.05, 'hours'))).toContain(
      'shortens the average wait for a GP appointment by about 6 minutes',
    );
    expect(comparisonSentence('Same clinic', 'Current clinic', wait, 'time', compared(0, 0, 0, 'hours'))).toBe(
      'Same clinic gives the same result for the average wait for a GP appointment as current clinic in every one of the 10 pairs of repetitions run under the same conditions: in the model this change does not affect it.',
    );
    expect(comparisonSentence('Same clinic', 'Current clinic', wait, 'time', compared(0.2, null, null, 'hours', 1))).toBe(
      'Same clinic lengthens the average wait for a GP appointment by about 12 minutes compared with current clinic (from 1 pair of repetitions run under the same conditions); with one pair the model cannot say how sure this is.',
    );
  });
});

describe('totals and the event trace', () => {
  it('says what a total of unfinished people totals over, as an average per repetition', () => {
    expect(unfinishedWords(13, 10, 'exclude')).toBe(
      'On average 1.3 people per repetition had not reached the end of this measure when the simulated period ended (13 over 10 repetitions; left out of the average).',
    );
    expect(unfinishedWords(10, 10, 'at_horizon', 'the wait')).toContain('On average 1 person per repetition had not reached the end of the wait');
  });

  it('gives a moment of the model as a day and a clock time from the world’s time unit and start', () => {
    const minutes = queueWorld({ servers: 1, arrivals_per_minute: 1, mean_service_minutes: 0.5 });
    expect(clockWords(0, minutes)).toBe('day 1, 00:00');
    expect(clockWords(1440 + 480, minutes)).toBe('day 2, 08:00');
    expect(clockWords(479.8, minutes)).toBe('day 1, 08:00');
    expect(clockWords(2.75, { ...minutes, time_unit: 'days' })).toBe('day 3, 18:00');
    expect(clockWords(1.5, { ...minutes, time_unit: 'hours' })).toBe('day 1, 01:30');
    // a world whose rate table starts at 06:00 keeps that clock (no shifts)
    const opensAtSix = {
      ...minutes,
      arrivals: [{ id: 'walk_ins', kind: 'rate_table' as const, rates_per_hour: [Array(24).fill(1)], start: { hour: 6 }, to_step: 'consult' }],
    };
    expect(clockWords(1080, opensAtSix)).toBe('day 2, 00:00');
  });

  it('names people by their number and resources by their label', () => {
    expect(personWords(0)).toBe('Person 1');
    expect(personWords(1233)).toBe('Person 1,234');
    expect(personWords(null)).toBe('');
    const world = queueWorld({ servers: 1, arrivals_per_minute: 1, mean_service_minutes: 0.5 });
    world.resources[0]!.label = 'Practice nurses';
    expect(resourceWords(world, 'clinician')).toBe('Practice nurses');
    expect(resourceWords(world, 'ward_bed')).toBe('Ward bed');
  });

  it('names steps by their label, else their id in words', () => {
    const world = queueWorld({ servers: 1, arrivals_per_minute: 1, mean_service_minutes: 0.5 });
    const step = world.steps.find((s) => s.kind === 'service')!;
    (step as { label?: string }).label = 'Nurse assessment';
    expect(stepWords(world, step.id)).toBe('Nurse assessment');
    expect(stepWords(world, 'gave_up')).toBe('Gave up');
    expect(stepWords(world, null)).toBe('');
  });
});
