// Intake bodies (spec: Intake and review endpoints - extract, parse, intakes; Intake source; IntakeSpec): extraction
// (JSON or multipart), a stored source and its numbered text, the drafting request and the draft, confirmation and the
// confirmed revisions. Each limit is named in the error it causes (docs/intake.md).
import { Type } from 'typebox';
import { BYOK_PROVIDERS } from '../ai/keys.ts';
import { SOURCES_PER_REQUEST_MAX, SourceSummary } from '../intake/sources.ts';
import { Id, LiteralUnion, NullableLiteralUnion, Timestamp } from './common.ts';
import { DeprecatedJobError, JobFailureField } from './jobFailure.ts';
import { IntakeSpec } from './intakeSpec.ts';

/** spec: Intake draft states. */
export const DRAFT_STATUSES = ['queued', 'drafting', 'succeeded', 'failed', 'canceled'] as const;
/** An organization, project, source or draft id as a request names it. */
export const OWNER_ID_LENGTH_MAX = 64;
export const SOURCE_ID_LENGTH_MAX = 64;
export const DRAFT_ID_LENGTH_MAX = 64;
/** Multipart framing (boundaries, part headers) allowed on top of BYTES_PER_REQUEST_MAX of source bytes. */
export const MULTIPART_OVERHEAD_BYTES_MAX = 1024 * 1024;
/** Form fields besides `text`: org_id and project_id. */
export const MULTIPART_OTHER_FIELDS_MAX = 2;
/** A file name is kept to this many characters. */
export const SOURCE_NAME_CHARS_MAX = 255;
/** Sources named in one drafting request. */
export const SOURCES_PER_DRAFT_MAX = 50;
/** A confirmed IntakeSpec document, as JSON. */
export const INTAKE_DOCUMENT_BYTES_MAX = 4 * 1024 * 1024;

const OwnerFields = {
  org_id: Type.Optional(Type.String({ minLength: 1, maxLength: OWNER_ID_LENGTH_MAX, description: 'whose material it is: an organization (org_…)' })),
  project_id: Type.Optional(
    Type.String({ minLength: 1, maxLength: OWNER_ID_LENGTH_MAX, description: 'or a project (proj_…); the source is then attached to it' }),
  ),
};
export const ExtractJson = Type.Object(
  {
    text: Type.Union([Type.String({ minLength: 1 }), Type.Array(Type.String({ minLength: 1 }), { minItems: 1, maxItems: SOURCES_PER_REQUEST_MAX })], {
      description: `pasted text; an array gives one source per item (at most SOURCES_PER_REQUEST_MAX = ${SOURCES_PER_REQUEST_MAX})`,
    }),
    ...OwnerFields,
  },
  { additionalProperties: false },
);
export const ExtractMultipart = Type.Object({
  text: Type.Optional(Type.Array(Type.String(), { description: 'pasted text; each `text` field is one source' })),
  files: Type.Optional(Type.Array(Type.String({ format: 'binary' }), { description: 'files of any field name: TXT, Markdown, JSON, PDF' })),
  ...OwnerFields,
});

/** The stored source as returned: the extraction summary (never the text) plus whose it is and when it was read. */
export const IntakeSource = Type.Object({
  ...SourceSummary.properties,
  id: Id('src'),
  org_id: Id('org'),
  project_id: Type.Union([Id('proj'), Type.Null()]),
  created_by: Type.String(),
  created_at: Timestamp,
});
export const ExtractResult = Type.Object({ org_id: Id('org'), project_id: Type.Union([Id('proj'), Type.Null()]), sources: Type.Array(IntakeSource) });
export const SourceText = Type.Object({
  id: Id('src'),
  name: Type.String(),
  line_count: Type.Integer({ minimum: 0 }),
  numbered_text: Type.String({ description: 'the lines as `12| text`, the numbering citations refer to' }),
});

export const ParseIntakeBody = Type.Object(
  {
    source_ids: Type.Array(Type.String({ minLength: 1, maxLength: SOURCE_ID_LENGTH_MAX }), { minItems: 1, maxItems: SOURCES_PER_DRAFT_MAX }),
    byok_provider: Type.Optional(NullableLiteralUnion(BYOK_PROVIDERS)),
  },
  { additionalProperties: false },
);

