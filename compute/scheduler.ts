// Fair shares of the compute pool (compute/pool.ts) between task kinds and organizations. The pool's threads run one
// task at a time and a task is never interrupted by another: a PDF page can hold its thread up to the read's time
// limit. So the pool hands a thread to a task only when one is free, and chooses which queued task gets it:
// - the simulation kind (replications) may use every thread;
// - every other kind (PDF reading, screening, export building: "extraction" here) together holds at most all threads
//   but one, so a run always finds a thread as soon as the task in front of it ends (a replication, seconds at most);
// - one organization's extraction holds at most half the threads (at least one);
// - among the organizations with a task allowed to start, the one holding the fewest threads goes first (then the
//   oldest task), so a busy organization's queue never starves a quiet one.
// docs/decisions.md ("Compute pool shares") records the choice; test/unit/compute-fairness.test.ts shows it.
import type { ComputeTask } from './tasks.ts';

/** Simulation or anything else: every kind but replications shares the extraction limits. */
export type ShareKind = 'simulation' | 'extraction';

export function shareKind(task: Pick<ComputeTask, 'kind'>): ShareKind {
  return task.kind === 'replication' ? 'simulation' : 'extraction';
}

export type ComputeShares = {
  threads: number;
  /** threads the extraction kinds may hold together */
  extraction_max: number;
  /** threads one organization's extraction may hold */
  extraction_per_org_max: number;
};

/** The limits for a pool of `threads` threads (one thread: everything shares it, nothing can be reserved). */
export function computeShares(threads: number): ComputeShares {
  const extraction_max = Math.max(1, threads - 1);
  return { threads, extraction_max, extraction_per_org_max: Math.max(1, Math.min(extraction_max, Math.floor(threads / 2))) };
}

/** What the scheduler reports, in order: a task queued, given a thread, or done (answered, failed or aborted). */
export type ComputeEvent = {
  event: 'queued' | 'started' | 'finished';
  /** the task's number, in submission order */
  task: number;
  kind: ShareKind;
  task_kind: ComputeTask['kind'];
  /** the organization the task is done for; null for work of no organization (the service's own) */
  org_id: string | null;
};

export type Queued = { task: number; kind: ShareKind; task_kind: ComputeTask['kind']; org: string; start(): void };

const NO_ORG = '';

/** Which queued task gets the next free thread; `start()` of the chosen entry hands it to the pool. */
export class FairScheduler {
  private readonly queues = new Map<string, Queued[]>();
  private readonly running = new Map<string, { all: number; extraction: number }>();
  private runningAll = 0;
  private runningExtraction = 0;
  private shares: ComputeShares;

  constructor(shares: ComputeShares) {
    this.shares = shares;
  }

  get limits(): ComputeShares {
    return this.shares;
  }

  static orgKey(org_id: string | null | undefined): string {
    return org_id ?? NO_ORG;
  }

  enqueue(entry: Queued): void {
    const queue = this.queues.get(entry.org);
    if (queue) queue.push(entry);
    else this.queues.set(entry.org, [entry]);
  }

  /** Takes a still-queued entry out (its caller gave up); false when it had already started. */
  withdraw(entry: Queued): boolean {
    const queue = this.queues.get(entry.org);
    const index = queue?.indexOf(entry) ?? -1;
    if (index < 0) return false;
    queue!.splice(index, 1);
    if (queue!.length === 0) this.queues.delete(entry.org);
    return true;
  }

  /** Marks a started task's thread free again. */
  release(entry: Queued): void {
    const held = this.running.get(entry.org)!;
    held.all--;
    this.runningAll--;
    if (entry.kind === 'extraction') {
      held.extraction--;
      this.runningExtraction--;
    }
    if (held.all === 0) this.running.delete(entry.org);
  }

  /** Starts queued tasks while a thread is free and a queued task is allowed one. */
  dispatch(): void {
    while (this.runningAll < this.shares.threads) {
      const next = this.choose();
      if (!next) return;
      this.withdraw(next);
      const held = this.running.get(next.org) ?? { all: 0, extraction: 0 };
      this.running.set(next.org, held);
      held.all++;
      this.runningAll++;
      if (next.kind === 'extraction') {
        held.extraction++;
        this.runningExtraction++;
      }
      next.start();
    }
  }

  private choose(): Queued | null {
    let best: { entry: Queued; held: number } | null = null;
    for (const [org, queue] of this.queues) {
      const held = this.running.get(org) ?? { all: 0, extraction: 0 };
      const extraction_allowed = this.runningExtraction < this.shares.extraction_max && held.extraction < this.shares.extraction_per_org_max;
      const entry = queue.find((queued) => queued.kind === 'simulation' || extraction_allowed);
      if (!entry) continue;
      if (!best || held.all < best.held || (held.all === best.held && entry.task < best.entry.task)) best = { entry, held: held.all };
    }
    return best?.entry ?? null;
  }
}
