// The AI providers, one list (ARCHITECTURE.md: AI and literature). Everything that names a provider derives from here.

/** spec: Provider key — the three hosted providers (provider_a/b/c); an organization may bring its own key for each. */
export const HOSTED_AI_PROVIDERS = ['openai', 'anthropic', 'google'] as const;
export type HostedAiProvider = (typeof HOSTED_AI_PROVIDERS)[number];

/** The offline provider: a deterministic, clearly labelled heuristic, so the embedded default runs without network. */
export const OFFLINE_AI_PROVIDER = 'offline';

/** Who can answer an AI call: a hosted provider or the offline heuristic. */
export const AI_PROVIDERS = [...HOSTED_AI_PROVIDERS, OFFLINE_AI_PROVIDER] as const;
export type AiProvider = (typeof AI_PROVIDERS)[number];

export function isHostedAiProvider(value: unknown): value is HostedAiProvider {
  return typeof value === 'string' && (HOSTED_AI_PROVIDERS as readonly string[]).includes(value);
}

export function isAiProvider(value: unknown): value is AiProvider {
  return typeof value === 'string' && (AI_PROVIDERS as readonly string[]).includes(value);
}

/** The environment variable naming a hosted provider's model (none set: PROVIDER_NOT_CONFIGURED, never a guess). */
export function providerModelEnv(provider: HostedAiProvider): string {
  return `CRUCIBLE_${provider.toUpperCase()}_MODEL`;
}

/** The environment variable overriding a hosted provider's base URL (tests point it at a local fake). */
export function providerBaseUrlEnv(provider: HostedAiProvider): string {
  return `CRUCIBLE_${provider.toUpperCase()}_BASE_URL`;
}

/** One value per hosted provider, built by `value`. */
export function perHostedProvider<T>(value: (provider: HostedAiProvider) => T): Record<HostedAiProvider, T> {
  return Object.fromEntries(HOSTED_AI_PROVIDERS.map((provider) => [provider, value(provider)])) as Record<HostedAiProvider, T>;
}

/** Each provider as a person reads it in a sentence: the company's name, or what the offline provider is. */
const AI_PROVIDER_NAMES: Record<AiProvider, string> = {
  openai: 'OpenAI',
  anthropic: 'Anthropic',
  google: 'Google',
  offline: 'the offline heuristic',
};

/** The provider's name for a sentence; `start` capitalizes it where it opens one. */
export function aiProviderName(provider: AiProvider, start = false): string {
  const name = AI_PROVIDER_NAMES[provider];
  return start ? name.charAt(0).toUpperCase() + name.slice(1) : name;
}