// The contract carries $id 'IntakeSpec'; inline copies in the OpenAPI document go without it (one $id per document).
const { $id: _intake_id, ...IntakeSpecInline } = JSON.parse(JSON.stringify(IntakeSpec)) as Record<string, unknown>;
const IntakeSpecDoc = Type.Unsafe<unknown>(IntakeSpecInline);

/** Why a citation was dropped (spec: IntakeSpec — a citation stays only if its source, lines and quote check). */
export const CITATION_DROP_REASONS = [
  'source_not_in_project',
  'source_not_processed',
  'line_range_invalid',
  'lines_out_of_range',
  'quote_not_in_lines',
] as const;
/** A dropped citation. The quote is not echoed back: it may hold text the service must not repeat. */
export const DroppedCitation = Type.Object({
  path: Type.String({ description: 'JSON pointer into the submitted document' }),
  source_id: Type.String(),
  line_start: Type.Integer(),
  line_end: Type.Integer(),
  reason: LiteralUnion(CITATION_DROP_REASONS),
  message: Type.String(),
});
/**
 * A claim (or statement) the draft did not keep: no citation passed the check, or its text holds a number its quotes do
 * not state (`number_not_stated`: a claim is removed, a problem, solution or care setting becomes an unknown).
 */
export const DroppedClaim = Type.Object({
  path: Type.String(),
  reason: Type.Union([Type.Literal('no_valid_citation'), Type.Literal('number_not_stated')]),
  message: Type.String(),
});
export const DraftUsage = Type.Object({
  provider: Type.String(),
  model: Type.String(),
  input_tokens: Type.Integer({ minimum: 0 }),
  output_tokens: Type.Integer({ minimum: 0 }),
  credits_charged: Type.Integer({ minimum: 0 }),
});
export const IntakeDraft = Type.Object({
  id: Id('drf'),
  project_id: Id('proj'),
  org_id: Id('org'),
  status: Type.Enum(DRAFT_STATUSES),
  source_ids: Type.Array(Type.String(), { description: 'processed sources sent for drafting' }),
  skipped_source_ids: Type.Array(Type.String(), { description: 'requested sources that were not processed: never sent' }),
  byok_provider: Type.Union([Type.String(), Type.Null()]),
  credits_reserved: Type.Integer({ minimum: 0, description: 'upper bound reserved at start; settled at actual usage' }),
  spec: Type.Union([IntakeSpecDoc, Type.Null()], { description: 'the drafted IntakeSpec (citations checked) once succeeded' }),
  dropped_citations: Type.Array(DroppedCitation),
  dropped_claims: Type.Array(DroppedClaim),
  usage: Type.Union([DraftUsage, Type.Null()]),
  failure: JobFailureField,
  error: DeprecatedJobError,
  created_by: Type.String(),
  created_at: Timestamp,
  started_at: Type.Union([Timestamp, Type.Null()]),
  finished_at: Type.Union([Timestamp, Type.Null()]),
});

/** A draft in a project's list: its state, cost and failure, without the drafted document (read with getIntakeDraft). */
export const IntakeDraftListItem = Type.Omit(IntakeDraft, ['spec', 'dropped_citations', 'dropped_claims']);

export const ConfirmIntakeBody = Type.Object(
  {
    spec: IntakeSpecDoc,
    draft_id: Type.Optional(Type.String({ minLength: 1, maxLength: DRAFT_ID_LENGTH_MAX, description: 'the draft this document was corrected from, if any' })),
  },
  { additionalProperties: false },
);
export const IntakeRevision = Type.Object({
  id: Id('int'),
  project_id: Id('proj'),
  org_id: Id('org'),
  revision: Type.Integer({ minimum: 1 }),
  spec: IntakeSpecDoc,
  dropped_citations: Type.Array(DroppedCitation),
  dropped_claims: Type.Array(DroppedClaim),
  draft_id: Type.Union([Id('drf'), Type.Null()]),
  created_by: Type.String(),
  created_at: Timestamp,
});
export const IntakeRevisionSummary = Type.Object({
  id: Id('int'),
  project_id: Id('proj'),
  org_id: Id('org'),
  revision: Type.Integer({ minimum: 1 }),
  draft_id: Type.Union([Id('drf'), Type.Null()]),
  dropped_citation_count: Type.Integer({ minimum: 0 }),
  dropped_claim_count: Type.Integer({ minimum: 0 }),
  created_by: Type.String(),
  created_at: Timestamp,
});
