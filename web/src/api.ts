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
  ListIntakeDraftsResponses,
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
import { ENDED_STATUSES } from '../../clients/sdk/src/generated/jobs.gen.ts';

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
export type AddCreditsAdvice = Credits['add_credits'];
export type LedgerEntry = Item<ListOrganizationLedgerResponses[200]>;
export type Project = GetProjectResponses[200];
export type Source = GetIntakeSourceResponses[200];
export type Finding = Source['findings'][number];
export type Draft = GetIntakeDraftResponses[200];
export type DroppedCitation = Draft['dropped_citations'][number];
/** GET /v1/intakes/{id} and the confirmed revision; the list (IntakeRevisionListItem) carries no spec. */
export type IntakeRevision = GetIntakeResponses[200];
export type IntakeRevisionListItem = Item<ListIntakesResponses[200]>;
/** GET /v1/projects/{id}/intake-drafts: a draft's state, cost and failure, without its document. */
export type IntakeDraftListItem = Item<ListIntakeDraftsResponses[200]>;
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

export type RunResults = GetRunResultsResponses[200];
export type RunManifest = RunResults['manifest'];
export type MetricSummary = RunResults['metrics'][number];
export type Interval = MetricSummary['interval_95'];
export type RunFinding = RunResults['findings'][number];
export type CostReport = NonNullable<RunResults['cost_report']>;
export type LowBaseHigh = CostReport['variants'][number]['total'];
export type Comparison = CompareRunResponses[200];
export type MetricComparison = Comparison['metrics'][number];

export const TERMINAL_REVIEW: readonly string[] = ENDED_STATUSES.review;
export const TERMINAL_DRAFT: readonly string[] = ENDED_STATUSES.intake_draft;
export const TERMINAL_RUN: readonly string[] = ENDED_STATUSES.run;

export type AuthoringSession = GetAuthoringSessionResponses[200];
export type Checkpoint = NonNullable<AuthoringSession['checkpoint']>;
export type ValueSource = Checkpoint['world']['settings'][string]['source'];
export type AiUsage = Checkpoint['ai']['session_total'];

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
