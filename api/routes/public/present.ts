// The public model catalog: per provider the model, its purpose, whether it is configured and its credit price.
import { HOSTED_AI_PROVIDERS } from '../../../domain/ai/providers.ts';
import type { AppDeps } from '../../context.ts';

const PROVIDER_PURPOSE = 'structured drafting (intake, review) and support judging';
export const OFFLINE_MODEL = 'offline-heuristic-1';

export function modelCatalog(deps: AppDeps) {
  const { config } = deps;
  const price = config.ai_credits_per_1k_tokens;
  return {
    hosted_provider: config.hosted_provider,
    providers: [
      ...HOSTED_AI_PROVIDERS.map((provider) => ({
        provider,
        model: config.models[provider],
        purpose: PROVIDER_PURPOSE,
        configured: config.models[provider] !== null,
        hosted: config.hosted_provider === provider,
        kind: 'ai',
        // The service's own key is used only for the hosted provider; a customer's key (byok) costs 0 credits.
        hosted_inference_credits_per_1k_tokens: config.hosted_provider === provider ? price : null,
        byok_credits_per_1k_tokens: 0,
      })),
      {
        provider: 'offline',
        model: OFFLINE_MODEL,
        purpose: 'extractive intake drafting and lexical support judging',
        configured: true,
        hosted: config.hosted_provider === 'offline',
        kind: 'heuristic',
        description: 'A deterministic heuristic, not AI: it copies sentences from your sources and judges support by word overlap. No network call is made.',
        hosted_inference_credits_per_1k_tokens: config.hosted_provider === 'offline' ? price : null,
        byok_credits_per_1k_tokens: null,
      },
    ],
  };
}
