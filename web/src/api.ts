// A thin typed fetch over the API (docs/api.md, GET /v1/openapi.json). The app authenticates with the session cookie
// that POST /v1/auth/sessions sets (HttpOnly, SameSite=Lax): it never holds or sends an API token.

import type {
  AllocateSponsorCreditsResponses,
  CompareRunResponses,
  CreateApiTokenResponses,
  DecideSponsorMemberResponses,
  Error as ErrorBody,
  EstimateRunResponses,
  ExportRunResponses,
  GetAuthoringSessionResponses,
  GetEvaluationPlanResponses,
  GetFeaturesResponses,
  GetIntakeDraftResponses,
  GetIntakeResponses,
  GetIntakeSourceResponses,
  GetMeResponses,
  GetOrganizationCreditsResponses,
  GetProjectResponses,
  GetPurchaseResponses,
  GetReviewResponses,
  GetRunResponses,
  GetRunResultsResponses,
  GetSponsorProgramReportResponses,
  GetSponsorProgramResponses,
  GetWorldRevisionResponses,
  ListApiTokensResponses,
  ListBillingPacksResponses,
  ListIntakesResponses,
  ListMembersResponses,
  ListOrganizationLedgerResponses,
  ListProviderKeysResponses,
  ListReviewsResponses,
  ListRunEventsResponses,
  ListSponsorInstitutionsResponses,
  ListWorldsResponses,
  RedeemSponsorCodeResponses,
  StartCheckoutResponses,
  ValidateWorldSpecResponses,
} from '../../clients/sdk/src/generated/types.gen.ts';

/** The error envelope every non-2xx answer carries. */
export type Envelope = ErrorBody;

export class ApiError extends Error {
  readonly status: number;
  readonly envelope: Envelope;
  constructor(status: number, envelope: Envelope) {
    super(envelope.message);
    this.status = status;
    this.envelope = envelope;
  }
}

type Options = { body?: unknown; form?: FormData; idempotent?: boolean; query?: Record<string, string | number | undefined> };

export async function api<T = any>(method: string, path: string, options: Options = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  let body: BodyInit | undefined;
  if (options.form) body = options.form;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] = 'application/json';
  }
  // a retry of the same click reuses nothing: each user action is one new operation
  if (options.idempotent) headers['idempotency-key'] = crypto.randomUUID();
  const query = options.query
    ? `?${new URLSearchParams(
        Object.entries(options.query)
          .filter((e): e is [string, string] => e[1] !== undefined && e[1] !== '')
          .map(([k, v]) => [k, String(v)]),
      )}`
    : '';
  let response: Response;
  try {
    response = await fetch(`${path}${query}`, { method, headers, body, credentials: 'same-origin' });
  } catch {
    throw new ApiError(0, { code: 'NETWORK', message: 'The service cannot be reached; check your connection and try again.', details: {}, request_id: '' });
  }
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  let parsed: any = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = null;
  }
  if (!response.ok) {
    const envelope: Envelope =
      parsed && typeof parsed.message === 'string'
        ? parsed
        : {
            code: `HTTP_${response.status}`,
            message: `The service answered ${response.status} ${response.statusText}.`,
            details: {},
            request_id: response.headers.get('x-request-id') ?? '',
          };
    throw new ApiError(response.status, envelope);
  }
  return parsed as T;
}

export type Page<T> = { data: T[]; next_offset: number | null };

/** One item of a list response (`{ data: [...] }`). */
type Item<T extends { data: ReadonlyArray<unknown> }> = T['data'][number];

export type Membership = Me['memberships'][number];
export type Member = Item<ListMembersResponses[200]>;
export type Me = GetMeResponses[200];
export type ApiToken = Item<ListApiTokensResponses[200]>;
export type NewApiToken = CreateApiTokenResponses[201];
export type ProviderKey = Item<ListProviderKeysResponses[200]>;
export type Credits = GetOrganizationCreditsResponses[200];
export type LedgerEntry = Item<ListOrganizationLedgerResponses[200]>;
export type Project = GetProjectResponses[200];
export type Source = GetIntakeSourceResponses[200];
export type Finding = Source['findings'][number];
export type Draft = GetIntakeDraftResponses[200];
export type DroppedCitation = Draft['dropped_citations'][number];
/** GET /v1/intakes/{id} and the confirmed revision; the list (IntakeRevisionListItem) carries no spec. */
export type IntakeRevision = GetIntakeResponses[200];
export type IntakeRevisionListItem = Item<ListIntakesResponses[200]>;
export type Plan = GetEvaluationPlanResponses[200];
export type Evaluation = Plan['plan']['evaluations'][number];
export type BusinessQuestions = Plan['plan']['business_questions'];
export type BusinessQuestion = BusinessQuestions['buyer'];
export type CitedSource = BusinessQuestion['cited_sources'][number];
export type BusinessAssessment = NonNullable<Plan['plan']['business_assessment']>;
export type Review = GetReviewResponses[200];
export type ConceptReview = NonNullable<Review['review']>;
export type EvidenceClaim = ConceptReview['dimensions'][number]['evidence_claims'][number];
export type ReviewListItem = Item<ListReviewsResponses[200]>;
/** GET /v1/world-revisions/{id}: with the world; the list (WorldRevisionListItem) carries none. */
export type WorldRevision = GetWorldRevisionResponses[200];
export type WorldRevisionListItem = Item<ListWorldsResponses[200]>;
export type WorldValidation = ValidateWorldSpecResponses[200];
export type Estimate = EstimateRunResponses[200];
export type Run = GetRunResponses[200];
export type RunEvents = ListRunEventsResponses[200];
export type RunEvent = RunEvents['events'][number];
export type RunExport = ExportRunResponses[200];

