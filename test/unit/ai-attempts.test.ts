// A model call's time: each attempt's timeout within the step's deadline, and when an attempt is the last.
import { describe, expect, it } from 'vitest';
import { type AttemptClock, attemptTimeoutMs, durationInWords, lastAttemptBecause, retryDelayMs } from '../../domain/ai/attempts.ts';

/** The model profile's policy (workflows/activityOptions.ts): 4 attempts, 2 s doubling to 1 minute, 6-minute attempts, a 10-minute step. */
function clock(overrides: Partial<AttemptClock> = {}): AttemptClock {
  return {
    attempt: 1,
    maximum_attempts: 4,
    initial_interval_ms: 2_000,
    backoff_coefficient: 2,
    maximum_interval_ms: 60_000,
    scheduled_ms: 1_000_000,
    schedule_to_close_ms: 600_000,
    start_to_close_ms: 360_000,
    started_ms: 1_000_000,
    ...overrides,
  };
}

describe('a model call’s attempts', () => {
  it('gives an attempt the configured timeout, cut to end before the start-to-close and the step’s deadline', () => {
    expect(attemptTimeoutMs(120_000, clock())).toBe(120_000);
    expect(attemptTimeoutMs(300_000, clock({ start_to_close_ms: 60_000 }))).toBe(58_000);
    // 100 s of the step's 10 minutes left: the attempt ends 2 s before the deadline
    expect(attemptTimeoutMs(120_000, clock({ attempt: 4, started_ms: 1_500_000 }))).toBe(98_000);
    expect(attemptTimeoutMs(120_000, clock({ attempt: 4, started_ms: 1_599_900 }))).toBe(1_000);
    expect(attemptTimeoutMs(120_000, clock({ schedule_to_close_ms: null, start_to_close_ms: null }))).toBe(120_000);
  });

  it('waits as Temporal does between attempts: doubling from the initial interval up to the maximum, or what the provider asked', () => {
    expect([1, 2, 3, 7].map((attempt) => retryDelayMs(clock({ attempt })))).toEqual([2_000, 4_000, 8_000, 60_000]);
    expect(retryDelayMs(clock({ maximum_interval_ms: null, attempt: 12 }))).toBe(200_000);
    expect(retryDelayMs(clock(), 30_000)).toBe(30_000);
  });

  it('knows the last attempt: its attempts are spent, or the step’s deadline leaves no room for another', () => {
    expect(lastAttemptBecause(clock({ attempt: 4 }), 1_010_000)).toBe('attempts_spent');
    expect(lastAttemptBecause(clock({ attempt: 2 }), 1_130_000)).toBeNull();
    // 5 s before the deadline, the next attempt would start after a wait of 4 s with 1 s left: none is made
    expect(lastAttemptBecause(clock({ attempt: 2 }), 1_595_000)).toBe('deadline');
    // the provider asked for 10 minutes' wait: past the deadline
    expect(lastAttemptBecause(clock({ attempt: 1 }), 1_010_000, 600_000)).toBe('deadline');
    expect(lastAttemptBecause(clock({ attempt: 9, maximum_attempts: null, schedule_to_close_ms: null }), 9_000_000)).toBeNull();
  });

  it('says a duration as a person does', () => {
    expect([1_000, 45_000, 60_000, 90_000, 120_000, 600_000].map(durationInWords)).toEqual([
      '1 second',
      '45 seconds',
      '1 minute',
      '90 seconds',
      '2 minutes',
      '10 minutes',
    ]);
  });
});
