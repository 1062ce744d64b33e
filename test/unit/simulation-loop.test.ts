// The specialised event loop (domain/simulation/loopCode.ts) against the generic one: for every model it covers, the
// results are identical to the last bit (the same draws, sequence numbers, heap order and measure arithmetic), including
// when entity arrays, the heap and a queue grow past their first capacity; models with other features keep the generic
// loop; and the generated source holds none of the world's strings.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { WorldSpec } from '../../domain/contracts/worldSpec.ts';
import { runReplicationOnGenericLoop } from '../../domain/simulation/engine.ts';
import { compileModel, runReplication } from '../../domain/simulation/index.ts';
import { specialisedLoop, specialisedLoopSource } from '../../domain/simulation/loopCode.ts';
import { queueWorld } from '../support/worlds.ts';

const assumption = { kind: 'assumption', rationale: 'test' } as const;

/** Two arrival sources (Poisson and renewal), a probability branch to two service steps at one resource or a delay. */
function branchingWorld(overloaded: boolean): WorldSpec {
  return {
    contract: 'WorldSpec',
    version: '1.0.0',
    name: 'Branching "clinic" with two front doors',
    synthetic: true,
    time_unit: 'minutes',
    horizon: overloaded ? 3_000 : 20_000,
    warm_up: 500,
    replications: 3,
    seed: 777,
    settings: {
      walk_in_rate: { value: overloaded ? 3 : 0.5, unit: 'per_minute', source: assumption },
      short_consult: { value: 4, unit: 'minutes', source: assumption },
    },
    arrivals: [
      { id: 'walk_in', kind: 'poisson', rate: { setting: 'walk_in_rate' }, to_step: 'triage' },
      { id: 'booked', kind: 'renewal', interarrival: { dist: 'uniform', min: 1, max: 5 }, to_step: 'triage' },
    ],
    resources: [{ id: 'nurse', capacity: 3 }],
    steps: [
      {
        id: 'triage',
        kind: 'branch',
        by: 'probability',
        options: [
          { probability: 0.5, next: 'short' },
          { probability: 0.3, next: 'long' },
          { probability: 0.2, next: 'observe' },
        ],
      },
      { id: 'short', kind: 'service', resource: 'nurse', duration: { dist: 'exponential', mean: { setting: 'short_consult' } }, next: 'done' },
      { id: 'long', kind: 'service', resource: 'nurse', duration: { dist: 'triangular', min: 5, mode: 8, max: 15 }, next: 'done' },
      { id: 'observe', kind: 'delay', duration: { dist: 'exponential', mean: overloaded ? 2_000 : 60 }, next: 'done' },
      { id: 'done', kind: 'exit' },
    ],
    measured: [
      {
        id: 'wait',
        kind: 'time_between',
        from: { step: 'triage', at: 'enter' },
        to: { step: 'done', at: 'enter' },
        unit: 'hours',
        denominator: 'entity',
        censoring: 'at_horizon',
        percentiles: [0.5, 0.9],
        threshold: 1,
      },
      { id: 'queue', kind: 'queue_length', resource: 'nurse', unit: 'entities', denominator: 'time', censoring: 'none' },
      { id: 'busy', kind: 'utilisation', resource: 'nurse', unit: 'fraction', denominator: 'capacity_time', censoring: 'none' },
      { id: 'long_per_arrival', kind: 'count', event: { step: 'long', at: 'start' }, unit: 'count_per_arrival', denominator: 'arrival', censoring: 'none' },
      { id: 'observed', kind: 'count', event: { step: 'observe', at: 'end' }, unit: 'count', denominator: 'replication', censoring: 'none' },
    ],
    variants: [{ id: 'baseline', label: 'Now', role: 'baseline', changes: [] }],
  } as unknown as WorldSpec;
}

/** Shifts (capacity changes in the heap beside the entities' events, one of them mid-hour) and a queue limit with balking. */
function shiftWorld(): WorldSpec {
  const world = queueWorld({ servers: 3, arrivals_per_minute: 0.09, mean_service_minutes: 25, horizon_minutes: 60 * 24 * 21, warm_up_minutes: 60 * 24 });
  world.resources = [
    {
      id: 'clinician',
      capacity: { setting: 'servers' },
      shifts: [
        { days: [0, 1, 2, 3, 4], start_hour: 8, end_hour: 18, capacity: { setting: 'servers' } },
        { days: [5, 6], start_hour: 10, end_hour: 14.5, capacity: 1 },
      ],
    },
  ] as WorldSpec['resources'];
  world.steps = [
    {
      id: 'consult',
      kind: 'service',
      resource: 'clinician',
      duration: { dist: 'exponential', mean: { setting: 'mean_service' } },
      queue_limit: { max_waiting: 6, balk_probability: 0.5, to: 'phone_back' },
      next: 'done',
    },
    { id: 'phone_back', kind: 'delay', duration: { dist: 'uniform', min: 5, max: 15 }, next: 'done' },
    { id: 'done', kind: 'exit' },
  ] as WorldSpec['steps'];
  return world;
}

