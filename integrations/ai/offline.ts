// The offline provider: no network. It runs the caller's deterministic heuristic for the task and
// estimates usage as ceil(characters / 4), so metering has numbers even without a model.
import { AI_FAILURE_TYPES, nonRetryable, type TokenUsage } from './common.ts';

/** Characters per estimated token for the offline heuristic's usage figures. */
export const OFFLINE_CHARS_PER_TOKEN = 4;
export const OFFLINE_MODEL_LABEL = 'offline-heuristic';

export function estimateTokens(text: string): number {
  return Math.ceil(text.length / OFFLINE_CHARS_PER_TOKEN);
}

export async function callOffline(system: string, prompt: string, heuristic: (() => unknown) | undefined): Promise<{ value: unknown; usage: TokenUsage }> {
  if (!heuristic) {
    throw nonRetryable(AI_FAILURE_TYPES.not_configured, 'the offline provider needs the task heuristic (request.offline) and none was given', {
      provider: 'offline',
    });
  }
  const value = await heuristic();
  const output = JSON.stringify(value) ?? '';
  return { value, usage: { input_tokens: estimateTokens(system) + estimateTokens(prompt), output_tokens: estimateTokens(output) } };
}
