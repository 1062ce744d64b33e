// A thin typed fetch over the API (docs/api.md, GET /v1/openapi.json). The app authenticates with the session cookie
// that POST /v1/auth/sessions sets (HttpOnly, SameSite=Lax): it never holds or sends an API token.

export type Envelope = { code: string; message: string; details: unknown; request_id: string };

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
    ? `?${new URLSearchParams(Object.entries(options.query).filter((e): e is [string, string] => e[1] !== undefined && e[1] !== '').map(([k, v]) => [k, String(v)]))}`
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
        : { code: `HTTP_${response.status}`, message: `The service answered ${response.status} ${response.statusText}.`, details: {}, request_id: response.headers.get('x-request-id') ?? '' };
    throw new ApiError(response.status, envelope);
  }
  return parsed as T;
}

export type Page<T> = { data: T[]; next_offset: number | null };

export type Membership = { org_id: string; org_name: string; role: string; created_at: string };
export type Member = { user_id: string; email: string; role: string; created_at: string };
export type Me = { user: { id: string; email: string; created_at: string }; memberships: Membership[]; auth: { kind: string; scopes: string[] } };
export type ApiToken = {
  id: string;
  name: string;
  org_id: string;
  scopes: string[];
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
};
export type ProviderKey = { id: string; provider: string; label: string; last4: string; created_at: string; revoked_at: string | null };
export type Credits = {
  org_id: string;
  available_credits: number;
  reserved_credits: number;
  sources: Array<{ source: string; program_id?: string; available_credits: number; reserved_credits: number; ended?: boolean }>;
};
export type LedgerEntry = { id: string; kind: string; status: string; credits: number; available_change_credits: number; created_at: string; subject?: unknown };
export type Project = { id: string; org_id: string; title: string; created_at: string };
export type Finding = { kind: string; masked?: string; line?: number; [key: string]: unknown };
export type Source = {
  id: string;
  name: string;
  status: string;
  kind: string;
  size_bytes: number;
  line_count: number;
  findings: Finding[];
  findings_not_listed: number;
  reason: string | null;
  conversion_prompt: string | null;
  created_at: string;
};
export type DroppedCitation = { path: string; source_id: string; line_start: number; line_end: number; reason: string; message: string };
export type Draft = {
  id: string;
  project_id: string;
  status: string;
  spec: unknown;
  dropped_citations: DroppedCitation[];
  dropped_claims: Array<{ path: string; reason: string; message: string }>;
  usage: { provider: string; model: string; credits_charged: number } | null;
  error: { code: string; message: string } | null;
  credits_reserved: number;
};
export type IntakeRevision = { id: string; revision: number; spec: unknown; dropped_citations: DroppedCitation[]; created_at: string };
export type Evaluation = {
  kind: string;
  decision: 'recommended' | 'skipped';
  explanation: string;
  based_on: string[];
  approvals_needed: string[];
  estimated_credits: number | null;
  cost_basis: string;
};
export type CitedSource = { source_id: string; line_start: number; line_end: number };
export type BusinessQuestion = { field: string; status: 'stated' | 'unknown'; stated: string | null; question: string; cited_sources: CitedSource[] };
export type BusinessQuestions = {
  proposed_user: BusinessQuestion;
  buyer: BusinessQuestion;
  budget_owner: BusinessQuestion;
  current_alternative: BusinessQuestion;
  dependencies: BusinessQuestion[];
  value_hypothesis: BusinessQuestion;
  suggested_buyer_interview: { interviewee: string; purpose: string; questions: string[] };
  unknowns: Array<{ field: string; question: string }>;
};
export type BusinessAssessment = {
  submitted_claims: Array<{ text: string; topic: string; provenance: string; cited_sources: CitedSource[]; question: string }>;
  hypotheses: Array<{ field: string; hypothesis: string; how_to_test: string }>;
  unknowns: Array<{ field: string; question: string }>;
};
export type Plan = {
  id: string;
  project_id: string;
  intake_revision: number;
  created_at: string;
  approvals: Array<{ scope: string; approved_by: string; approved_at: string }>;
  plan: {
    evaluations: Evaluation[];
    approvals_needed: Array<{ scope: string; reason: string; not_needed_when: string | null; evaluation_kinds: string[] }>;
    estimated_cost: { total_credits: number; basis: string; credits_per_1k_tokens: number };
    business_questions: BusinessQuestions;
    business_assessment?: BusinessAssessment;
    notes: string[];
  };
};
export type EvidenceClaim = {
  claim_id: string;
  claim: string;
  record_id: string | null;
  quote: string;
  supported: boolean;
  failed_check: string | null;
  checks: { record_retrieved: boolean; quote_found: boolean | null; judge_agrees: boolean | null };
  judge_reason: string | null;
  note: string | null;
};
export type ConceptReview = {
  disclaimer: string;
  limitations: string[];
  drafted_by: { provider: string; model: string; heuristic: boolean };
  dimensions: Array<{ id: string; name: string; source: string; label: string; summary: string; questions: string[]; next_experiments: string[]; evidence_claims: EvidenceClaim[] }>;
  evidence_summary: { claims_total: number; claims_supported: number };
  literature: {
    query: string;
    records_retrieved: number;
    records_excluded: number;
    records: Array<{ record_id: string; title: string; year: number | null; journal: string | null; url: string; status: string; exclusion_reason: string | null; notes: string[] }>;
  };
};
export type ReviewListItem = {
  id: string;
  project_id: string;
  plan_id: string;
  status: string;
  status_description: string;
  credits_reserved: number;
  credits_used: number | null;
  failure: { code: string; message: string } | null;
  created_at: string;
  finished_at: string | null;
};
export type Review = {
  id: string;
  project_id: string;
  plan_id: string;
  status: string;
  status_description: string;
  credits_reserved: number;
  credits_used?: number | null;
  failure: { code: string; message: string } | null;
  review: ConceptReview | null;
};
export type WorldRevision = { world_revision_id: string; project_id: string; org_id: string; revision: number; name: string; created_at: string; world?: unknown };
export type Estimate = {
  runnable: boolean;
  issues: Array<{ kind: string; pointer: string; message: string }>;
  reserved_credits: number;
  available_credits: number;
  budget_limit_credits: number;
  credits_estimate: number;
  events_estimate: number;
  cost_model: string;
};
export type Run = {
  run_id: string;
  project_id: string;
  world_revision_id: string;
  status: string;
  budget_limit_credits: number;
  credits_estimate: number;
  credits_reserved: number;
  credits_used: number | null;
  replications_requested: number;
  replications_completed: number;
  events_simulated: number;
  stop_reason: string | null;
  error: { code: string; message: string } | null;
  results_available: boolean;
  created_at: string;
};
export type Interval = { low: number | null; high: number | null; level: number };
export type MetricSummary = { measure_id: string; variant_id: string; unit: string; n: number; mean: number | null; interval_95: Interval };
export type LowBaseHigh = { low: number | null; base: number | null; high: number | null };
export type CostReport = {
  currency: string;
  basis: string;
  variants: Array<{ variant_id: string; total: LowBaseHigh; undefined_reasons: string[]; lines: Array<{ rate_id: string; measure_id: string; cost: LowBaseHigh }> }>;
};
export type RunResults = {
  run_id: string;
  status: string;
  manifest: { variants: Array<{ variant_id: string; role: string; replications_completed: number }>; replications_completed: number; seed: number };
  metrics: MetricSummary[];
  findings: Array<{ id: string; kind: string; sentence: string }>;
  cost_report: CostReport | null;
  trace: { events_included: number; cap_per_variant: number; description: string };
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
export type RunEvent = { variant_id: string; replication_index: number; sequence: number; time: number; kind: string; entity: number | null; [key: string]: unknown };

export const TERMINAL_REVIEW = ['succeeded', 'failed', 'canceled'];
export const TERMINAL_DRAFT = ['succeeded', 'failed', 'canceled'];
export const TERMINAL_RUN = ['succeeded', 'timed_out', 'canceled', 'failed'];

export type ValueSource =
  | { kind: 'intake_line'; source_id: string; line_start: number; line_end: number; quote: string }
  | { kind: 'answer'; question_id: string; answered_at_checkpoint: number }
  | { kind: 'reference'; reference: string }
  | { kind: 'assumption'; rationale: string };
export type AiUsage = { calls: number; tokens: number; ai_iterations: number; wall_seconds: number; credits: number };
/** spec: Authoring session checkpoint (beta); the full shape is in docs/authoring.md. */
export type Checkpoint = {
  number: number;
  reason: 'draft' | 'answers' | 'revise';
  world: {
    spec: unknown;
    settings: Record<string, { value: number; unit: string; source: ValueSource }>;
    variants: Array<{ id: string; label: string; role: string; changes: Array<{ setting: string; baseline: number | null; value: number; unit: string; source: ValueSource }> }>;
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
export type AuthoringSession = {
  id: string;
  org_id: string;
  project_id: string;
  intake_revision_id: string | null;
  status: string;
  accepts: string[];
  byok_provider: string | null;
  cap_reached: boolean;
  checkpoint_count: number;
  checkpoint: Checkpoint | null;
  world_revision_id: string | null;
  error: { code: string; message: string } | null;
  created_at: string;
  updated_at: string;
  ended_at: string | null;
};

export type Features = { sponsor_api: boolean; billing: boolean };
export type Pack = { pack_key: string; title: string; credits: number; amount: number; currency: string };
export type Packs = { live_mode: boolean; data: Pack[] };
export type Purchase = {
  intent_id: string;
  org_id: string | null;
  program_id: string | null;
  pack_key: string;
  credits: number;
  amount: number;
  currency: string;
  live_mode: boolean;
  status: 'pending' | 'completed' | 'failed' | 'refunded';
  transaction_id: string | null;
  conflict: string | null;
  session_id: string | null;
  expires_at: string;
  created_at: string;
};
export type Program = {
  id: string;
  sponsor_id: string;
  name: string;
  status: 'draft' | 'active' | 'closed';
  starts_at: string;
  ends_at: string;
  per_recipient_cap: number;
  max_recipients: number;
  eligible_email_domains: string[];
  requires_approval: boolean;
  report_min_cohort: number;
  created_at: string;
  updated_at: string;
  activated_at: string | null;
  closed_at: string | null;
};
export type ProgramReport = {
  program_id: string;
  suppressed: boolean;
  reason?: string;
  report_min_cohort: number;
  pool_balance: number;
  credits_allocated: number;
  active_recipients?: number;
  credits_used?: number;
  credits_reserved?: number;
  evaluations_funded?: number;
};
