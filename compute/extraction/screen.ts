// Screening off the event loop: our rules (domain/intake/screening.ts) and secretlint's preset run as one task on the
// compute pool, with a deadline like PDF reading (spec: Intake source; docs/decisions.md, "Screening in linear time").
import { type ScreeningHit, screenLinesForHits } from '../../domain/intake/screening.ts';
import { SCREENING_SECONDS_MAX } from '../../domain/intake/sources.ts';
import { secretlintHits } from './secretlint.ts';

export type ScreeningResult = { ok: true; hits: ScreeningHit[] } | { ok: false; reason: string };

/** How often a screening's deadline is checked; a screening is stopped at most this much after it. */
const SCREENING_CHECK_MS = 100;

/**
 * Screens lines (already split at LINE_CHARS_MAX) on a pool thread: our hits first, then secretlint's, as
 * findingsFromHits expects. A screening still going `seconds_max` (SCREENING_SECONDS_MAX) after its thread began it is
 * answered with a reason and its thread is ended (the pool starts another); time spent queued does not count.
 */
export async function screenOnPool(lines: string[], options: { seconds_max?: number; org_id?: string | null } = {}): Promise<ScreeningResult> {
  const { runComputeTask } = await import('../pool.ts');
  const seconds_max = options.seconds_max ?? SCREENING_SECONDS_MAX;
  const started = new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));
  const abort = new AbortController();
  let started_at: number | null = null;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<ScreeningResult>((resolve) => {
    const check = () => {
      const now = performance.now();
      if (started_at === null && Atomics.load(started, 0) === 1) started_at = now;
      if (started_at !== null && now - started_at >= seconds_max * 1000) {
        abort.abort();
        return resolve({ ok: false, reason: tooSlow(seconds_max) });
      }
      timer = setTimeout(check, SCREENING_CHECK_MS);
    };
    check();
  });
  const screening = runComputeTask<ScreeningHit[]>({ kind: 'screening', lines, started }, { signal: abort.signal, org_id: options.org_id ?? undefined }).then(
    (hits): ScreeningResult => ({ ok: true, hits }),
    (error: unknown): ScreeningResult => {
      if (abort.signal.aborted) return { ok: false, reason: tooSlow(seconds_max) };
      throw error;
    },
  );
  try {
    return await Promise.race([screening, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

function tooSlow(seconds_max: number): string {
  return `screening was still running after ${seconds_max} s; SCREENING_SECONDS_MAX is ${seconds_max}; split the source into smaller files and upload them again`;
}

/** Runs on a pool thread (compute/worker.ts): marks the screening started, then screens. */
export async function screenShare(lines: string[], started: Int32Array): Promise<ScreeningHit[]> {
  Atomics.store(started, 0, 1);
  return [...screenLinesForHits(lines), ...(await secretlintHits(lines))];
}
