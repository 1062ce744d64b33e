// The estimate kept per world revision (api/routes/runs/estimates.ts): the same answer as estimating afresh (with the
// model check's warnings beside it), computed once per revision while kept, and the least recently used revision
// dropped first.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ESTIMATES_KEPT_MAX, estimateOf, estimatesKept } from '../../api/routes/runs/estimates.ts';
import type { WorldSpec } from '../../domain/contracts/worldSpec.ts';
import { estimateRun, modelCheck } from '../../domain/simulation/index.ts';

const world = JSON.parse(readFileSync(new URL('../../samples/worlds/ambulance_handover_queue_limit.json', import.meta.url), 'utf8')) as WorldSpec;

describe('the estimate kept per world revision', () => {
  it('answers what a fresh estimate answers, and the same object for the same revision', () => {
    const first = estimateOf({ world_revision_id: 'wrev_kept_1', world });
    expect(first).toEqual({ ...estimateRun(world), warnings: modelCheck(world) });
    expect(first.events_estimate).toBeGreaterThan(0);
    expect(estimateOf({ world_revision_id: 'wrev_kept_1', world })).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
  });

  it('keeps each revision apart, and drops the least recently used beyond ESTIMATES_KEPT_MAX', () => {
    const small = { ...world, replications: 2 };
    const a = estimateOf({ world_revision_id: 'wrev_a', world });
    const b = estimateOf({ world_revision_id: 'wrev_b', world: small });
    expect(b.events_estimate).toBeLessThan(a.events_estimate);
    // Many other revisions, touching `a` on the way: `b` falls out, `a` stays.
    for (let i = 0; i < ESTIMATES_KEPT_MAX; i++) {
      estimateOf({ world_revision_id: `wrev_other_${i}`, world: small });
      if (i % 50 === 0) expect(estimateOf({ world_revision_id: 'wrev_a', world })).toBe(a);
    }
    expect(estimatesKept()).toBe(ESTIMATES_KEPT_MAX);
    expect(estimateOf({ world_revision_id: 'wrev_a', world })).toBe(a);
    const again = estimateOf({ world_revision_id: 'wrev_b', world: small });
    expect(again).not.toBe(b);
    expect(again).toEqual(b);
  });
});
