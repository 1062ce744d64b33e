// V8 flags for the processes that run the simulation engine (docs/decisions.md; measured by bench/flags.ts).
// V8 flags are process-wide and the compute pool's threads inherit the process's, so a flag is a decision per kind of
// process: `crucible-server worker` runs the replications and nothing a user waits on in a request, so it takes the
// engine's flags; the API (`api`) and the all-in-one `start` (which hosts the API) keep V8's defaults. NODE_OPTIONS
// refuses these flags ("is not allowed in NODE_OPTIONS"), so the worker sets them itself with v8.setFlagsFromString
// before it starts the pool and before any engine code runs: the pool's threads are new isolates and start with them.
import { setFlagsFromString } from 'node:v8';

/**
 * Lets TurboFan inline more bytecode into one optimised function than its default budget (920 in Node 24), so the
 * engine's event loop keeps its handlers inlined. The results do not change (bench/flags.ts compares a digest).
 */
export const ENGINE_V8_FLAGS: readonly string[] = ['--max-inlined-bytecode-size-cumulative=2400'];

/** The V8 flags a `crucible-server <command>` process sets at start: the engine's for `worker`, none otherwise. */
export function v8FlagsFor(command: string): readonly string[] {
  return command === 'worker' ? ENGINE_V8_FLAGS : [];
}

/** Sets the flags for this process (call before the compute pool starts); returns them. */
export function applyV8Flags(command: string): readonly string[] {
  const flags = v8FlagsFor(command);
  for (const flag of flags) setFlagsFromString(flag);
  return flags;
}
