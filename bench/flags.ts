// Benchmark: V8 flags for the processes that run the engine. V8 flags are process-wide and the compute pool's threads
// inherit the process's, so each variant runs in a fresh process: no flag, the flag on the command line, and the flag
// set by v8.setFlagsFromString before any engine code is loaded (how `crucible-server worker` applies it:
// runtime/v8Flags.ts; NODE_OPTIONS refuses V8 flags of this kind). Each process creates the pool, warms every thread,
// and times bench/simulation's M/M/5 world in one pool thread, on each of the engine's two event loops (LOOPS). The variants take turns, one fresh process each per round;
// prints the median events/s and events per CPU-second of each (the verdict is on CPU time, which other load on the
// machine disturbs far less than wall time), its ratio to no flag, the spread between processes (max / min), and checks that
// the results are bit-identical (a digest of every replication's results). Not a timed test.
// Run: node_modules/.bin/node bench/flags.ts   (BENCH_FLAGS_ROUNDS rounds, default 5; BENCH_FLAGS_HORIZON the horizon
// in minutes, default 100000; BENCH_FLAGS_REPLICATIONS per process, default 10)
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { type Goal, loadLine, median, printGoals } from './goals.ts';

export const ENGINE_V8_FLAG = '--max-inlined-bytecode-size-cumulative=2400';
const ROUNDS = Number(process.env.BENCH_FLAGS_ROUNDS) || 5;
const HORIZON = Number(process.env.BENCH_FLAGS_HORIZON) || 100_000;
const REPLICATIONS = Number(process.env.BENCH_FLAGS_REPLICATIONS) || 10;
/** The smallest gain worth a process-wide flag: less is within what the machine's noise can make. */
export const FLAG_WORTH_MIN_RATIO = 1.03;

type Variant = { name: string; node_args: string[]; set: string | null };
const VARIANTS: Variant[] = [
  { name: 'no flag', node_args: [], set: null },
  { name: `${ENGINE_V8_FLAG} (command line)`, node_args: [ENGINE_V8_FLAG], set: null },
  { name: `${ENGINE_V8_FLAG} (v8.setFlagsFromString at start)`, node_args: [], set: ENGINE_V8_FLAG },
];

/**
 * The two event loops the engine runs: M/M/5 takes the loop generated per model; the same clinic where
 * patients give up waiting after an exponential patience (mean 2 min; reneging is not covered by the generated loop)
 * takes the generic loop, as 8 of the 11 sample worlds do.
 */
export const LOOPS = ['generated', 'generic'] as const;
type Loop = (typeof LOOPS)[number];

/** In the child: the pool, warmed, then the replications in one pool thread. Prints events/s and the results' digest. */
async function child(set: string | null, loop: Loop): Promise<void> {
  if (set) setFlagsFromString(set);
  const { computePool, closeComputePool } = await import('../compute/pool.ts');
  const { defaultThreadCount, runReplicationsOnPool } = await import('../compute/simulation/pool.ts');
  const { queueWorld } = await import('../test/support/worlds.ts');
  const world = queueWorld({
    servers: 5,
    arrivals_per_minute: 4,
    mean_service_minutes: 1,
    horizon_minutes: HORIZON,
    warm_up_minutes: 0,
    replications: REPLICATIONS,
  });
  if (loop === 'generic') {
    world.settings.mean_patience = { value: 2, unit: 'minutes', source: { kind: 'assumption', rationale: 'bench: the generic loop' } };
    Object.assign(world.steps[0]!, { patience: { dist: 'exponential', mean: { setting: 'mean_patience' } }, renege_to: 'done' });
  }
  await computePool();
  const threads = defaultThreadCount();
  const warm = Array.from({ length: threads * 2 }, (_, index) => ({ variant_id: 'baseline', replication_index: 900 + index, trace_limit: 0 }));
  await runReplicationsOnPool(world, { jobs: warm, threads });
  const jobs = Array.from({ length: REPLICATIONS }, (_, index) => ({ variant_id: 'baseline', replication_index: index, trace_limit: 0 }));
  const cpu = process.cpuUsage();
  const started = performance.now();
  const run = await runReplicationsOnPool(world, { jobs, threads: 1 });
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  const cpu_seconds = (used.user + used.system) / 1e6;
  const digest = createHash('sha256').update(JSON.stringify(run.results)).digest('hex').slice(0, 16);
  await closeComputePool();
  process.stdout.write(
    `${JSON.stringify({ events_per_second: run.events_simulated / seconds, events_per_cpu_second: run.events_simulated / cpu_seconds, digest })}\n`,
  );
}

