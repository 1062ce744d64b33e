// Benchmark: engine events per second on an M/M/c world, one thread and the pool on all cores, beside SimPy running
// the same model (same servers, rates and horizon) in the same run. Not a timed test; prints ratios and whether the
// goals are met. SimPy and the engine (one pool thread) take turns for BENCH_ROUNDS rounds and the median is judged.
// Every engine figure is warm: one untimed replication per thread before timing.
// The one-thread figure the goal is judged on is one pool thread running the replications one after another: the service
// runs replications only on pool threads (compute/simulation/pool.ts), and a pool thread loads its modules from Node's
// compile cache, so it keeps V8's ArrayBufferDetaching protector that this process lost when Node stripped its
// TypeScript (compute/pool.ts). The engine on this process's main thread is printed beside it, for reference.
// V8 flags: the service runs the pool only in `crucible-server worker`, which sets the engine's V8 flags at start
// (runtime/v8Flags.ts); main() applies the same flags, by the same function, before it loads any engine code or starts the
// pool (the engine's modules are imported dynamically after it, so no engine function is compiled before), and prints them.
// Run: node_modules/.bin/node bench/simulation.ts   (smaller for a smoke test: BENCH_SIMULATION_HORIZON,
// BENCH_SIMULATION_REPLICATIONS, BENCH_SIMULATION_ROUNDS, BENCH_SIMULATION_POOL_REPLICATIONS)
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { ReplicationJob } from '../domain/simulation/index.ts';
import { applyV8Flags } from '../runtime/v8Flags.ts';
import type { queueWorld } from '../test/support/worlds.ts';
import { type Goal, median, printGoals } from './goals.ts';

// The engine's modules, loaded by main() after the worker's V8 flags are set (see above).
let engine: {
  computePool: typeof import('../compute/pool.ts').computePool;
  closeComputePool: typeof import('../compute/pool.ts').closeComputePool;
  defaultThreadCount: typeof import('../compute/simulation/pool.ts').defaultThreadCount;
  runReplicationsOnPool: typeof import('../compute/simulation/pool.ts').runReplicationsOnPool;
  compileModel: typeof import('../domain/simulation/index.ts').compileModel;
  runReplication: typeof import('../domain/simulation/index.ts').runReplication;
  queueWorld: typeof queueWorld;
};

/** Sets the V8 flags `crucible-server worker` sets, then loads the engine's modules (so none is compiled without them). */
async function loadEngineWithWorkerFlags(): Promise<readonly string[]> {
  const flags = applyV8Flags('worker');
  const pool = await import('../compute/pool.ts');
  const simulationPool = await import('../compute/simulation/pool.ts');
  const simulation = await import('../domain/simulation/index.ts');
  const worlds = await import('../test/support/worlds.ts');
  engine = {
    computePool: pool.computePool,
    closeComputePool: pool.closeComputePool,
    defaultThreadCount: simulationPool.defaultThreadCount,
    runReplicationsOnPool: simulationPool.runReplicationsOnPool,
    compileModel: simulation.compileModel,
    runReplication: simulation.runReplication,
    queueWorld: worlds.queueWorld,
  };
  return flags;
}

export const BENCH_SERVERS = 5;
export const BENCH_ARRIVALS_PER_MINUTE = 4;
export const BENCH_MEAN_SERVICE_MINUTES = 1;
export const BENCH_HORIZON_MINUTES = Number(process.env.BENCH_SIMULATION_HORIZON) || 100_000;
export const BENCH_SINGLE_THREAD_REPLICATIONS = Number(process.env.BENCH_SIMULATION_REPLICATIONS) || 10;
/** Rounds of SimPy then the engine (one pool thread), taking turns so a change of load falls on both alike. */
export const BENCH_ROUNDS = Number(process.env.BENCH_SIMULATION_ROUNDS) || 5;
/** Replications per pool thread in the timed pool run: enough that the last one's tail is a small share of the wall time. */
export const BENCH_POOL_REPLICATIONS_PER_THREAD = Number(process.env.BENCH_SIMULATION_POOL_REPLICATIONS) || 20;
/** The engine's goals: one pool thread at least 60 times SimPy on a quiet machine, 45 times at load 2. */
export const REQUIRED_RATIO_SINGLE_THREAD = 60;
export const REQUIRED_RATIO_AT_LOAD_2 = 45;
/** The load averages the two goals are stated at: "quiet" is under 1.5, "load 2" from 1.5 to 2.5. */
export const QUIET_LOAD_MAX = 1.5;
export const LOAD_2_MAX = 2.5;
/** The pool's goal: on 2 cores, at least 1.8 times the single-thread events per second. */
export const REQUIRED_POOL_SPEED_UP_ON_2_CORES = 1.8;

export type BenchFigures = {
  /** one pool thread running the replications one after another (where the service runs the engine) */
  engine_single_thread_events_per_second: number;
  /** this process's main thread, which lost the ArrayBufferDetaching protector when Node stripped its TypeScript */
  engine_main_thread_events_per_second: number;
  engine_pool_events_per_second: number;
  pool_threads: number;
  simpy_events_per_second: number | null;
  ratio_single_thread: number | null;
  ratio_pool_per_core: number | null;
  ratio_pool_total: number | null;
  /** pool events/s over single-thread events/s */
  pool_speed_up: number;
  /** process CPU seconds over wall seconds during the timed pool run */
  pool_cores_used: number;
};

