// The check the API makes before starting a workflow that calls a model (spec: Provider keys endpoints): the chosen
// provider must have a configured model (503 PROVIDER_NOT_CONFIGURED, no model guessed), and a byok_provider request
// needs the organization's live key for it (422 naming the provider). The activity repeats both checks at call time.
import type { ByokProvider } from '../../domain/ai/keys.ts';
import { ServiceError } from '../../domain/errors.ts';
import { type AiProvider, type HostedAiProvider, providerModelEnv } from '../../domain/ai/providers.ts';
import type { Tx } from '../db.ts';
import { liveProviderKeyId } from './keys.ts';

/** The configuration values the check reads (from runtime/config, passed in by the caller). */
export type AiAvailabilityConfig = { models: Record<HostedAiProvider, string | null>; hosted_provider: AiProvider; hosted_api_key: string | null };

export function providerNotConfigured(provider: ByokProvider, byok: boolean): ServiceError {
  return new ServiceError(
    'PROVIDER_NOT_CONFIGURED',
    `No model is configured for ${provider} in this deployment (${providerModelEnv(provider)}); no model is guessed. ${
      byok ? 'Ask the operator to configure one, or choose another byok_provider.' : 'Ask the operator to configure the hosted provider.'
    }`,
    { provider },
  );
}

export function providerKeyMissing(provider: ByokProvider, org_id: string): ServiceError {
  return new ServiceError(
    'VALIDATION_FAILED',
    `byok_provider is ${provider} but organization ${org_id} has no live ${provider} key; add one with POST /v1/orgs/${org_id}/provider-keys or leave byok_provider out.`,
    [{ path: '/byok_provider', message: `no live ${provider} key is stored`, provider }],
  );
}

/** Throws unless a call for this organization and provider choice could be made now. */
export async function assertAiAvailable(deps: { config: AiAvailabilityConfig; db: Tx }, org_id: string, byok_provider: ByokProvider | null): Promise<void> {
  const { config } = deps;
  if (byok_provider) {
    if (!config.models[byok_provider]) throw providerNotConfigured(byok_provider, true);
    if (!(await liveProviderKeyId(deps.db, org_id, byok_provider))) throw providerKeyMissing(byok_provider, org_id);
    return;
  }
  const hosted = config.hosted_provider;
  if (hosted === 'offline') return;
  if (!config.models[hosted] || !config.hosted_api_key) throw providerNotConfigured(hosted, false);
}
