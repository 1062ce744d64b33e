// Readiness (GET /v1/health) and the job gate: the database, Temporal and worker probes, each bounded by a deadline and
// run together, their result shared by every caller for READINESS_CACHE_MS (one probe in flight at a time), then served
// while one probe renews it (up to READINESS_STALE_MAX_MS), so a probe storm costs one probe a second, no caller of a
// busy service waits for a probe, and an answer never waits longer than PROBE_DEADLINE_MS on something that is down.
// Liveness (GET /v1/health/live) needs none of this: the process answers.
import type { Static } from 'typebox';
import type { Health, HealthCheck } from '../domain/contracts/public.ts';
import { workQueueName } from '../domain/jobs.ts';
import { temporalUnavailable } from '../integrations/temporal/jobs.ts';
import type { AppDeps } from './context.ts';

/** Each probe gives up after this long; all run at once, so readiness answers within it plus the request's own cost. */
export const PROBE_DEADLINE_MS = 1_000;
/** A readiness result is reused for at most this long… */
export const READINESS_CACHE_MS = 1_000;
/**
 * …and answers for up to this long while one probe renews it in the background, so no caller of a busy service waits
 * for a probe (a report is then at most this old; a caller after a quiet spell longer than it waits for a fresh probe).
 */
export const READINESS_STALE_MAX_MS = READINESS_CACHE_MS + 2 * PROBE_DEADLINE_MS;

/** One check as GET /v1/health shows it (domain/contracts/public.ts). */
export type Check = Static<typeof HealthCheck>;
export type ReadinessReport = { ok: boolean; checks: Static<typeof Health>['checks'] };

/** Rejects after ms with a message naming what did not answer; the promise raced against it is left to settle alone. */
function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function probeDatabase(deps: AppDeps): Promise<Check> {
  try {
    await within(PROBE_DEADLINE_MS, 'the database', deps.db.query('select 1'));
    return { ok: true, detail: deps.db.kind };
  } catch (error) {
    return { ok: false, detail: (error as Error).message };
  }
}

async function probeTemporal(deps: AppDeps): Promise<{ temporal: Check; worker: Check }> {
  const temporal = deps.temporal;
  if (!temporal) return { temporal: { ok: false, detail: 'not connected' }, worker: { ok: false, detail: 'not connected' } };
  const deadline = Date.now() + PROBE_DEADLINE_MS;
  const bounded = <T>(what: string, call: () => Promise<T>) => within(PROBE_DEADLINE_MS, what, temporal.client.withDeadline(deadline, call));
  try {
    await bounded('Temporal', () => temporal.client.workflowService.getSystemInfo({}));
  } catch (error) {
    return { temporal: { ok: false, detail: (error as Error).message }, worker: { ok: false, detail: 'unknown: Temporal is unreachable' } };
  }
  const reached: Check = { ok: true, detail: temporal.namespace };
  try {
    // The workflows' queue (workflow pollers) decides readiness; the model and simulation queues (activity pollers) are
    // named beside it, so an operator sees which kind of work would wait (their jobs start and stay queued meanwhile).
    const pollersOf = async (name: string, taskQueueType: 1 | 2) =>
      (
        await bounded('Temporal', () =>
          temporal.client.workflowService.describeTaskQueue({ namespace: temporal.namespace, taskQueue: { name }, taskQueueType }),
        )
      ).pollers?.length ?? 0;
    const [pollers, model, simulation] = await Promise.all([
      pollersOf(temporal.task_queue, 1),
      pollersOf(workQueueName(temporal.task_queue, 'model'), 2),
      pollersOf(workQueueName(temporal.task_queue, 'simulation'), 2),
    ]);
    const other = (queue: 'model' | 'simulation', count: number, waits: string) =>
      `${workQueueName(temporal.task_queue, queue)}: ${count > 0 ? `${count} poller(s)` : `no poller (${waits} wait)`}`;
    const detail = `${pollers} poller(s) on task queue ${temporal.task_queue}; ${other('model', model, 'AI steps')}; ${other('simulation', simulation, 'runs')}`;
    return { temporal: reached, worker: { ok: pollers > 0, detail } };
  } catch (error) {
    return { temporal: reached, worker: { ok: false, detail: `unknown: ${(error as Error).message}` } };
  }
}

export type Readiness = {
  /** The latest report, probed afresh when the cached one is older than READINESS_CACHE_MS. */
  report(): Promise<ReadinessReport>;
};

export function createReadiness(deps: AppDeps): Readiness {
  let cached: { report: ReadinessReport; at: number } | null = null;
  let probing: Promise<ReadinessReport> | null = null;
  const probe = async (): Promise<ReadinessReport> => {
    const [database, reached] = await Promise.all([probeDatabase(deps), probeTemporal(deps)]);
    const checks = { database, ...reached };
    return { ok: database.ok && reached.temporal.ok && reached.worker.ok, checks };
  };
  const refresh = (): Promise<ReadinessReport> => {
    probing ??= probe().then(
      (report) => {
        cached = { report, at: Date.now() };
        probing = null;
        return report;
      },
      (error) => {
        probing = null;
        throw error;
      },
    );
    return probing;
  };
  return {
    report() {
      const age_ms = cached ? Date.now() - cached.at : Number.POSITIVE_INFINITY;
      if (cached && age_ms < READINESS_CACHE_MS) return Promise.resolve(cached.report);
      if (cached && age_ms < READINESS_STALE_MAX_MS) {
        // A probe storm waits for no probe: the last report answers while one probe renews it.
        refresh().catch(() => {});
        return Promise.resolve(cached.report);
      }
      return refresh();
    },
  };
}

const readinessOf = new WeakMap<AppDeps, Readiness>();

/** One readiness per app (its deps), shared by the health route and the job gate. */
export function readiness(deps: AppDeps): Readiness {
  let found = readinessOf.get(deps);
  if (!found) {
    found = createReadiness(deps);
    readinessOf.set(deps, found);
  }
  return found;
}

/** How long the job gate waits for Temporal itself when readiness saw it down (a slow answer on a loaded machine). */
export const GATE_CONFIRM_DEADLINE_MS = 2_500;

/**
 * The job gate (a route's `starts_job`): while Temporal is unreachable a job start answers 503 TEMPORARILY_UNAVAILABLE
 * before anything is written or charged. Readiness (cached, 1 s probes) says Temporal is up: go on at once; it says
 * down: Temporal is asked once more with GATE_CONFIRM_DEADLINE_MS, so a merely slow Temporal never refuses a job, and
 * an unreachable one is answered within about 3.5 s. Without a Temporal client at all (an API-only test process) the
 * job is created queued for the reconciler, as before.
 */
export async function requireTemporal(deps: AppDeps, what: string): Promise<void> {
  const temporal = deps.temporal;
  if (!temporal) return;
  const report = await readiness(deps).report();
  if (report.checks.temporal.ok) return;
  try {
    await temporal.client.withDeadline(Date.now() + GATE_CONFIRM_DEADLINE_MS, () => temporal.client.workflowService.getSystemInfo({}));
  } catch {
    throw temporalUnavailable(what);
  }
}
