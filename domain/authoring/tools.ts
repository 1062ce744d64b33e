// The tool registry (spec: Versioning — the tool registry version is `2026-10-12.2`; it covers concept and evidence review and
// synthetic simulation). Served at GET /v1/tools without a token; authoring next_steps[].tool and the evaluation plan's
// evaluations name tools from here.

export const TOOL_REGISTRY_VERSION = '2026-10-12.2';

export type ToolEndpoint = { method: 'GET' | 'POST'; path: string; purpose: string };
export type ToolEntry = {
  name: string;
  summary: string;
  label: 'ai_hypothesis' | 'synthetic';
  needs: { approval: string; credits: string; inputs: string[] };
  endpoints: ToolEndpoint[];
};

export const CONCEPT_AND_EVIDENCE_REVIEW = 'concept_and_evidence_review';
export const SYNTHETIC_SIMULATION = 'synthetic_simulation';

export const TOOLS: readonly ToolEntry[] = [
  {
    name: CONCEPT_AND_EVIDENCE_REVIEW,
    summary: 'Searches a public biomedical literature index, excludes retracted work and drafts a 13-dimension review whose evidence claims are verified',
    label: 'ai_hypothesis',
    needs: {
      approval: 'an evaluation plan approved with scope hosted_inference (not needed with the organization’s own provider key)',
      credits: 'AI calls are metered in credits, reserved before work starts and settled at actual usage; 0 credits with byok_provider',
      inputs: ['a confirmed intake revision (POST /v1/projects/{project_id}/intakes)', 'an evaluation plan (POST /v1/projects/{project_id}/evaluation-plans)'],
    },
    endpoints: [
      { method: 'POST', path: '/v1/projects/{project_id}/reviews', purpose: 'start a review (Idempotency-Key)' },
      { method: 'GET', path: '/v1/reviews/{review_id}', purpose: 'poll the review and read its result' },
    ],
  },
  {
    name: SYNTHETIC_SIMULATION,
    summary: 'Validates a WorldSpec, saves it as a world revision and runs it under a credit budget the user authorizes; results are synthetic',
    label: 'synthetic',
    needs: {
      approval: 'the user chooses budget_limit_credits when creating the run; nothing runs implicitly',
      credits: 'estimated by POST /v1/runs/estimate, reserved up to the budget and settled at the replications completed',
      inputs: ['a valid WorldSpec saved as a world revision (POST /v1/projects/{project_id}/worlds, or approving an authoring session)'],
    },
    endpoints: [
      { method: 'POST', path: '/v1/world-specs/validate', purpose: 'validate a WorldSpec (no token)' },
      { method: 'POST', path: '/v1/projects/{project_id}/worlds', purpose: 'save a world revision' },
      { method: 'POST', path: '/v1/projects/{project_id}/authoring-sessions', purpose: 'prepare a world with checkpoints and questions (beta)' },
      { method: 'POST', path: '/v1/runs/estimate', purpose: 'estimate a run' },
      { method: 'POST', path: '/v1/runs', purpose: 'run a world revision (Idempotency-Key)' },
      { method: 'GET', path: '/v1/runs/{run_id}', purpose: 'poll a run' },
    ],
  },
];

export const TOOL_NAMES: readonly string[] = TOOLS.map((tool) => tool.name);

export function isToolName(name: unknown): name is string {
  return typeof name === 'string' && TOOL_NAMES.includes(name);
}
