// Reads V8 CPU profiles (`node --cpu-prof`) and prints where the CPU went: self time by module (a package under
// node_modules, one of our files, Node's own internals, V8's garbage collector and idle time) and the functions with the
// most self time. Used by bench/service.ts; `node bench/profile.ts <dir or .cpuprofile>` prints one on its own.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

type ProfileNode = { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; hitCount?: number };
type CpuProfile = { nodes: ProfileNode[]; startTime: number; endTime: number; samples: number[]; timeDeltas: number[] };

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The module a frame belongs to: `pino`, `@temporalio/worker`, `api/app.ts`, `node:internal/…`, or V8's own names. */
export function moduleOf(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const path = url.startsWith('file://') ? fileURLToPath(url) : url;
  const inModules = path.lastIndexOf('node_modules/');
  if (inModules >= 0) {
    const [first, second] = path.slice(inModules + 'node_modules/'.length).split('/');
    return first!.startsWith('@') ? `${first}/${second}` : first!;
  }
  if (path.startsWith('node:')) return path.split('/').slice(0, 2).join('/');
  return path.startsWith(ROOT) ? path.slice(ROOT.length) : path;
}

/**
 * A span of the monotonic clock in microseconds (`process.hrtime.bigint() / 1000n` in any process: V8 stamps its
 * samples with the same clock on Linux), so a profile of a whole process can be read for the load phases only.
 */
export type Window = { from_us: number; to_us: number };

/** The monotonic clock in microseconds, as V8 stamps profile samples. */
export function monotonicMicros(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

/** Self milliseconds per key, from the samples and their time deltas, counting only samples inside the windows (if any). */
export function selfTimes(profile: CpuProfile, keyOf: (node: ProfileNode) => string, windows: Window[] = []): Map<string, number> {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const totals = new Map<string, number>();
  let at = profile.startTime;
  for (let index = 0; index < profile.samples.length; index++) {
    at += profile.timeDeltas[index] ?? 0;
    if (windows.length && !windows.some((w) => at >= w.from_us && at <= w.to_us)) continue;
    const key = keyOf(byId.get(profile.samples[index]!)!);
    totals.set(key, (totals.get(key) ?? 0) + (profile.timeDeltas[index + 1] ?? 0) / 1000);
  }
  return totals;
}

function top(totals: Map<string, number>, count: number, all: number): string[] {
  return [...totals.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([key, ms]) => `    ${((ms / all) * 100).toFixed(1).padStart(5)}%  ${ms.toFixed(0).padStart(7)} ms  ${key}`);
}

export function summariseProfile(file: string, windows: Window[] = [], count = 15): string {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const modules = selfTimes(profile, (node) => moduleOf(node.callFrame.url, node.callFrame.functionName), windows);
  const frame = (node: ProfileNode) =>
    `${node.callFrame.functionName || '(anonymous)'} ${moduleOf(node.callFrame.url, node.callFrame.functionName)}:${node.callFrame.lineNumber + 1}`;
  const functions = selfTimes(profile, frame, windows);
  const all = [...modules.values()].reduce((sum, ms) => sum + ms, 0);
  const busy = all - (modules.get('(idle)') ?? 0);
  const scope = windows.length ? 'in the load phases' : 'profiled';
  return [
    `${basename(file)}: ${(all / 1000).toFixed(1)} s ${scope}, ${(busy / 1000).toFixed(1)} s on the CPU (${((busy / all) * 100).toFixed(0)}%)`,
    '  self time by module (share of the profile):',
    ...top(modules, count, all),
    '  self time by function:',
    ...top(functions, count, all),
  ].join('\n');
}

export function summariseProfiles(path: string, windows: Window[] = []): void {
  const files = statSync(path).isDirectory()
    ? readdirSync(path)
        .filter((name) => name.endsWith('.cpuprofile'))
        .map((name) => join(path, name))
    : [path];
  for (const file of files.sort()) process.stdout.write(`\n${summariseProfile(file, windows)}\n`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) summariseProfiles(process.argv[2] ?? '.');
