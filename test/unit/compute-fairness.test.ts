// Fair shares of the compute pool: one organization's PDF reading holds at most its share of the threads, and another
// organization's run starts while that reading is still in flight. Ordering is read from the scheduler's events, never
// from the clock.
import { afterAll, describe, expect, it } from 'vitest';
import { extractSources } from '../../compute/extraction.ts';
import { closeComputePool, computeShareLimits, onComputeEvent } from '../../compute/pool.ts';
import { type ComputeEvent, computeShares, FairScheduler, type Queued, type ShareKind } from '../../compute/scheduler.ts';
import { runReplicationsOnPool } from '../../compute/simulation/pool.ts';
import { replicationJobs } from '../../domain/simulation/index.ts';
import { sharedStreamBombPdf } from '../support/pdfDamage.ts';
import { queueWorld } from '../support/worlds.ts';

const world = queueWorld({
  servers: 2,
  arrivals_per_minute: 1.6,
  mean_service_minutes: 1,
  treatment_mean_service_minutes: 0.9,
  horizon_minutes: 2_000,
  warm_up_minutes: 100,
  replications: 4,
});

afterAll(() => closeComputePool());

/** The most threads `org_id` held at once for `kind`, replaying the events in order. */
function mostHeld(events: ComputeEvent[], org_id: string, kind: ShareKind): number {
  const running = new Set<number>();
  let most = 0;
  for (const event of events) {
    if (event.org_id !== org_id || event.kind !== kind) continue;
    if (event.event === 'started') running.add(event.task);
    if (event.event === 'finished') running.delete(event.task);
    most = Math.max(most, running.size);
  }
  return most;
}

describe('the compute pool under a hostile PDF', () => {
  it("starts another organization's run while one organization's PDF bombs are still being read, within that organization's share", async () => {
    const events: ComputeEvent[] = [];
    const unsubscribe = onComputeEvent((event) => events.push(event));
    try {
      const bomb = await sharedStreamBombPdf();
      expect(bomb.byteLength).toBeLessThan(1024 * 1024); // a small file: its one stream inflates to 250 MiB, drawn by 20 pages
      const files = [1, 2].map((number) => ({ kind: 'file' as const, filename: `bomb-${number}.pdf`, bytes: bomb }));
      const hostile = extractSources(files, { org_id: 'org_hostile', pdf_seconds_max: 5 });
      await new Promise<void>((resolve) => {
        const check = () => (events.some((event) => event.org_id === 'org_hostile' && event.event === 'started') ? resolve() : setTimeout(check, 20));
        check();
      });
      const run = await runReplicationsOnPool(world, { org_id: 'org_quiet' });
      const sources = await hostile;

      expect(run.outcome).toBe('completed');
      expect(run.results).toHaveLength(replicationJobs(world).length);
      for (const source of sources) expect(source.reason).toMatch(/still being read after 5 s/);
      const index = (predicate: (event: ComputeEvent) => boolean) => events.findIndex(predicate);
      const first_hostile_started = index((event) => event.org_id === 'org_hostile' && event.event === 'started');
      const first_hostile_finished = index((event) => event.org_id === 'org_hostile' && event.event === 'finished');
      const quiet = events.filter((event) => event.org_id === 'org_quiet');
      // A replication sent to a thread that lacks its world comes back and goes again with it: at least one task each.
      expect(quiet.filter((event) => event.event === 'started').length).toBeGreaterThanOrEqual(run.results.length);
      // The quiet run's first task started after the hostile read began, and its last ended while that read still held
      // its thread: the whole run went by beside it.
      expect(first_hostile_started).toBeLessThan(events.indexOf(quiet.find((event) => event.event === 'started')!));
      expect(events.indexOf(quiet.findLast((event) => event.event === 'finished')!)).toBeLessThan(first_hostile_finished);
      // The hostile organization never held more than its share, and the runs never waited for it.
      const limits = computeShareLimits();
      expect(mostHeld(events, 'org_hostile', 'extraction')).toBe(limits.extraction_per_org_max);
      expect(events.filter((event) => event.kind === 'extraction').every((event) => event.task_kind === 'pdf_pages')).toBe(true);
    } finally {
      unsubscribe();
    }
  }, 120_000);
});

