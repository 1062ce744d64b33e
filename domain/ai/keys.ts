// Provider keys (spec: Provider key): the providers, the rules for a key and its label, and what a listing may show. Pure.
import { ServiceError } from '../errors.ts';
import { type AiProvider, HOSTED_AI_PROVIDERS, type HostedAiProvider } from './providers.ts';

/** spec: Provider key — an organization may bring its own key for each hosted provider. */
export const BYOK_PROVIDERS = HOSTED_AI_PROVIDERS;
export type ByokProvider = HostedAiProvider;
/** Who can answer an AI call: a hosted provider or the offline heuristic. */
export type AiCallProvider = AiProvider;

/** Real keys are 39 (Google) to ~200 characters; the bounds leave room without accepting junk. */
export const PROVIDER_KEY_LENGTH_MIN = 20;
export const PROVIDER_KEY_LENGTH_MAX = 512;
export const PROVIDER_KEY_LABEL_LENGTH_MAX = 100;
/** Characters a listing shows (spec: Provider key — "the last four characters"). */
export const PROVIDER_KEY_VISIBLE_CHARS = 4;

/** Printable ASCII without space: any whitespace or control character is a paste error. */
const KEY_CHARS = /^[\x21-\x7e]+$/;

export function isByokProvider(value: unknown): value is ByokProvider {
  return typeof value === 'string' && (BYOK_PROVIDERS as readonly string[]).includes(value);
}

/** Checks an API key without ever putting it (or part of it) in the error. */
export function checkProviderKey(api_key: string): void {
  const problem =
    api_key.length < PROVIDER_KEY_LENGTH_MIN || api_key.length > PROVIDER_KEY_LENGTH_MAX
      ? `must have ${PROVIDER_KEY_LENGTH_MIN} to ${PROVIDER_KEY_LENGTH_MAX} characters (PROVIDER_KEY_LENGTH_MIN/MAX)`
      : !KEY_CHARS.test(api_key)
        ? 'must be printable ASCII with no spaces, tabs or line breaks; copy the key again'
        : null;
  if (problem) throw new ServiceError('VALIDATION_FAILED', `api_key ${problem}.`, [{ path: '/api_key', message: problem }]);
}

export function lastFour(api_key: string): string {
  return api_key.slice(-PROVIDER_KEY_VISIBLE_CHARS);
}
