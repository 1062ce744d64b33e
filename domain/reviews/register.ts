// Registers the review room's published parts: EvaluationPlan and ConceptReview contracts (/v1/schemas/...), the
// drafting and judging prompts (/v1/prompts/review-draft, /v1/prompts/review-judge), their AI output schemas and the
// offline heuristics. Imported by api/routes/plans and api/routes/reviews (API) and activities/reviews.ts (worker).
import { registerAiSchema, registerOfflineTask } from '../ai/registry.ts';
import '../contracts/conceptReview.ts';
import '../contracts/evaluationPlan.ts';
import { registerContract } from '../contracts/registry.ts';
import { ConceptReviewDraft, REVIEW_DRAFT_PROMPT, REVIEW_DRAFT_SCHEMA_NAME, REVIEW_DRAFT_TASK } from '../prompts/reviewDraft.ts';
import { EvidenceJudgement, type JudgeInput, REVIEW_JUDGE_PROMPT, REVIEW_JUDGE_SCHEMA_NAME, REVIEW_JUDGE_TASK } from '../prompts/reviewJudge.ts';
import { registerPrompt } from '../prompts/registry.ts';
import { draftReviewOffline, judgeSupportOffline, type OfflineDraftInput } from './offline.ts';

function offlineDraft(input: unknown) {
  return draftReviewOffline(input as OfflineDraftInput);
}
function offlineJudge(input: unknown) {
  return judgeSupportOffline(input as JudgeInput);
}

// The models' output schemas are published too, so a user's own assistant can answer the same prompts.
registerContract({
  name: REVIEW_DRAFT_SCHEMA_NAME,
  version: REVIEW_DRAFT_PROMPT.version,
  experimental: true,
  description: 'AI output schema of the review-draft prompt (not a stored contract): the draft before its claims are verified.',
  schema: ConceptReviewDraft,
});
registerContract({
  name: REVIEW_JUDGE_SCHEMA_NAME,
  version: REVIEW_JUDGE_PROMPT.version,
  experimental: true,
  description: 'AI output schema of the review-judge prompt (not a stored contract): one verdict on one claim.',
  schema: EvidenceJudgement,
});
registerPrompt({ ...REVIEW_DRAFT_PROMPT, output_schema: `/v1/schemas/${REVIEW_DRAFT_SCHEMA_NAME}` });
registerPrompt({ ...REVIEW_JUDGE_PROMPT, output_schema: `/v1/schemas/${REVIEW_JUDGE_SCHEMA_NAME}` });
registerAiSchema(REVIEW_DRAFT_SCHEMA_NAME, ConceptReviewDraft);
registerAiSchema(REVIEW_JUDGE_SCHEMA_NAME, EvidenceJudgement);
registerOfflineTask(REVIEW_DRAFT_TASK, offlineDraft);
registerOfflineTask(REVIEW_JUDGE_TASK, offlineJudge);
