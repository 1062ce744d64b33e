// The shard plan of a run (domain/simulation/shards.ts): consecutive ranges covering every replication once, sized by
// time at the estimate or fixed, never more than RUN_SHARDS_MAX.
import { describe, expect, it } from 'vitest';
import { REPLICATIONS_MAX } from '../../domain/simulation/limits.ts';
import { planShards, RUN_SHARDS_MAX, SHARD_EVENTS_PER_THREAD_SECOND } from '../../domain/simulation/shards.ts';

function covered(shards: { from: number; to: number }[]): number[] {
  return shards.flatMap((shard) => Array.from({ length: shard.to - shard.from }, (_, k) => shard.from + k));
}

describe('planShards', () => {
  it('sizes a shard at the target seconds of one thread at the estimate’s events per replication index', () => {
    // 100 replications, each group (every variant) a fifth of a thread-second: 10 s is 50 replications.
    const events_estimate = 100 * (SHARD_EVENTS_PER_THREAD_SECOND / 5);
    const shards = planShards({ replications: 100, events_estimate, shard_seconds: 10, replications_per_shard: null });
    expect(shards).toEqual([
      { from: 0, to: 50 },
      { from: 50, to: 100 },
    ]);
  });

  it('takes a fixed size when one is set, the last shard shorter', () => {
    const shards = planShards({ replications: 7, events_estimate: 1, shard_seconds: 10, replications_per_shard: 3 });
    expect(shards).toEqual([
      { from: 0, to: 3 },
      { from: 3, to: 6 },
      { from: 6, to: 7 },
    ]);
  });

  it('gives a replication index that takes longer than the target a shard of its own', () => {
    const shards = planShards({ replications: 4, events_estimate: 4 * 60 * SHARD_EVENTS_PER_THREAD_SECOND, shard_seconds: 10, replications_per_shard: null });
    expect(shards.map((shard) => shard.to - shard.from)).toEqual([1, 1, 1, 1]);
  });

  it('never plans more than RUN_SHARDS_MAX shards, and covers every replication once', () => {
    const shards = planShards({ replications: REPLICATIONS_MAX, events_estimate: 1e12, shard_seconds: 1, replications_per_shard: 1 });
    expect(shards.length).toBeLessThanOrEqual(RUN_SHARDS_MAX);
    expect(covered(shards)).toEqual(Array.from({ length: REPLICATIONS_MAX }, (_, k) => k));
  });

  it('plans nothing for a run without replications', () => {
    expect(planShards({ replications: 0, events_estimate: 0, shard_seconds: 10, replications_per_shard: null })).toEqual([]);
  });
});