function python(): string | null {
  for (const candidate of ['/usr/bin/python3', 'python3']) {
    try {
      execFileSync(candidate, ['-c', 'import simpy'], { stdio: 'ignore' });
      return candidate;
    } catch {}
  }
  return null;
}

type World = ReturnType<typeof queueWorld>;

function benchWorld(): World {
  return engine.queueWorld({
    servers: BENCH_SERVERS,
    arrivals_per_minute: BENCH_ARRIVALS_PER_MINUTE,
    mean_service_minutes: BENCH_MEAN_SERVICE_MINUTES,
    horizon_minutes: BENCH_HORIZON_MINUTES,
    warm_up_minutes: 0,
    replications: BENCH_SINGLE_THREAD_REPLICATIONS,
  });
}

/** This process's main thread, for reference: a warm-up replication for the JIT, then timed replications. */
function mainThreadRate(world: World): number {
  const model = engine.compileModel(world, 'baseline');
  engine.runReplication(world, { variant_id: 'baseline', replication_index: 999 }, model);
  let events = 0;
  const started = performance.now();
  for (let replication = 0; replication < BENCH_SINGLE_THREAD_REPLICATIONS; replication++)
    events += engine.runReplication(world, { variant_id: 'baseline', replication_index: replication }, model).event_counts.events_total;
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `engine, this process's main thread (TypeScript stripped here, protector lost; not where the service runs it): ${events} events in ${seconds.toFixed(3)} s = ${Math.round(events / seconds).toLocaleString('en')} events/s`,
  );
  return events / seconds;
}

/** One pool thread at a time: the replications dispatched with threads: 1. Events per second. */
async function singleThreadRate(world: World): Promise<number> {
  const jobs: ReplicationJob[] = [];
  for (let replication = 0; replication < BENCH_SINGLE_THREAD_REPLICATIONS; replication++)
    jobs.push({ variant_id: 'baseline', replication_index: replication, trace_limit: 0 });
  const started = performance.now();
  const run = await engine.runReplicationsOnPool(world, { jobs, threads: 1 });
  return run.events_simulated / ((performance.now() - started) / 1000);
}

/** Every core: events per second and the cores the process actually had (CPU time over wall time). */
async function poolRate(world: World, threads: number): Promise<{ rate: number; cores_used: number }> {
  const jobs: ReplicationJob[] = [];
  for (let replication = 0; replication < BENCH_POOL_REPLICATIONS_PER_THREAD * threads; replication++)
    jobs.push({ variant_id: 'baseline', replication_index: replication, trace_limit: 0 });
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const pool = await engine.runReplicationsOnPool(world, { jobs, threads });
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const rate = pool.events_simulated / seconds;
  const cores_used = (cpu.user + cpu.system) / 1e6 / seconds;
  console.log(
    `engine, pool of ${threads} threads (warm): ${pool.events_simulated} events in ${seconds.toFixed(3)} s = ${Math.round(rate).toLocaleString('en')} events/s (cores used: ${cores_used.toFixed(2)})`,
  );
  return { rate, cores_used };
}

/** SimPy on the same model: engine-equivalent events per second, or null without python3-simpy3. */
function simpyRate(interpreter: string | null): number | null {
  const script = fileURLToPath(new URL('./simpy_mmc.py', import.meta.url));
  if (!interpreter || !existsSync(script)) return null;
  const output = execFileSync(
    interpreter,
    [script, String(BENCH_SERVERS), String(BENCH_ARRIVALS_PER_MINUTE), String(BENCH_MEAN_SERVICE_MINUTES), String(BENCH_HORIZON_MINUTES), '1'],
    { encoding: 'utf8' },
  );
  const figures = JSON.parse(output.trim()) as { equivalent_events: number; simpy_events: number | null; wall_seconds: number };
  return figures.equivalent_events / figures.wall_seconds;
}

/** SimPy and the engine (one pool thread) taking turns, BENCH_ROUNDS rounds; the medians and the median per-round ratio. */
async function alternate(world: World): Promise<{ engine: number; simpy: number | null; ratio: number | null; load_max: number }> {
  const interpreter = python();
  if (!interpreter) console.log('SimPy not found: install python3-simpy3 (flock /tmp/apt.lock apt-get install -y python3-simpy3)');
  const engine: number[] = [];
  const simpy: number[] = [];
  const ratios: number[] = [];
  let load_max = loadavg()[0]!;
  for (let round = 1; round <= BENCH_ROUNDS; round++) {
    const reference = simpyRate(interpreter);
    const ours = await singleThreadRate(world);
    load_max = Math.max(load_max, loadavg()[0]!);
    engine.push(ours);
    if (reference) {
      simpy.push(reference);
      ratios.push(ours / reference);
    }
    const against = reference ? `, SimPy ${Math.round(reference).toLocaleString('en')} events/s, ratio ${(ours / reference).toFixed(1)}x` : '';
    console.log(`round ${round}: engine (1 pool thread) ${Math.round(ours).toLocaleString('en')} events/s${against} (load ${loadavg()[0]!.toFixed(2)})`);
  }
  return { engine: median(engine), simpy: simpy.length ? median(simpy) : null, ratio: ratios.length ? median(ratios) : null, load_max };
}

