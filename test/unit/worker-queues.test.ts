// Which task queues a worker serves and how many activities it runs at once per queue (docs/deploy.md "Task queues"),
// and how a workflow's queue names the others; the connection failures a waiting worker tells apart in its log.
import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { configureComputeThreads, defaultThreadCount, POOL_THREADS_MAX } from '../../compute/pool.ts';
import { WORK_QUEUES, workQueueName } from '../../domain/jobs.ts';
import { ConfigError, loadConfig, workQueues } from '../../runtime/config.ts';
import { connectFailureClass } from '../../runtime/worker.ts';

describe('task queues by kind of work', () => {
  it('names the model and simulation queues after the deployment queue, the default queue being that queue', () => {
    expect(WORK_QUEUES.map((queue) => workQueueName('crucible', queue))).toEqual(['crucible', 'crucible-model', 'crucible-simulation']);
  });

  it('serves every queue by default, the ones listed otherwise, each with its own concurrency', () => {
    const defaults = loadConfig({});
    expect(defaults.worker_queues).toEqual(['default', 'model', 'simulation']);
    expect(defaults.worker_concurrency.default).toBe(100);
    expect(defaults.worker_concurrency.model).toBe(20);
    expect(defaults.worker_concurrency.simulation).toBeGreaterThanOrEqual(2);
    const split = loadConfig({ CRUCIBLE_WORKER_QUEUES: 'simulation', CRUCIBLE_SIMULATION_QUEUE_CONCURRENCY: '3', CRUCIBLE_MODEL_QUEUE_CONCURRENCY: '7' });
    expect(split.worker_queues).toEqual(['simulation']);
    expect(split.worker_concurrency).toMatchObject({ simulation: 3, model: 7 });
    expect(workQueues(' model , default ', '--queues', [])).toEqual(['model', 'default']);
  });

  it('gives the compute pool one thread per core unless CRUCIBLE_COMPUTE_THREADS says how many', () => {
    expect(loadConfig({}).compute_threads).toBeNull();
    expect(loadConfig({ CRUCIBLE_COMPUTE_THREADS: '1' }).compute_threads).toBe(1);
    // the pool not started yet takes the configured count, and one per core again without it
    configureComputeThreads(1);
    expect(defaultThreadCount()).toBe(1);
    configureComputeThreads(null);
    expect(defaultThreadCount()).toBe(Math.min(availableParallelism(), POOL_THREADS_MAX));
  });

  it('refuses an unknown or repeated queue and a concurrency out of range, naming the setting', () => {
    for (const [env, message] of [
      [{ CRUCIBLE_WORKER_QUEUES: 'simulations' }, 'CRUCIBLE_WORKER_QUEUES must list task queues from default, model, simulation'],
      [{ CRUCIBLE_WORKER_QUEUES: 'model,model' }, 'each once'],
      [{ CRUCIBLE_SIMULATION_QUEUE_CONCURRENCY: '0' }, 'CRUCIBLE_SIMULATION_QUEUE_CONCURRENCY must be an integer from 1'],
      [{ CRUCIBLE_COMPUTE_THREADS: '0' }, 'CRUCIBLE_COMPUTE_THREADS must be an integer from 1 to 64'],
      [{ CRUCIBLE_COMPUTE_THREADS: 'two' }, 'CRUCIBLE_COMPUTE_THREADS must be an integer from 1 to 64'],
    ] as const) {
      expect(() => loadConfig(env)).toThrow(ConfigError);
      expect(() => loadConfig(env)).toThrow(message);
    }
    const problems: string[] = [];
    workQueues('gpu', '--queues', problems);
    expect(problems).toEqual(['--queues must list task queues from default, model, simulation, each once, separated by commas (got "gpu")']);
  });
});

describe('why a worker waits for Temporal', () => {
  it('tells apart an unreachable server, refused credentials, a failed handshake and a missing namespace', () => {
    expect(connectFailureClass(new Error('Failed to connect to 127.0.0.1:7233: transport error'))).toBe('unreachable');
    expect(connectFailureClass(Object.assign(new Error('16 UNAUTHENTICATED: invalid API key'), { code: 16 }))).toBe('credentials refused');
    expect(connectFailureClass(Object.assign(new Error('Request unauthorized'), { code: 7 }))).toBe('credentials refused');
    expect(connectFailureClass(new Error('tls handshake eof: invalid peer certificate'))).toBe('TLS failed');
    expect(connectFailureClass(Object.assign(new Error('Namespace bogus is not found.'), { code: 5 }))).toBe('namespace not found');
    expect(connectFailureClass(new TypeError('something else'))).toBe('TypeError');
  });
});
