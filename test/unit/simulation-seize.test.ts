// Seize and release: holding a resource across steps, and several resources at once (docs/simulation.md, Model
// features and their checks). Seeds are fixed, so each check is deterministic.
import { describe, expect, it } from 'vitest';
import type { WorldSpec } from '../../domain/contracts/worldSpec.ts';
import { estimateRun, runSequential, summarize, validateWorld } from '../../domain/simulation/index.ts';

const REPLICATIONS = 10;

/**
 * Patients seize one consulting room, see a doctor (never short: 100 doctors) and then write up notes in the room,
 * and release it: the room is a single server whose service is the exam plus the notes.
 */
function roomWorld(options: { lambda: number; exam_mean: number; notes_mean: number | null; seed: number }): WorldSpec {
  const afterExam = options.notes_mean === null ? 'leave_room' : 'notes';
  return {
    contract: 'WorldSpec',
    version: '1.0.0',
    name: 'Consulting room held across steps',
    synthetic: true,
    time_unit: 'minutes',
    horizon: 100_000,
    warm_up: 2_000,
    replications: REPLICATIONS,
    seed: options.seed,
    settings: {},
    arrivals: [{ id: 'patients', kind: 'poisson', rate: options.lambda, to_step: 'take_room' }],
    resources: [
      { id: 'room', capacity: 1 },
      { id: 'doctor', capacity: 100 },
    ],
    steps: [
      { id: 'take_room', kind: 'seize', resource: 'room', next: 'exam' },
      { id: 'exam', kind: 'service', resource: 'doctor', duration: { dist: 'exponential', mean: options.exam_mean }, next: afterExam },
      ...(options.notes_mean === null
        ? []
        : [{ id: 'notes', kind: 'delay' as const, duration: { dist: 'exponential' as const, mean: options.notes_mean }, next: 'leave_room' }]),
      { id: 'leave_room', kind: 'release', resource: 'room', next: 'done' },
      { id: 'done', kind: 'exit' },
    ],
    measured: [
      {
        id: 'wait',
        kind: 'time_between',
        from: { step: 'take_room', at: 'enter' },
        to: { step: 'take_room', at: 'start' },
        unit: 'minutes',
        denominator: 'entity',
        censoring: 'exclude',
      },
      { id: 'room_use', kind: 'utilisation', resource: 'room', unit: 'fraction', denominator: 'capacity_time', censoring: 'none' },
    ],
    variants: [
      { id: 'baseline', label: 'Current', role: 'baseline', changes: [] },
      { id: 'treatment', label: 'Same', role: 'treatment', changes: [] },
    ],
  };
}

function baselineMean(world: WorldSpec, measure: string): number {
  const jobs = Array.from({ length: REPLICATIONS }, (_, index) => ({ variant_id: 'baseline', replication_index: index, trace_limit: 0 }));
  return summarize(world, runSequential(world, { jobs })).find((summary) => summary.measure_id === measure && summary.variant_id === 'baseline')!.mean!;
}

describe('seize and release', () => {
  it('a room held through an exponential exam is an M/M/1 queue: wait rho / (mu - lambda) and utilisation rho within 5% and 2%', () => {
    const [lambda, mu] = [0.7, 1];
    const world = roomWorld({ lambda, exam_mean: 1 / mu, notes_mean: null, seed: 61 });
    expect(validateWorld(world).problems).toEqual([]);
    expect(Math.abs(baselineMean(world, 'wait') - lambda / mu / (mu - lambda)) / (lambda / mu / (mu - lambda))).toBeLessThan(0.05); // 2.33 minutes
    expect(Math.abs(baselineMean(world, 'room_use') - lambda / mu) / (lambda / mu)).toBeLessThan(0.02);
  });

  it('a room held through an exam and then notes is M/G/1 with the summed service: Pollaczek-Khinchine wait within 5%', () => {
    // Service S = exam + notes, independent exponentials with means a and b: E[S] = a + b, E[S^2] = 2a^2 + 2b^2 + 2ab;
    // Wq = lambda E[S^2] / (2 (1 - lambda E[S])).
    const [lambda, a, b] = [0.6, 0.5, 0.5];
    const world = roomWorld({ lambda, exam_mean: a, notes_mean: b, seed: 62 });
    const wait = (lambda * (2 * a * a + 2 * b * b + 2 * a * b)) / (2 * (1 - lambda * (a + b))); // 1.125 minutes
    expect(Math.abs(baselineMean(world, 'wait') - wait) / wait).toBeLessThan(0.05);
    // The estimate counts the room's load from the hold time: a runnable world, events within 15%.
    const short = { ...world, horizon: 20_000, replications: 2 };
    const actual = runSequential(short).reduce((sum, result) => sum + result.event_counts.events_total, 0);
    expect(Math.abs(estimateRun(short).events_estimate - actual) / actual).toBeLessThan(0.15);
  });

  it('holds two resources at once: a nurse seized inside the room hold is busy over exactly the same intervals', () => {
    const world = roomWorld({ lambda: 0.5, exam_mean: 1, notes_mean: null, seed: 63 });
    world.resources.push({ id: 'nurse', capacity: 1 });
    world.steps = [
      { id: 'take_room', kind: 'seize', resource: 'room', next: 'take_nurse' },
      { id: 'take_nurse', kind: 'seize', resource: 'nurse', next: 'exam' },
      { id: 'exam', kind: 'service', resource: 'doctor', duration: { dist: 'exponential', mean: 1 }, next: 'free_nurse' },
      { id: 'free_nurse', kind: 'release', resource: 'nurse', next: 'leave_room' },
      { id: 'leave_room', kind: 'release', resource: 'room', next: 'done' },
      { id: 'done', kind: 'exit' },
    ];
    world.measured.push({ id: 'nurse_use', kind: 'utilisation', resource: 'nurse', unit: 'fraction', denominator: 'capacity_time', censoring: 'none' });
    expect(validateWorld(world).problems).toEqual([]);
    const result = runSequential({ ...world, replications: 1 })[0]!;
    const [room, nurse] = [result.measures[1]!.value!, result.measures[2]!.value!];
    expect(room).toBeGreaterThan(0.4);
    expect(Math.abs(room - nurse)).toBeLessThan(1e-12);
  });

  it('refuses a seize whose entity can leave holding the unit, and a release nobody seized, at their pointers', () => {
    const world = roomWorld({ lambda: 0.5, exam_mean: 1, notes_mean: null, seed: 64 });
    const exam = world.steps.find((step) => step.id === 'exam')!;
    if (exam.kind === 'service') exam.next = 'done'; // skips the release
    world.steps.push({ id: 'stray_release', kind: 'release', resource: 'doctor', next: 'done' });
    world.arrivals.push({ id: 'strays', kind: 'poisson', rate: 0.1, to_step: 'stray_release' });
    const problems = validateWorld(world).problems;
    expect(problems.map((problem) => problem.pointer)).toContain('/steps/0');
    expect(problems.some((problem) => problem.pointer === '/steps/4' && problem.message.includes('without having seized it'))).toBe(true);
  });
});
