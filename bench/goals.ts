// What every benchmark prints at its end: each goal, the figure measured against it, MET / NOT MET, and the load
// average at that moment (on a shared machine a figure means little without it). Not a benchmark itself.
import { availableParallelism, loadavg } from 'node:os';

/** The 1, 5 and 15 minute load averages, with the number of cores they are out of. */
export function loadLine(): string {
  return `load average ${loadavg()
    .map((load) => load.toFixed(2))
    .join(', ')} on ${availableParallelism()} cores`;
}

export type Goal = { goal: string; figure: string; met: boolean | null };

/** One line per goal: `GOAL <goal>: <figure> MET | NOT MET | NOT MEASURED (load …)`. */
export function printGoals(goals: Goal[]): void {
  const load = loadLine();
  for (const { goal, figure, met } of goals) {
    const verdict = met === null ? 'NOT MEASURED' : met ? 'MET' : 'NOT MET';
    process.stdout.write(`GOAL ${goal}: ${figure} — ${verdict} (${load})\n`);
  }
}

/** The median of a list of numbers (the upper middle one for an even count). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/**
 * The GOAL lines of a benchmark's whole output, gathered once it has ended: the chunks a pipe delivered are joined as
 * bytes and decoded and split once, so a line (or a multi-byte character such as "≥" or "—") cut between two chunks is
 * neither lost, garbled nor counted twice.
 */
export function goalLines(chunks: readonly Uint8Array[]): string[] {
  return Buffer.concat(chunks)
    .toString('utf8')
    .split(/\r?\n/)
    .filter((line) => line.startsWith('GOAL '));
}
