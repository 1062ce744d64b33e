// The prompts the service sends to AI providers, published at /v1/prompts so a user's own assistant can draft the same way.
export type PromptEntry = { id: string; version: string; purpose: string; system: string; instructions: string; output_schema?: string };

export const PROMPTS: PromptEntry[] = [];

export function registerPrompt(entry: PromptEntry): void {
  if (!PROMPTS.some((p) => p.id === entry.id)) PROMPTS.push(entry);
}
