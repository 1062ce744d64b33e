// Intake sources: statuses, shapes, limits (spec: Intake source; Limits - upload limits are ours to choose, docs/intake.md).
import { Type, type Static } from 'typebox';
import { ServiceError } from '../errors.ts';

// Limits checked before anything is read; each appears in the error it causes.
export const SOURCES_PER_REQUEST_MAX = 20; // files plus text fields
export const BYTES_PER_SOURCE_MAX = 10 * 1024 * 1024; // 10 MiB per file or text field
export const BYTES_PER_REQUEST_MAX = 25 * 1024 * 1024; // 25 MiB summed over the request
export const PDF_PAGES_MAX = 300; // pages read per PDF; a longer PDF is an error, never silently truncated
export const PDF_READ_SECONDS_MAX = 60; // reading one PDF, from when a pool thread opens it; a slower read is an error
export const PDF_STREAM_BYTES_MAX = 256 * 1024 * 1024; // one stream of a PDF, decoded (a 10 MiB file can inflate to GBs)
export const LINES_PER_SOURCE_MAX = 200_000; // numbered lines stored per source
export const LINE_CHARS_MAX = 4096; // characters per numbered line; a longer line is split into several (counted in lines_split)
export const SCREENING_SECONDS_MAX = 60; // screening one source, from when a pool thread starts it; a slower screening is an error
export const FINDINGS_PER_SOURCE_MAX = 100; // findings listed per source; the rest are counted

export const SOURCE_STATUSES = ['processed', 'unsupported', 'excluded_for_privacy', 'error'] as const;
export type SourceStatus = (typeof SOURCE_STATUSES)[number];

export const SOURCE_KINDS = ['text', 'markdown', 'json', 'pdf', 'unknown'] as const;
export type SourceKind = (typeof SOURCE_KINDS)[number];

/** The finding kinds that are secrets (category `secret`); the rest are patient identifiers. */
export const SECRET_FINDING_KINDS = [
  'private_key',
  'aws_access_key',
  'aws_secret_key',
  'cloud_key',
  'ai_provider_key',
  'token',
  'password',
  'high_entropy_secret',
] as const;

export const FINDING_KINDS = [
  ...SECRET_FINDING_KINDS,
  // patient identifiers
  'nhs_number',
  'us_ssn',
  'medical_record_number',
  'date_of_birth',
  'patient_name',
  'email',
  'phone_number',
  'postal_address',
] as const;
export type FindingKind = (typeof FINDING_KINDS)[number];

export const Finding = Type.Object(
  {
    kind: Type.Enum(FINDING_KINDS),
    category: Type.Union([Type.Literal('secret'), Type.Literal('patient_identifier')]),
    line: Type.Integer({ minimum: 1 }),
    masked: Type.String({ description: 'the value with most characters replaced by *; never the value itself' }),
  },
  { additionalProperties: false },
);
export type Finding = Static<typeof Finding>;

export const PdfReport = Type.Object(
  {
    page_count: Type.Integer({ minimum: 0 }),
    pages_read: Type.Array(Type.Integer({ minimum: 1 }), { description: 'pages whose text layer was read' }),
    pages_without_text: Type.Array(Type.Integer({ minimum: 1 }), { description: 'pages with no text layer (scanned or image-only); never OCRed' }),
    page_lines: Type.Array(
      Type.Object({ page: Type.Integer({ minimum: 1 }), line_start: Type.Integer({ minimum: 1 }), line_end: Type.Integer({ minimum: 0 }) }),
      { description: 'which numbered lines came from which page (line_end < line_start when the page gave no lines)' },
    ),
  },
  { additionalProperties: false },
);
export type PdfReport = Static<typeof PdfReport>;

/** What the API returns and stores as the visible record of a source: never its text. */
export const SourceSummary = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    status: Type.Enum(SOURCE_STATUSES),
    kind: Type.Enum(SOURCE_KINDS),
    content_type: Type.Union([Type.String(), Type.Null()]),
    size_bytes: Type.Integer({ minimum: 0 }),
    line_count: Type.Integer({ minimum: 0 }),
    findings: Type.Array(Finding),
    findings_not_listed: Type.Integer({ minimum: 0, description: `findings beyond the ${FINDINGS_PER_SOURCE_MAX} listed` }),
    lines_split: Type.Integer({
      minimum: 0,
      description: `lines longer than LINE_CHARS_MAX (${LINE_CHARS_MAX} characters) that were split into several numbered lines before screening`,
    }),
    reason: Type.Union([Type.String(), Type.Null()], { description: 'why the source is unsupported, in error, or excluded; null when processed' }),
    pdf: Type.Union([PdfReport, Type.Null()]),
    conversion_prompt: Type.Union([Type.String(), Type.Null()], {
      description: 'copyable prompt for converting pages without a text layer to text elsewhere; null when not needed',
    }),
  },
  { $id: 'IntakeSourceSummary', additionalProperties: false },
);
export type SourceSummary = Static<typeof SourceSummary>;

/**
 * A source as extraction returns it: the summary plus its text.
 * `lines` (line n is lines[n-1]) is set only for processed sources: the only text that may reach an AI provider.
 * `quarantined_lines` holds an excluded_for_privacy source's text so it can be stored, never sent or returned.
 */
export type ExtractedSource = SourceSummary & {
  lines: string[] | null;
  quarantined_lines: string[] | null;
};

/** The response/storage view: drops the text so no excluded value can travel with it. */
export function sourceSummary(source: ExtractedSource): SourceSummary {
  const { lines: _lines, quarantined_lines: _quarantined, ...summary } = source;
  return summary;
}

/** The size of one input as the API knows it before reading (Content-Length of a part, or byte length of a text field). */
export type SourceSize = { name: string; size_bytes: number };