type Measured = { events_per_second: number; events_per_cpu_second: number; digest: string };

function measure(variant: Variant, loop: Loop): Measured {
  const args = [...variant.node_args, fileURLToPath(import.meta.url), 'child', loop, variant.set ?? ''];
  const output = execFileSync(process.execPath, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  return JSON.parse(output.trim().split('\n').at(-1)!) as Measured;
}

/** Each variant's median events/s and events per CPU-second over the rounds, the variants taking turns, on one loop. */
function measureLoop(loop: Loop, digests: Set<string>): { wall: number[]; cpu: number[] } {
  process.stdout.write(`${loop} loop (${loop === 'generated' ? 'M/M/5' : 'M/M/5 with reneging'}):\n`);
  const rates = VARIANTS.map((): number[] => []);
  const cpuRates = VARIANTS.map((): number[] => []);
  for (let round = 1; round <= ROUNDS; round++) {
    const line = VARIANTS.map((variant, index) => {
      const figure = measure(variant, loop);
      rates[index]!.push(figure.events_per_second);
      cpuRates[index]!.push(figure.events_per_cpu_second);
      digests.add(`${loop} ${figure.digest}`);
      return `${Math.round(figure.events_per_second).toLocaleString('en')} (${Math.round(figure.events_per_cpu_second).toLocaleString('en')} per CPU-s)`;
    });
    process.stdout.write(`round ${round}: ${line.join(' | ')} events/s\n`);
  }
  const none = median(rates[0]!);
  const noneCpu = median(cpuRates[0]!);
  VARIANTS.forEach((variant, index) => {
    const [wall, cpu] = [rates[index]!, cpuRates[index]!];
    const spread = Math.max(...cpu) / Math.min(...cpu);
    process.stdout.write(
      `${variant.name.padEnd(72)} median ${Math.round(median(wall)).toLocaleString('en').padStart(11)} events/s ×${(median(wall) / none).toFixed(3)}; per CPU-second ${Math.round(median(cpu)).toLocaleString('en').padStart(11)} ×${(median(cpu) / noneCpu).toFixed(3)}, spread ×${spread.toFixed(3)}\n`,
    );
  });
  return { wall: rates.map(median), cpu: cpuRates.map(median) };
}

async function main(): Promise<void> {
  process.stdout.write(
    `engine in one pool thread, M/M/5 horizon ${HORIZON} min × ${REPLICATIONS} replications, a fresh process per variant per round, ${ROUNDS} rounds per loop; ${loadLine()} at the start\n`,
  );
  const digests = new Set<string>();
  const figures = LOOPS.map((loop) => ({ loop, ...measureLoop(loop, digests) }));
  // One digest per loop: every variant and round gave the same results.
  const identical = digests.size === LOOPS.length;
  process.stdout.write(`results bit-identical across variants and rounds: ${identical ? 'yes' : `NO (${digests.size} digests for ${LOOPS.length} loops)`}\n`);
  // Judged per CPU-second: on a loaded machine the wall clock measures the other load as much as the flag. V8 flags are
  // process-wide, so the worker either has the flag for both loops or for neither: the goal is the generic loop's gain
  // (most worlds run it), and the generated loop's figure is printed beside it, the price of the flag there.
  const gainOf = (loop: Loop) => {
    const { wall, cpu } = figures.find((figure) => figure.loop === loop)!;
    return { cpu: cpu[2]! / cpu[0]!, wall: wall[2]! / wall[0]! };
  };
  const generated = gainOf('generated');
  process.stdout.write(`generated loop with the flag set at start: ×${generated.cpu.toFixed(3)} per CPU-second (wall ×${generated.wall.toFixed(3)})\n`);
  const generic = gainOf('generic');
  const goals: Goal[] = [
    {
      goal: `generic loop: ${ENGINE_V8_FLAG} set at start ≥ ×${FLAG_WORTH_MIN_RATIO} the engine's events per CPU-second without it, results identical`,
      figure: `×${generic.cpu.toFixed(3)} (wall ×${generic.wall.toFixed(3)}; generated loop ×${generated.cpu.toFixed(3)}), ${identical ? 'identical' : 'DIFFERENT'}`,
      met: identical && generic.cpu >= FLAG_WORTH_MIN_RATIO,
    },
  ];
  printGoals(goals);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  if (process.argv[2] === 'child') await child(process.argv[4] || null, process.argv[3] as Loop);
  else await main();
  process.exit(0);
}
