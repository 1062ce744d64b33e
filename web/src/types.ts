// The app's names for the answers it reads: each one a type the SDK generates from the OpenAPI document (GET
// /v1/openapi.json), named once here; the app declares no answer shape of its own. The calls are in client.ts.

import type {
  CompareRunResponses,
  ConfirmIntakeData,
  CreateApiTokenData,
  CreateProviderKeyData,
  EstimateRunResponses,
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
  GetSponsorProgramResponses,
  ListApiTokensResponses,
  ListBillingPacksResponses,
  ListIntakeDraftsResponses,
  ListIntakesResponses,
  ListMembersResponses,
  ListProviderKeysResponses,
  ListReviewsResponses,
  ListRunEventsResponses,
  ListSponsorInstitutionsResponses,
  StartCheckoutResponses,
  ValidateWorldSpecResponses,
} from '../../clients/sdk/src/client.ts';
import { ENDED_STATUSES } from '../../clients/sdk/src/generated/jobs.gen.ts';

/** One item of a list response (`{ data: [...] }`). */
type Item<T extends { data: ReadonlyArray<unknown> }> = T['data'][number];

export type Member = Item<ListMembersResponses[200]>;
export type Me = GetMeResponses[200];
export type ApiToken = Item<ListApiTokensResponses[200]>;
export type TokenScope = CreateApiTokenData['body']['scopes'][number];
export type Provider = CreateProviderKeyData['body']['provider'];
export type ProviderKey = Item<ListProviderKeysResponses[200]>;
export type Credits = GetOrganizationCreditsResponses[200];
export type AddCreditsAdvice = Credits['add_credits'];
export type Project = GetProjectResponses[200];
export type Source = GetIntakeSourceResponses[200];
export type Draft = GetIntakeDraftResponses[200];
export type DroppedCitation = Draft['dropped_citations'][number];
/** GET /v1/intakes/{id} and the confirmed revision; the list (IntakeRevisionListItem) carries no spec. */
export type IntakeRevision = GetIntakeResponses[200];
export type IntakeRevisionList = ListIntakesResponses[200];
export type IntakeRevisionListItem = Item<IntakeRevisionList>;
/** The document POST /v1/projects/{id}/intakes confirms (the service validates it). */
export type IntakeSpec = ConfirmIntakeData['body']['spec'];
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
export type WorldValidation = ValidateWorldSpecResponses[200];
export type Estimate = EstimateRunResponses[200];
export type Run = GetRunResponses[200];
export type RunEvents = ListRunEventsResponses[200];

export type RunResults = GetRunResultsResponses[200];
export type RunManifest = RunResults['manifest'];
export type MetricSummary = RunResults['metrics'][number];
export type CostReport = NonNullable<RunResults['cost_report']>;
export type Comparison = CompareRunResponses[200];
export type MetricComparison = Comparison['metrics'][number];

export const TERMINAL_REVIEW: readonly string[] = ENDED_STATUSES.review;
export const TERMINAL_DRAFT: readonly string[] = ENDED_STATUSES.intake_draft;
export const TERMINAL_RUN: readonly string[] = ENDED_STATUSES.run;

export type AuthoringSession = GetAuthoringSessionResponses[200];
export type Checkpoint = NonNullable<AuthoringSession['checkpoint']>;
export type ValueSource = Checkpoint['world']['settings'][string]['source'];

export type Features = GetFeaturesResponses[200];
export type Packs = ListBillingPacksResponses[200];
export type Pack = Packs['data'][number];
export type Checkout = StartCheckoutResponses[201];
export type Purchase = GetPurchaseResponses[200];
export type Program = GetSponsorProgramResponses[200];
export type Institution = Item<ListSponsorInstitutionsResponses[200]>;