/**
 * Checks the request-level limits before any byte is read or parsed. Throws:
 * VALIDATION_FAILED when there are no sources or more than SOURCES_PER_REQUEST_MAX;
 * PAYLOAD_TOO_LARGE when one source exceeds BYTES_PER_SOURCE_MAX or all exceed BYTES_PER_REQUEST_MAX.
 */
export function checkExtractionLimits(sizes: SourceSize[]): void {
  if (sizes.length === 0) {
    throw new ServiceError('VALIDATION_FAILED', 'send at least one text field or file', [{ path: '/sources', message: 'no sources' }]);
  }
  if (sizes.length > SOURCES_PER_REQUEST_MAX) {
    throw new ServiceError(
      'VALIDATION_FAILED',
      `too many sources: ${sizes.length}; SOURCES_PER_REQUEST_MAX is ${SOURCES_PER_REQUEST_MAX} files and text fields per request; split them over several requests`,
      [{ path: '/sources', message: `at most ${SOURCES_PER_REQUEST_MAX}`, limit: 'SOURCES_PER_REQUEST_MAX', limit_value: SOURCES_PER_REQUEST_MAX }],
    );
  }
  let total_bytes = 0;
  sizes.forEach((size, index) => {
    total_bytes += size.size_bytes;
    if (size.size_bytes > BYTES_PER_SOURCE_MAX) {
      throw new ServiceError(
        'PAYLOAD_TOO_LARGE',
        `source ${index + 1} is ${size.size_bytes} bytes; BYTES_PER_SOURCE_MAX is ${BYTES_PER_SOURCE_MAX} bytes; split or shorten it`,
        [{ path: `/sources/${index}`, message: `at most ${BYTES_PER_SOURCE_MAX} bytes`, limit: 'BYTES_PER_SOURCE_MAX', limit_value: BYTES_PER_SOURCE_MAX }],
      );
    }
  });
  if (total_bytes > BYTES_PER_REQUEST_MAX) {
    throw new ServiceError(
      'PAYLOAD_TOO_LARGE',
      `the request holds ${total_bytes} bytes of sources; BYTES_PER_REQUEST_MAX is ${BYTES_PER_REQUEST_MAX} bytes; send them over several requests`,
      [{ path: '/sources', message: `at most ${BYTES_PER_REQUEST_MAX} bytes in total`, limit: 'BYTES_PER_REQUEST_MAX', limit_value: BYTES_PER_REQUEST_MAX }],
    );
  }
}

/** Compact page list: [1,2,3,7] -> "1-3, 7". */
export function pageRanges(pages: number[]): string {
  const parts: string[] = [];
  let index = 0;
  while (index < pages.length) {
    let end = index;
    while (end + 1 < pages.length && pages[end + 1] === pages[end]! + 1) end++;
    parts.push(end === index ? String(pages[index]) : `${pages[index]}-${pages[end]}`);
    index = end + 1;
  }
  return parts.join(', ');
}

/** A copyable prompt the user can paste into a tool they trust to turn image-only pages into text (spec: Intake source). */
export function conversionPrompt(file_name: string, pages_without_text: number[]): string {
  return [
    `Convert pages ${pageRanges(pages_without_text)} of the attached PDF "${file_name}" to plain text.`,
    'Transcribe exactly what is printed, in reading order, one line of output per printed line.',
    'Do not summarize, correct, translate or add anything. Write [illegible] where you cannot read a word.',
    'Keep headings, lists and table rows as separate lines; write tables as rows with cells separated by " | ".',
    'Before uploading the result, remove any patient identifiers, passwords or keys.',
  ].join('\n');
}

/** What the drafting route knows of one requested source (never its text). */
export type DraftCandidate = { id: string; project_id: string | null; status: SourceStatus };

/**
 * Which of the requested sources a draft may read (spec: Intake source - only processed sources are sent to a
 * model). Duplicates count once. Another organization's source is indistinguishable from a missing one (404); a
 * source attached to another project is refused (422); sources that are not processed are skipped and listed, and a
 * request with no processed source is refused (422). Pure: the route loads the candidates of the project's
 * organization and passes them in.
 */
export function draftSources(
  requested_ids: readonly string[],
  candidates: readonly DraftCandidate[],
  project_id: string,
): { processed: string[]; skipped: string[] } {
  const ids = [...new Set(requested_ids)];
  const found = new Map(candidates.map((source) => [source.id, source]));
  const at = (id: string) => `/source_ids/${requested_ids.indexOf(id)}`;
  const missing = ids.filter((id) => !found.has(id));
  if (missing.length > 0) {
    throw new ServiceError(
      'NOT_FOUND',
      `Intake source ${missing.join(', ')} was not found.`,
      missing.map((id) => ({ path: at(id), message: 'not found' })),
    );
  }
  const elsewhere = ids.filter((id) => {
    const owner = found.get(id)!.project_id;
    return owner !== null && owner !== project_id;
  });
  if (elsewhere.length > 0) {
    throw new ServiceError(
      'VALIDATION_FAILED',
      `source ${elsewhere.join(', ')} belongs to another project; upload the material again for this project`,
      elsewhere.map((id) => ({ path: at(id), message: 'belongs to another project' })),
    );
  }
  const processed = ids.filter((id) => found.get(id)!.status === 'processed');
  const skipped = ids.filter((id) => found.get(id)!.status !== 'processed');
  if (processed.length === 0) {
    throw new ServiceError(
      'VALIDATION_FAILED',
      `none of the sources is processed (${skipped.map((id) => `${id}: ${found.get(id)!.status}`).join(', ')}); only processed sources can be drafted from`,
      skipped.map((id) => ({ path: at(id), message: `status is ${found.get(id)!.status}`, status: found.get(id)!.status })),
    );
  }
  return { processed, skipped };
}
