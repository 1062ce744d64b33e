// Benchmark: engine events per second on an M/M/c world, one thread and the pool on all cores, beside SimPy running
// the same model (same servers, rates and horizon) in the same run. Not a timed test; prints ratios and whether the
// goals are met. Every engine figure is warm: one untimed replication per thread before timing.
// The one-thread figure the goal is judged on is one pool thread running the replications one after another: the service
// runs replications only on pool threads (compute/simulation/pool.ts), and a pool thread loads its modules from Node's
// compile cache, so it keeps V8's ArrayBufferDetaching protector that this process lost when Node stripped its
// TypeScript (compute/pool.ts). The engine on this process's main thread is printed beside it, for reference.
// Run: node_modules/.bin/node bench/simulation.ts
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { closeComputePool, computePool } from '../compute/pool.ts';
import { defaultThreadCount, runReplicationsOnPool } from '../compute/simulation/pool.ts';
import { compileModel, type ReplicationJob, runReplication } from '../domain/simulation/index.ts';
import { queueWorld } from '../test/support/worlds.ts';

export const BENCH_SERVERS = 5;
export const BENCH_ARRIVALS_PER_MINUTE = 4;
export const BENCH_MEAN_SERVICE_MINUTES = 1;
export const BENCH_HORIZON_MINUTES = 100_000;
export const BENCH_SINGLE_THREAD_REPLICATIONS = 10;
/** Replications per pool thread in the timed pool run: enough that the last one's tail is a small share of the wall time. */
export const BENCH_POOL_REPLICATIONS_PER_THREAD = 20;
/** The engine's goal (docs/performance.md): one thread at least 40 times SimPy on the same model in the same run. */
export const REQUIRED_RATIO_SINGLE_THREAD = 40;
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

