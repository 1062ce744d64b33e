// Registers the intake room's published parts: the IntakeSpec contract (/v1/schemas/IntakeSpec), the drafting prompt
// (/v1/prompts/intake-draft), the AI output schema and the offline drafter. Imported by api/routes/intake/ (API process)
// and activities/intake.ts (worker process), so each process has them. Registering twice is a no-op.
import { aiCallCreditsMax } from '../ai/pricing.ts';
import { registerAiSchema, registerOfflineTask } from '../ai/registry.ts';
import { INTAKE_SPEC_VERSION, IntakeSpec } from '../contracts/intakeSpec.ts';
import { registerContract } from '../contracts/registry.ts';
import { type DraftSource, INTAKE_DRAFT_PROMPT } from '../prompts/intakeDraft.ts';
import { registerPrompt } from '../prompts/registry.ts';
import { draftIntakeOffline } from './offlineDraft.ts';

export const INTAKE_SPEC_SCHEMA_NAME = 'IntakeSpec';
export const INTAKE_DRAFT_TASK = 'intake-draft';

/** What the offline drafter receives as `offline_input`: the processed sources only. */
export type IntakeDraftOfflineInput = { sources: DraftSource[] };

function offlineIntakeDraft(input: unknown): IntakeSpec {
  return draftIntakeOffline((input as IntakeDraftOfflineInput).sources);
}

registerContract({
  name: INTAKE_SPEC_SCHEMA_NAME,
  version: INTAKE_SPEC_VERSION,
  description:
    "Structured intake of a health-technology project: every claim cites processed source lines; statements from the user's documents are user_declared.",
  schema: IntakeSpec,
});
registerPrompt({ ...INTAKE_DRAFT_PROMPT, output_schema: `/v1/schemas/${INTAKE_SPEC_SCHEMA_NAME}` });
registerAiSchema(INTAKE_SPEC_SCHEMA_NAME, IntakeSpec);
registerOfflineTask(INTAKE_DRAFT_TASK, offlineIntakeDraft);

// ---------- the drafting request (shared by the API's estimate and the workflow's call) ----------

/** Output tokens allowed for one drafted IntakeSpec. */
export const INTAKE_DRAFT_MAX_OUTPUT_TOKENS = 16_000;

/** The system message sent with every draft: the published prompt's system text and instructions, as served. */
export function intakeDraftSystem(): string {
  return `${INTAKE_DRAFT_PROMPT.system}\n\n${INTAKE_DRAFT_PROMPT.instructions}`;
}

/**
 * Upper bound of the credits one drafting call can cost, reserved before it starts (spec: What the service does 6):
 * input tokens at most the UTF-8 bytes of the prompt and of the IntakeSpec schema sent with it, plus the provider's
 * framing; output at most INTAKE_DRAFT_MAX_OUTPUT_TOKENS. 0 with the org's own key.
 */
export function intakeDraftCreditsBound(input: { prompt: string; byok: boolean; credits_per_1k_tokens: number }): number {
  return aiCallCreditsMax({
    byok: input.byok,
    system: intakeDraftSystem(),
    prompt: input.prompt,
    schema: IntakeSpec,
    max_output_tokens: INTAKE_DRAFT_MAX_OUTPUT_TOKENS,
    credits_per_1k_tokens: input.credits_per_1k_tokens,
  });
}
