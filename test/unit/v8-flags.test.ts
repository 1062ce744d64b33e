// Which V8 flags each `crucible-server` command sets at start (runtime/v8Flags.ts, docs/decisions.md): the engine's
// inlining budget for worker processes only, since a V8 flag is process-wide and `api` and `start` serve requests.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ENGINE_V8_FLAGS, v8FlagsFor } from '../../runtime/v8Flags.ts';

describe('V8 flags per crucible-server command', () => {
  it('gives the worker the engine inlining budget and every other command none', () => {
    expect(v8FlagsFor('worker')).toEqual(['--max-inlined-bytecode-size-cumulative=2400']);
    for (const command of ['api', 'start', 'migrate', 'operator', 'temporal-server']) expect(v8FlagsFor(command)).toEqual([]);
  });

  it('is set in the process rather than through NODE_OPTIONS, which refuses it', () => {
    const refused = spawnSync(process.execPath, ['-e', '0'], { env: { ...process.env, NODE_OPTIONS: ENGINE_V8_FLAGS.join(' ') }, encoding: 'utf8' });
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain('is not allowed in NODE_OPTIONS');
    // The same flag set at start by the worker's own code: the process runs and a worker thread (a pool thread) starts under it.
    const script = `import { applyV8Flags } from './runtime/v8Flags.ts';
      import { Worker } from 'node:worker_threads';
      const flags = applyV8Flags('worker');
      const thread = new Worker('process.getBuiltinModule("node:worker_threads").parentPort.postMessage(1 + 1)', { eval: true });
      thread.once('message', (value) => { console.log(JSON.stringify({ flags, value })); thread.terminate(); });`;
    const applied = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
    });
    expect(applied.stderr).toBe('');
    expect(JSON.parse(applied.stdout)).toEqual({ flags: ['--max-inlined-bytecode-size-cumulative=2400'], value: 2 });
  });
});
