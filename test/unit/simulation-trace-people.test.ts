// The event trace numbers people by arrival within a repetition: the engine reuses the storage of people who have left,
// but the trace never gives one person's number to another (events.csv carries the same numbers). Tracing changes no
// result: the measures of a traced replication equal those of the same replication untraced.
import { describe, expect, it } from 'vitest';
import { runReplication } from '../../domain/simulation/index.ts';
import { queueWorld } from '../support/worlds.ts';

// One clinician, a patient every two minutes seen in one on average: few are ever in the clinic at once.
const world = queueWorld({ servers: 1, arrivals_per_minute: 0.5, mean_service_minutes: 1, horizon_minutes: 600, warm_up_minutes: 0, replications: 2 });

describe('people in the event trace', () => {
  it('gives each arriving person the next number of the repetition and never reuses it, though the engine reuses their slot', () => {
    const { trace, trace_truncated } = runReplication(world, { variant_id: 'baseline', replication_index: 0, trace_limit: 10_000 });
    expect(trace_truncated).toBe(false);
    const arrivals = trace!.filter((event) => event.kind === 'arrival').map((event) => event.entity);
    expect(arrivals.length).toBeGreaterThan(200);
    expect(arrivals).toEqual(arrivals.map((_, index) => index));
    // at most a handful in the clinic at once: the engine held hundreds of people in a few recycled slots
    let inClinic = 0;
    let most = 0;
    const left = new Set<number>();
    const seen = new Set<number>();
    for (const event of trace!) {
      if (event.entity === null) continue;
      // no event of a person after they left, and none before they arrived
      expect(left.has(event.entity)).toBe(false);
      if (event.kind === 'arrival') {
        expect(seen.has(event.entity)).toBe(false);
        inClinic++;
      } else expect(seen.has(event.entity)).toBe(true);
      seen.add(event.entity);
      if (event.kind === 'leave') {
        left.add(event.entity);
        inClinic--;
      }
      most = Math.max(most, inClinic);
    }
    expect(most).toBeLessThan(arrivals.length / 10);
  });

  it('starts the numbers again in each repetition and leaves the results as they are without a trace', () => {
    const traced = runReplication(world, { variant_id: 'baseline', replication_index: 1, trace_limit: 10_000 });
    const untraced = runReplication(world, { variant_id: 'baseline', replication_index: 1, trace_limit: 0 });
    expect(traced.trace![0]).toMatchObject({ kind: 'arrival', entity: 0 });
    expect({ ...traced, trace: null, trace_truncated: false }).toEqual({ ...untraced, trace: null, trace_truncated: false });
  });
});