function engineGoals(ratio: number | null, load_max: number): Goal[] {
  const figure = ratio === null ? 'no SimPy' : `${ratio.toFixed(1)}x SimPy (median of ${BENCH_ROUNDS} rounds; 1-min load up to ${load_max.toFixed(2)})`;
  // Each goal is judged only at the load it is stated for: a quiet run says nothing of the load-2 goal, and the reverse.
  const judged = (required: number, load_min: number, load_limit: number) =>
    ratio === null || load_max > load_limit || load_max < load_min ? null : ratio >= required;
  return [
    {
      goal: `engine, one pool thread ≥ ${REQUIRED_RATIO_SINGLE_THREAD}x SimPy on a quiet machine (judged at load < ${QUIET_LOAD_MAX} only)`,
      figure,
      met: judged(REQUIRED_RATIO_SINGLE_THREAD, 0, QUIET_LOAD_MAX),
    },
    {
      goal: `engine, one pool thread ≥ ${REQUIRED_RATIO_AT_LOAD_2}x SimPy at load 2 (judged at load ${QUIET_LOAD_MAX}–${LOAD_2_MAX} only)`,
      figure,
      met: judged(REQUIRED_RATIO_AT_LOAD_2, QUIET_LOAD_MAX, LOAD_2_MAX),
    },
  ];
}

export async function main(): Promise<BenchFigures> {
  const flags = await loadEngineWithWorkerFlags();
  console.log(`V8 flags as \`crucible-server worker\` sets them (applyV8Flags('worker'), before the engine loads): ${flags.join(' ') || 'none'}`);
  const world = benchWorld();
  console.log(
    `M/M/${BENCH_SERVERS}: ${BENCH_ARRIVALS_PER_MINUTE} arrivals/min, mean service ${BENCH_MEAN_SERVICE_MINUTES} min, horizon ${BENCH_HORIZON_MINUTES} min`,
  );
  console.log('events = arrivals + service ends (the engine counts the events it processes; SimPy is counted the same way)');
  const mainThread = mainThreadRate(world);
  // The pool. The service creates it once at start (compute/pool.ts), so a run never pays thread start-up or cold code:
  // create it and give each thread one warm-up replication (as the main thread had) before timing.
  const threads = engine.defaultThreadCount();
  await engine.computePool();
  const warmUp: ReplicationJob[] = [];
  for (let thread = 0; thread < threads; thread++) warmUp.push({ variant_id: 'baseline', replication_index: 999 + thread, trace_limit: 0 });
  await engine.runReplicationsOnPool(world, { jobs: warmUp, threads });
  const rounds = await alternate(world);
  const pool = await poolRate(world, threads);
  await engine.closeComputePool();
  const simpy = rounds.simpy;
  const result: BenchFigures = {
    engine_single_thread_events_per_second: rounds.engine,
    engine_main_thread_events_per_second: mainThread,
    engine_pool_events_per_second: pool.rate,
    pool_threads: threads,
    simpy_events_per_second: simpy,
    ratio_single_thread: rounds.ratio,
    ratio_pool_per_core: simpy ? pool.rate / threads / simpy : null,
    ratio_pool_total: simpy ? pool.rate / simpy : null,
    pool_speed_up: pool.rate / rounds.engine,
    pool_cores_used: pool.cores_used,
  };
  console.log(
    `medians: engine 1 pool thread ${Math.round(rounds.engine).toLocaleString('en')} events/s; SimPy ${simpy ? Math.round(simpy).toLocaleString('en') : '—'} events/s`,
  );
  if (simpy) {
    console.log(`ratio, this process's main thread vs SimPy (reference, not the goal's figure): ${(mainThread / simpy).toFixed(1)}x`);
    console.log(
      `ratio, pool per core vs SimPy: ${result.ratio_pool_per_core!.toFixed(1)}x; pool on ${threads} cores vs SimPy on one: ${result.ratio_pool_total!.toFixed(1)}x`,
    );
  }
  const shortOfCores = pool.cores_used < threads - 0.2 ? ` (the pool had ${pool.cores_used.toFixed(2)} of ${threads} cores: other load on the machine)` : '';
  printGoals([
    ...engineGoals(rounds.ratio, rounds.load_max),
    {
      goal: `pool of ${threads} ≥ ${REQUIRED_POOL_SPEED_UP_ON_2_CORES}x one thread (stated for 2 cores)`,
      figure: `${result.pool_speed_up.toFixed(2)}x${shortOfCores}`,
      met: threads === 2 ? result.pool_speed_up >= REQUIRED_POOL_SPEED_UP_ON_2_CORES : null,
    },
  ]);
  return result;
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
