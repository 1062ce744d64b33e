// Registries for AI calls: the output schema of a call is looked up by name and the offline
// heuristic by task, so an activity input stays serializable (a name, not a function). Rooms register theirs from a
// module the worker imports (their activities module), e.g. registerAiSchema('IntakeDraft', IntakeDraft).
import type { TSchema } from 'typebox';

export type OfflineTask = (input: unknown) => unknown;

/** Schema names as the gateway accepts them (the provider's tool/response-format name). */
export const AI_SCHEMA_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
/** Task names: lower-case words joined by '_', '.' or '-'. */
export const AI_TASK_NAME_PATTERN = /^[a-z][a-z0-9_.-]{0,63}$/;

export const AI_SCHEMAS = new Map<string, TSchema>();
export const OFFLINE_TASKS = new Map<string, OfflineTask>();

/** Registers the output schema for `name`. Registering the same schema again is a no-op; a different one is a bug. */
export function registerAiSchema(name: string, schema: TSchema): void {
  if (!AI_SCHEMA_NAME_PATTERN.test(name)) throw new Error(`AI schema name "${name}" must match ${AI_SCHEMA_NAME_PATTERN}`);
  const existing = AI_SCHEMAS.get(name);
  if (existing && existing !== schema) throw new Error(`AI schema "${name}" is already registered with another schema`);
  AI_SCHEMAS.set(name, schema);
}

/** Registers the deterministic offline heuristic for `task` (ARCHITECTURE.md: AI and literature — offline provider). */
export function registerOfflineTask(task: string, heuristic: OfflineTask): void {
  if (!AI_TASK_NAME_PATTERN.test(task)) throw new Error(`AI task name "${task}" must match ${AI_TASK_NAME_PATTERN}`);
  const existing = OFFLINE_TASKS.get(task);
  if (existing && existing !== heuristic) throw new Error(`offline task "${task}" is already registered with another heuristic`);
  OFFLINE_TASKS.set(task, heuristic);
}

export function aiSchema(name: string): TSchema | undefined {
  return AI_SCHEMAS.get(name);
}

export function offlineTask(task: string): OfflineTask | undefined {
  return OFFLINE_TASKS.get(task);
}
