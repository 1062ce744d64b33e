// The TypeBox schema as plain JSON Schema for the providers, and the parsed reply checked against it.
import type { TSchema } from 'typebox';
import { Value } from 'typebox/value';
import { type AiProvider, outputInvalid } from './common.ts';

/** Keys that identify a schema to us but mean nothing (or trouble) to a provider's schema subset. */
const DROPPED_KEYS = new Set(['$id', '$schema']);
/** Errors listed in a validation failure message. */
const LISTED_ERRORS_MAX = 5;

function clean(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(clean);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    if (DROPPED_KEYS.has(key) || key.startsWith('~')) continue;
    out[key] = clean(inner);
  }
  return out;
}

export function toProviderJsonSchema(schema: TSchema): Record<string, unknown> {
  return clean(JSON.parse(JSON.stringify(schema))) as Record<string, unknown>;
}

/**
 * OpenAI's strict structured outputs accept only objects that close additionalProperties and require
 * every property; other schemas are sent non-strict and still checked here after the reply.
 */
export function isStrictCompatible(schema: unknown): boolean {
  if (Array.isArray(schema)) return schema.every(isStrictCompatible);
  if (schema === null || typeof schema !== 'object') return true;
  const node = schema as Record<string, unknown>;
  if (node['type'] === 'object' || node['properties'] !== undefined) {
    const properties = (node['properties'] ?? {}) as Record<string, unknown>;
    const required = new Set((node['required'] as string[] | undefined) ?? []);
    if (node['additionalProperties'] !== false) return false;
    if (!Object.keys(properties).every((name) => required.has(name))) return false;
  }
  return Object.values(node).every(isStrictCompatible);
}

/** Validates a parsed reply; throws a non-retryable ProviderOutputInvalid naming the first errors. */
export function checkAgainstSchema<T>(provider: AiProvider, schema: TSchema, value: unknown): T {
  if (Value.Check(schema, value)) return value as T;
  const errors = [...Value.Errors(schema, value)].slice(0, LISTED_ERRORS_MAX);
  const listed = errors.map((error) => `${error.instancePath || '/'} ${error.message}`).join('; ');
  throw outputInvalid(provider, listed || 'value rejected');
}

/** Parses the JSON text a provider returned; a non-JSON reply is a non-retryable ProviderOutputInvalid. */
export function parseJsonReply(provider: AiProvider, text: string | null | undefined): unknown {
  if (text === null || text === undefined || text.trim() === '') throw outputInvalid(provider, 'the reply was empty');
  try {
    return JSON.parse(text);
  } catch {
    throw outputInvalid(provider, `the reply was not JSON (${text.length} characters)`);
  }
}