/** A scheduler over `threads` threads whose tasks only record that they started. */
function scheduler(threads: number) {
  const fair = new FairScheduler(computeShares(threads));
  const started: string[] = [];
  const entries = new Map<string, Queued>();
  let number = 0;
  const submit = (name: string, org: string, kind: ShareKind) => {
    const entry: Queued = { task: ++number, kind, task_kind: kind === 'simulation' ? 'replication' : 'pdf_pages', org, start: () => started.push(name) };
    entries.set(name, entry);
    fair.enqueue(entry);
    fair.dispatch();
  };
  const finish = (name: string) => {
    fair.release(entries.get(name)!);
    fair.dispatch();
  };
  return { fair, started, submit, finish };
}

describe('compute shares', () => {
  it("keep one thread from extraction and give one organization's extraction at most half the threads", () => {
    expect(computeShares(1)).toEqual({ threads: 1, extraction_max: 1, extraction_per_org_max: 1 });
    expect(computeShares(2)).toEqual({ threads: 2, extraction_max: 1, extraction_per_org_max: 1 });
    expect(computeShares(3)).toEqual({ threads: 3, extraction_max: 2, extraction_per_org_max: 1 });
    expect(computeShares(8)).toEqual({ threads: 8, extraction_max: 7, extraction_per_org_max: 4 });
  });

  it("holds an organization's extraction to its share, every extraction to all threads but one, and leaves a run its thread", () => {
    const { started, submit, finish } = scheduler(4);
    for (let index = 1; index <= 4; index++) submit(`a${index}`, 'org_a', 'extraction');
    expect(started).toEqual(['a1', 'a2']); // half of 4 threads
    submit('b1', 'org_b', 'extraction');
    submit('b2', 'org_b', 'extraction');
    expect(started).toEqual(['a1', 'a2', 'b1']); // 3 of 4 threads for extraction
    submit('c1', 'org_c', 'simulation');
    submit('c2', 'org_c', 'simulation');
    expect(started).toEqual(['a1', 'a2', 'b1', 'c1']); // the fourth thread goes to the run; its next task waits for a thread
    finish('a1');
    expect(started.at(-1)).toBe('a3'); // extraction holds 2 of its 3 again: the oldest of the organizations holding as few
    finish('c1');
    expect(started.at(-1)).toBe('c2'); // extraction holds its 3: the free thread is the run's
    finish('b1');
    expect(started.at(-1)).toBe('b2'); // org_a holds its 2: org_b goes before org_a's older task
    expect(started).toHaveLength(7);
  });

  it('gives a free thread to the organization holding the fewest, whatever the order of the queue', () => {
    const { started, submit, finish } = scheduler(2);
    for (let index = 1; index <= 5; index++) submit(`a${index}`, 'org_a', 'simulation');
    submit('b1', 'org_b', 'simulation');
    submit('n1', 'service', 'simulation');
    expect(started).toEqual(['a1', 'a2']);
    finish('a1');
    expect(started.at(-1)).toBe('b1'); // org_a holds one, org_b and the service none: the older of those two goes first
    finish('a2');
    expect(started.at(-1)).toBe('a3'); // org_a and the service hold none now: org_a's task is the oldest
    finish('b1');
    expect(started.at(-1)).toBe('n1'); // the service holds none, org_a one
  });

  it('takes a queued task back out when its caller gives up, and not one that has started', () => {
    const { fair, started, submit } = scheduler(1);
    submit('a1', 'org_a', 'simulation');
    const waiting: Queued = { task: 99, kind: 'simulation', task_kind: 'replication', org: 'org_b', start: () => started.push('b1') };
    fair.enqueue(waiting);
    expect(fair.withdraw(waiting)).toBe(true);
    expect(fair.withdraw(waiting)).toBe(false);
    expect(started).toEqual(['a1']);
  });
});