export async function main(): Promise<BenchFigures> {
  const world = queueWorld({
    servers: BENCH_SERVERS,
    arrivals_per_minute: BENCH_ARRIVALS_PER_MINUTE,
    mean_service_minutes: BENCH_MEAN_SERVICE_MINUTES,
    horizon_minutes: BENCH_HORIZON_MINUTES,
    warm_up_minutes: 0,
    replications: BENCH_SINGLE_THREAD_REPLICATIONS,
  });
  console.log(`M/M/${BENCH_SERVERS}: ${BENCH_ARRIVALS_PER_MINUTE} arrivals/min, mean service ${BENCH_MEAN_SERVICE_MINUTES} min, horizon ${BENCH_HORIZON_MINUTES} min`);
  console.log('events = arrivals + service ends (the engine counts its heap events; SimPy is counted the same way)');

  // This process's main thread, for reference: a warm-up replication for the JIT, then timed replications.
  const model = compileModel(world, 'baseline');
  runReplication(world, { variant_id: 'baseline', replication_index: 999 }, model);
  let events = 0;
  let started = performance.now();
  for (let replication = 0; replication < BENCH_SINGLE_THREAD_REPLICATIONS; replication++) events += runReplication(world, { variant_id: 'baseline', replication_index: replication }, model).event_counts.events_total;
  const mainSeconds = (performance.now() - started) / 1000;
  const mainThread = events / mainSeconds;
  console.log(`engine, this process's main thread (TypeScript stripped here, protector lost; not where the service runs it): ${events} events in ${mainSeconds.toFixed(3)} s = ${Math.round(mainThread).toLocaleString('en')} events/s`);

  // The pool. The service creates it once at start (compute/pool.ts), so a run never pays thread start-up or cold code:
  // create it and give each thread one warm-up replication (as the main thread had) before timing.
  const threads = defaultThreadCount();
  await computePool();
  const warmUp: ReplicationJob[] = [];
  for (let thread = 0; thread < threads; thread++) warmUp.push({ variant_id: 'baseline', replication_index: 999 + thread, trace_limit: 0 });
  await runReplicationsOnPool(world, { jobs: warmUp, threads });

  // One thread: the same replications dispatched one at a time, so one pool thread runs at once.
  const singleJobs: ReplicationJob[] = [];
  for (let replication = 0; replication < BENCH_SINGLE_THREAD_REPLICATIONS; replication++) singleJobs.push({ variant_id: 'baseline', replication_index: replication, trace_limit: 0 });
  started = performance.now();
  const singleRun = await runReplicationsOnPool(world, { jobs: singleJobs, threads: 1 });
  const singleSeconds = (performance.now() - started) / 1000;
  const single = singleRun.events_simulated / singleSeconds;
  console.log(`engine, 1 thread (one pool thread at a time): ${singleRun.events_simulated} events in ${singleSeconds.toFixed(3)} s = ${Math.round(single).toLocaleString('en')} events/s`);

  // Pool: every core.
  const jobs: ReplicationJob[] = [];
  for (let replication = 0; replication < BENCH_POOL_REPLICATIONS_PER_THREAD * threads; replication++) jobs.push({ variant_id: 'baseline', replication_index: replication, trace_limit: 0 });
  // The process's CPU time over the wall time says how many cores the pool actually had: on a shared machine, a pool
  // figure near 1x with about 1 core used is other load, not the pool.
  const cpuBefore = process.cpuUsage();
  started = performance.now();
  const pool = await runReplicationsOnPool(world, { jobs, threads });
  const poolSeconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const coresUsed = (cpu.user + cpu.system) / 1e6 / poolSeconds;
  const pooled = pool.events_simulated / poolSeconds;
  console.log(`engine, pool of ${threads} threads (warm): ${pool.events_simulated} events in ${poolSeconds.toFixed(3)} s = ${Math.round(pooled).toLocaleString('en')} events/s (cores used: ${coresUsed.toFixed(2)})`);
  await closeComputePool();

  let simpy: number | null = null;
  const interpreter = python();
  const script = fileURLToPath(new URL('./simpy_mmc.py', import.meta.url));
  if (interpreter && existsSync(script)) {
    const output = execFileSync(interpreter, [script, String(BENCH_SERVERS), String(BENCH_ARRIVALS_PER_MINUTE), String(BENCH_MEAN_SERVICE_MINUTES), String(BENCH_HORIZON_MINUTES), '1'], { encoding: 'utf8' });
    const figures = JSON.parse(output.trim()) as { equivalent_events: number; simpy_events: number | null; wall_seconds: number };
    simpy = figures.equivalent_events / figures.wall_seconds;
    console.log(`SimPy ${'(python3-simpy3)'}: ${figures.equivalent_events} events in ${figures.wall_seconds.toFixed(3)} s = ${Math.round(simpy).toLocaleString('en')} events/s (SimPy's own scheduler events: ${figures.simpy_events})`);
  } else console.log('SimPy not found: install python3-simpy3 (flock /tmp/apt.lock apt-get install -y python3-simpy3)');

  const result: BenchFigures = {
    engine_single_thread_events_per_second: single,
    engine_main_thread_events_per_second: mainThread,
    engine_pool_events_per_second: pooled,
    pool_threads: threads,
    simpy_events_per_second: simpy,
    ratio_single_thread: simpy ? single / simpy : null,
    ratio_pool_per_core: simpy ? pooled / threads / simpy : null,
    ratio_pool_total: simpy ? pooled / simpy : null,
    pool_speed_up: pooled / single,
    pool_cores_used: coresUsed,
  };
  if (simpy) {
    console.log(`ratio, 1 thread vs SimPy: ${result.ratio_single_thread!.toFixed(1)}x (goal: ${REQUIRED_RATIO_SINGLE_THREAD}x) ${result.ratio_single_thread! >= REQUIRED_RATIO_SINGLE_THREAD ? 'MET' : 'NOT MET'}`);
    console.log(`ratio, this process's main thread vs SimPy (reference, not the goal's figure): ${(mainThread / simpy).toFixed(1)}x`);
    console.log(`ratio, pool per core vs SimPy: ${result.ratio_pool_per_core!.toFixed(1)}x; pool on ${threads} cores vs SimPy on one: ${result.ratio_pool_total!.toFixed(1)}x`);
  }
  const shortOfCores = coresUsed < threads - 0.2 ? ` (the pool had ${coresUsed.toFixed(2)} of ${threads} cores: other load on the machine)` : '';
  const poolVerdict = threads === 2 ? `${result.pool_speed_up >= REQUIRED_POOL_SPEED_UP_ON_2_CORES ? 'MET' : 'NOT MET'}${shortOfCores}` : `goal is stated for 2 cores; this machine gives ${threads}`;
  console.log(`pool of ${threads} vs 1 thread: ${result.pool_speed_up.toFixed(2)}x (goal on 2 cores: ${REQUIRED_POOL_SPEED_UP_ON_2_CORES}x) ${poolVerdict}`);
  console.log(`load average (1, 5, 15 min): ${loadavg().map((load) => load.toFixed(2)).join(', ')} on ${availableParallelism()} cores`);
  return result;
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