function sampleWorld(name: string): WorldSpec {
  return JSON.parse(readFileSync(new URL(`../../samples/worlds/${name}.json`, import.meta.url), 'utf8')) as WorldSpec;
}

function expectSameOnBothLoops(world: WorldSpec, replications: number[]): void {
  for (const variant of world.variants) {
    const model = compileModel(world, variant.id);
    expect(specialisedLoop(model)).not.toBeNull();
    for (const replication_index of replications) {
      const options = { variant_id: variant.id, replication_index };
      expect(runReplication(world, options, model)).toEqual(runReplicationOnGenericLoop(world, options, model));
    }
  }
}

describe('specialised event loop', () => {
  it('gives M/M/c worlds the generic loop results, to the last bit', () => {
    expectSameOnBothLoops(queueWorld({ servers: 5, arrivals_per_minute: 4, mean_service_minutes: 1, treatment_mean_service_minutes: 1.2 }), [0, 1, 2]);
    expectSameOnBothLoops(queueWorld({ servers: 1, arrivals_per_minute: 0.9, mean_service_minutes: 1, warm_up_minutes: 0 }), [3]);
  });

  it('gives branches, delays, two arrival sources and other distributions the generic loop results', () => {
    expectSameOnBothLoops(branchingWorld(false), [0, 1]);
  });

  it('gives the generic loop results when entities, the heap and a queue grow past their first capacity', () => {
    const world = branchingWorld(true);
    const result = runReplication(world, { variant_id: 'baseline', replication_index: 0 });
    // thousands still in the system: the entity arrays (1,024), the heap (1,024 delays) and the queue (256) all grew
    expect(result.in_system_at_end).toBeGreaterThan(2_000);
    expectSameOnBothLoops(world, [0, 1]);
  });

  it('gives shifts (capacity changes in the heap) and balking the generic loop results', () => {
    const world = shiftWorld();
    const result = runReplication(world, { variant_id: 'baseline', replication_index: 0 });
    expect(result.event_counts.capacity_changes).toBeGreaterThan(20);
    expect(result.event_counts.delay_ends).toBeGreaterThan(0); // some balked to the phone-back delay
    expectSameOnBothLoops(world, [0, 1, 2]);
  });

  it('gives the covered sample worlds (costs, lognormal and gamma draws, per-arrival counts, a queue limit) the generic loop results', () => {
    expectSameOnBothLoops(sampleWorld('remote_monitoring_admissions'), [0, 1]);
    expectSameOnBothLoops(sampleWorld('outpatient_renewal_arrivals'), [0, 1]);
    expectSameOnBothLoops(sampleWorld('ambulance_handover_queue_limit'), [0, 1]);
  });

  it('stops a replication whose entities pass ENTITIES_IN_SYSTEM_MAX as the generic loop does: the world caused it', () => {
    // 10 arrivals per minute to one server serving one per minute: about 9 more entities every minute, a million by ~111,000.
    const world = queueWorld({ servers: 1, arrivals_per_minute: 10, mean_service_minutes: 1, horizon_minutes: 200_000, replications: 1 });
    const options = { variant_id: 'baseline', replication_index: 0 };
    expect(specialisedLoop(compileModel(world, 'baseline'))).not.toBeNull();
    for (const run of [runReplication, runReplicationOnGenericLoop])
      expect(() => run(world, options)).toThrow(
        expect.objectContaining({ code: 'WORLD_LIMIT_EXCEEDED', message: expect.stringContaining('ENTITIES_IN_SYSTEM_MAX') }),
      );
  });

  it('leaves models with features it does not cover, and traced replications, to the generic loop', () => {
    const generic = ['ct_stroke_preemptive_priority', 'mri_scanner_breakdowns', 'minor_injuries_batch_arrivals', 'urgent_treatment_patience'];
    for (const name of generic) expect(specialisedLoop(compileModel(sampleWorld(name), 'baseline'))).toBeNull();
    const world = queueWorld({ servers: 2, arrivals_per_minute: 1, mean_service_minutes: 1.5 });
    const traced = { variant_id: 'baseline', replication_index: 0, trace_limit: 50 };
    expect(runReplication(world, traced)).toEqual(runReplicationOnGenericLoop(world, traced));
    expect(runReplication(world, traced).trace).toHaveLength(50);
  });

  it('generates source from the model integers only: no id, name or number of the world is in it', () => {
    const world = branchingWorld(false);
    const source = specialisedLoopSource(compileModel(world, 'baseline'));
    expect(source).not.toBeNull();
    for (const text of ['walk_in', 'booked', 'nurse', 'triage', 'long_per_arrival', 'clinic', '"', "'", '`', '0.3', '777']) expect(source).not.toContain(text);
    // every sample world it covers, likewise: no quote of any kind, so no string of the world
    for (const file of readdirSync(new URL('../../samples/worlds/', import.meta.url))) {
      const sample = sampleWorld(file.slice(0, -'.json'.length));
      const text = specialisedLoopSource(compileModel(sample, sample.variants[0]!.id));
      if (text !== null) expect(text).not.toMatch(/["'`]/);
    }
  });
});