// No OpenAPI schema: the results' manifest, metrics, findings and cost report and the comparison's metrics are `unknown`
// there (api/routes/runs/ points to /v1/schemas/{name}); hand-kept from domain/contracts/runResults.ts.
export type Interval = { low: number | null; high: number | null; level: number };
export type MetricSummary = { measure_id: string; variant_id: string; unit: string; n: number; mean: number | null; interval_95: Interval };
export type LowBaseHigh = { low: number | null; base: number | null; high: number | null };
export type CostReport = {
  currency: string;
  basis: string;
  variants: Array<{
    variant_id: string;
    total: LowBaseHigh;
    undefined_reasons: string[];
    lines: Array<{ rate_id: string; measure_id: string; cost: LowBaseHigh }>;
  }>;
};
export type RunResults = Omit<GetRunResultsResponses[200], 'manifest' | 'metrics' | 'findings' | 'cost_report'> & {
  manifest: { variants: Array<{ variant_id: string; role: string; replications_completed: number }>; replications_completed: number; seed: number };
  metrics: MetricSummary[];
  findings: Array<{ id: string; kind: string; sentence: string }>;
  cost_report: CostReport | null;
};
export type MetricComparison = {
  measure_id: string;
  baseline_variant_id: string;
  treatment_variant_id: string;
  unit: string;
  n_pairs: number;
  mean_difference: number | null;
  interval_95: Interval;
};
export type Comparison = Omit<CompareRunResponses[200], 'metrics'> & { metrics: MetricComparison[] };

export const TERMINAL_REVIEW = ['succeeded', 'failed', 'canceled'];
export const TERMINAL_DRAFT = ['succeeded', 'failed', 'canceled'];
export const TERMINAL_RUN = ['succeeded', 'timed_out', 'canceled', 'failed'];

// The OpenAPI describes the session's checkpoint as an open object (no schema): the checkpoint shape is hand-kept
// from the spec (docs/authoring.md; domain/authoring/checkpoint.ts); the rest of the session is the generated type.
export type ValueSource =
  | { kind: 'intake_line'; source_id: string; line_start: number; line_end: number; quote: string }
  | { kind: 'answer'; question_id: string; answered_at_checkpoint: number }
  | { kind: 'reference'; reference: string }
  | { kind: 'assumption'; rationale: string };
export type AiUsage = { calls: number; tokens: number; ai_iterations: number; wall_seconds: number; credits: number };
export type Checkpoint = {
  number: number;
  reason: 'draft' | 'answers' | 'revise';
  world: {
    spec: unknown;
    settings: Record<string, { value: number; unit: string; source: ValueSource }>;
    variants: Array<{
      id: string;
      label: string;
      role: string;
      changes: Array<{ setting: string; baseline: number | null; value: number; unit: string; source: ValueSource }>;
    }>;
    measured: Array<{
      measure_id: string;
      kind: string;
      coverage: 'covered' | 'partial' | 'missing';
      unit: string;
      denominator: string;
      time_window: { start: number; end: number; unit: string };
      censoring: string;
      reported_beside: { still_waiting_at_end_mean: number | null; censored_count: number | null };
    }>;
  };
  validation: { valid: boolean; problems: Array<{ pointer: string; message: string }> };
  smoke_run: { replications: number; horizon: number; metrics: Array<{ measure_id: string; variant_id: string; n: number; mean: number | null }> } | null;
  questions: Array<{ id: string; slot: string; text: string; unit: string; unsourced_proposal: { value: number; proposed_by: string } | null }>;
  next_steps: Array<{ kind: string; tool?: string; source: 'rule' | 'ai_hypothesis'; message: string }>;
  ai: {
    estimated: AiUsage;
    session_total: AiUsage;
    limits: { calls_max: number; tokens_max: number; ai_iterations_max: number; wall_seconds_max: number };
    cap_reached: boolean;
    limit_reached: string | null;
    heuristic: boolean;
  };
  changes_since_previous: Array<{ path: string; before: unknown; after: unknown }>;
};
export type AuthoringSession = Omit<GetAuthoringSessionResponses[200], 'checkpoint'> & { checkpoint: Checkpoint | null };

export type Features = GetFeaturesResponses[200];
export type Packs = ListBillingPacksResponses[200];
export type Pack = Packs['data'][number];
export type Checkout = StartCheckoutResponses[201];
export type Purchase = GetPurchaseResponses[200];
export type Program = GetSponsorProgramResponses[200];
export type ProgramReport = GetSponsorProgramReportResponses[200];
export type Institution = Item<ListSponsorInstitutionsResponses[200]>;
export type Redemption = RedeemSponsorCodeResponses[201];
export type MemberDecision = DecideSponsorMemberResponses[200];
export type Allocation = AllocateSponsorCreditsResponses[201];
