// Intake extraction: read TXT, Markdown, JSON and PDF text without AI, then screen it (spec: Intake source).
// Pure reading and screening: safe to retry, no database or network. The caller stores the result.
import { ServiceError } from '../domain/errors.ts';
import { newId } from '../domain/ids.ts';
import { findingsFromHits, splitLongLines } from '../domain/intake/screening.ts';
import {
  checkExtractionLimits,
  conversionPrompt,
  type ExtractedSource,
  LINE_CHARS_MAX,
  LINES_PER_SOURCE_MAX,
  pageRanges,
  type PdfReport,
  type SourceKind,
} from '../domain/intake/sources.ts';
import { jsonSyntaxError } from './extraction/json.ts';
import { readPdfText } from './extraction/pdf.ts';
import { computeShareLimits } from './pool.ts';
import { screenOnPool } from './extraction/screen.ts';

export {
  checkExtractionLimits,
  BYTES_PER_REQUEST_MAX,
  BYTES_PER_SOURCE_MAX,
  LINE_CHARS_MAX,
  LINES_PER_SOURCE_MAX,
  PDF_PAGES_MAX,
  PDF_READ_SECONDS_MAX,
  PDF_STREAM_BYTES_MAX,
  SCREENING_SECONDS_MAX,
  SOURCES_PER_REQUEST_MAX,
  sourceSummary,
} from '../domain/intake/sources.ts';
export type { ExtractedSource, SourceSummary } from '../domain/intake/sources.ts';

export type ExtractionInput = { kind: 'text'; text: string; name?: string } | { kind: 'file'; filename: string; content_type?: string; bytes: Uint8Array };

const ACCEPTED = 'TXT (.txt), Markdown (.md), JSON (.json) and PDF (.pdf)';

const EXTENSION_KINDS: Record<string, SourceKind> = {
  txt: 'text',
  text: 'text',
  log: 'text',
  csv: 'text',
  md: 'markdown',
  markdown: 'markdown',
  json: 'json',
  pdf: 'pdf',
};
const CONTENT_TYPE_KINDS: Record<string, SourceKind> = {
  'text/plain': 'text',
  'text/csv': 'text',
  'text/markdown': 'markdown',
  'text/x-markdown': 'markdown',
  'application/json': 'json',
  'application/pdf': 'pdf',
};

// Magic numbers of binary formats that are often mislabelled as documents.
const SIGNATURES: Array<[string, number[]]> = [
  ['PNG image', [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]],
  ['JPEG image', [0xff, 0xd8, 0xff]],
  ['GIF image', [0x47, 0x49, 0x46, 0x38]],
  ['ZIP archive (for example DOCX or XLSX)', [0x50, 0x4b, 0x03, 0x04]],
  ['PDF document', [0x25, 0x50, 0x44, 0x46, 0x2d]],
  ['gzip archive', [0x1f, 0x8b]],
  ['TIFF image', [0x49, 0x49, 0x2a, 0x00]],
  ['TIFF image', [0x4d, 0x4d, 0x00, 0x2a]],
  ['Word 97-2003 document', [0xd0, 0xcf, 0x11, 0xe0]],
];

function sniff(bytes: Uint8Array): string | null {
  for (const [label, signature] of SIGNATURES) {
    if (signature.every((byte, index) => bytes[index] === byte)) return label;
  }
  if (bytes.length >= 12 && String.fromCharCode(...bytes.subarray(8, 12)) === 'WEBP') return 'WebP image';
  return null;
}

// spec: PDF header may sit anywhere in the first 1024 bytes.
function hasPdfHeader(bytes: Uint8Array): boolean {
  const head = new TextDecoder('latin1').decode(bytes.subarray(0, 1024));
  return head.includes('%PDF-');
}

function claimedKind(filename: string, content_type: string | undefined): SourceKind {
  const extension = /\.([A-Za-z0-9]+)$/.exec(filename)?.[1]?.toLowerCase();
  if (extension !== undefined && extension in EXTENSION_KINDS) return EXTENSION_KINDS[extension]!;
  const type = content_type?.split(';')[0]?.trim().toLowerCase();
  if (extension === undefined && type !== undefined && type in CONTENT_TYPE_KINDS) return CONTENT_TYPE_KINDS[type]!;
  return 'unknown';
}

type Decoded = { ok: true; text: string } | { ok: false; reason: string };

function decodeText(bytes: Uint8Array): Decoded {
  let text: string;
  try {
    if (bytes[0] === 0xff && bytes[1] === 0xfe) text = new TextDecoder('utf-16le', { fatal: true }).decode(bytes.subarray(2));
    else if (bytes[0] === 0xfe && bytes[1] === 0xff) text = new TextDecoder('utf-16be', { fatal: true }).decode(bytes.subarray(2));
    else text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return { ok: false, reason: 'the bytes are not UTF-8 (or UTF-16 with a byte order mark) text' };
  }
  if (text.includes('\u0000')) return { ok: false, reason: 'the content holds NUL bytes: it is binary, not text' };
  return { ok: true, text };
}

function splitLines(text: string): string[] {
  const lines = text.split(/\r\n|\r|\n/);
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop(); // a final newline ends the last line, it does not open one
  return lines;
}

function base(name: string, kind: SourceKind, content_type: string | null, size_bytes: number): ExtractedSource {
  return {
    id: newId('src'),
    name,
    status: 'error',
    kind,
    content_type,
    size_bytes,
    line_count: 0,
    findings: [],
    findings_not_listed: 0,
    lines_split: 0,
    reason: null,
    pdf: null,
    conversion_prompt: null,
    lines: null,
    quarantined_lines: null,
  };
}

/**
 * Splits lines longer than LINE_CHARS_MAX, screens the lines on the compute pool and sets status: any finding
 * quarantines the source, a screening past SCREENING_SECONDS_MAX is an error (spec: Intake source).
 */
async function screenAndSettle(source: ExtractedSource, read_lines: string[], org_id: string | null | undefined): Promise<ExtractedSource> {
  const { lines, lines_split } = splitLongLines(read_lines);
  if (lines.length > LINES_PER_SOURCE_MAX) {
    const split = lines_split > 0 ? ` (after splitting ${lines_split} lines longer than LINE_CHARS_MAX, ${LINE_CHARS_MAX} characters)` : '';
    return { ...source, status: 'error', reason: `the source has ${lines.length} lines${split}; LINES_PER_SOURCE_MAX is ${LINES_PER_SOURCE_MAX}; split it` };
  }
  if (lines.every((line) => line.trim() === '')) {
    return { ...source, status: source.status === 'unsupported' ? 'unsupported' : 'error', reason: source.reason ?? 'the source holds no text' };
  }
  const screened = await screenOnPool(lines, { org_id });
  if (!screened.ok) return { ...source, status: 'error', reason: screened.reason };
  const { findings, findings_not_listed } = findingsFromHits(screened.hits);
  const settled = { ...source, line_count: lines.length, lines_split, findings, findings_not_listed };
  if (findings.length > 0) {
    const kinds = [...new Set(findings.map((finding) => finding.kind))].join(', ');
    return {
      ...settled,
      status: 'excluded_for_privacy',
      reason: `possible secrets or patient identifiers found (${kinds}); the source is quarantined and never sent to an AI provider. Remove them and upload it again`,
      quarantined_lines: lines,
    };
  }
  return { ...settled, status: 'processed', lines };
}

async function extractPdf(source: ExtractedSource, bytes: Uint8Array, options: ExtractionOptions): Promise<ExtractedSource> {
  const read = await readPdfText(bytes, { org_id: options.org_id, seconds_max: options.pdf_seconds_max });
  if (!read.ok) return { ...source, status: 'error', reason: read.reason };
  const lines: string[] = [];
  const report: PdfReport = { page_count: read.page_count, pages_read: [], pages_without_text: [], page_lines: [] };
  for (const page of read.pages) {
    const has_text = page.lines.some((line) => line.trim() !== '');
    const line_start = lines.length + 1;
    if (has_text) {
      report.pages_read.push(page.page);
      lines.push(...page.lines);
    } else report.pages_without_text.push(page.page);
    report.page_lines.push({ page: page.page, line_start, line_end: lines.length });
  }
  const with_pdf = { ...source, pdf: report };
  if (report.pages_without_text.length > 0) with_pdf.conversion_prompt = conversionPrompt(source.name, report.pages_without_text);
  if (report.pages_read.length === 0) {
    return {
      ...with_pdf,
      status: 'unsupported',
      reason:
        report.page_count === 0
          ? 'the PDF has no pages'
          : `no page has a text layer (pages ${pageRanges(report.pages_without_text)}); text is never guessed or OCRed. Convert the pages to text elsewhere (see conversion_prompt) and upload the text`,
    };
  }
  const settled = await screenAndSettle(with_pdf, lines, options.org_id);
  if (settled.status === 'processed' && report.pages_without_text.length > 0) {
    settled.reason = `read pages ${pageRanges(report.pages_read)}; pages ${pageRanges(report.pages_without_text)} have no text layer and were not read (see conversion_prompt)`;
  }
  return settled;
}

async function extractOne(input: ExtractionInput, index: number, options: ExtractionOptions): Promise<ExtractedSource> {
  if (input.kind === 'text') {
    const size_bytes = Buffer.byteLength(input.text, 'utf8');
    const source = base(input.name?.trim() || `pasted text ${index + 1}`, 'text', 'text/plain', size_bytes);
    return screenAndSettle(source, splitLines(input.text.replace(/^\uFEFF/, '')), options.org_id);
  }
  const { filename, bytes } = input;
  const kind = claimedKind(filename, input.content_type);
  const source = base(filename, kind, input.content_type ?? null, bytes.byteLength);
  if (bytes.byteLength === 0) return { ...source, status: 'error', reason: 'the file is empty' };
  if (kind === 'unknown') return { ...source, status: 'unsupported', reason: `this file kind cannot be read; accepted kinds are ${ACCEPTED}` };
  const detected = sniff(bytes);
  if (kind === 'pdf') {
    if (!hasPdfHeader(bytes)) {
      return {
        ...source,
        status: 'unsupported',
        reason: `named as PDF but the content is ${detected ? `a ${detected}` : 'not a PDF'}; accepted kinds are ${ACCEPTED}`,
      };
    }
    return extractPdf(source, bytes, options);
  }
  if (detected !== null) {
    return { ...source, status: 'unsupported', reason: `named as ${kind} but the content is a ${detected}; accepted kinds are ${ACCEPTED}` };
  }
  const decoded = decodeText(bytes);
  if (!decoded.ok) return { ...source, status: 'unsupported', reason: `named as ${kind} but ${decoded.reason}` };
  if (kind === 'json') {
    const problem = jsonSyntaxError(decoded.text);
    if (problem !== null) return { ...source, status: 'error', reason: problem };
  }
  return screenAndSettle(source, splitLines(decoded.text), options.org_id);
}

export type ExtractionOptions = {
  /** the organization the sources are read for: its share of the compute pool bounds the reading (compute/scheduler.ts) */
  org_id?: string | null;
  /** default PDF_READ_SECONDS_MAX */
  pdf_seconds_max?: number;
};

async function extractOrReport(input: ExtractionInput, index: number, options: ExtractionOptions): Promise<ExtractedSource> {
  try {
    return await extractOne(input, index, options);
  } catch {
    const name = input.kind === 'text' ? (input.name ?? `pasted text ${index + 1}`) : input.filename;
    const size = input.kind === 'text' ? Buffer.byteLength(input.text, 'utf8') : input.bytes.byteLength;
    return { ...base(name, 'unknown', null, size), reason: 'reading failed unexpectedly; try again or convert the file to plain text' };
  }
}

/** The request limits extractSources checks first (throws VALIDATION_FAILED / PAYLOAD_TOO_LARGE). */
export function checkInputLimits(inputs: ExtractionInput[]): void {
  checkExtractionLimits(
    inputs.map((input, index) =>
      input.kind === 'text'
        ? { name: input.name ?? `pasted text ${index + 1}`, size_bytes: Buffer.byteLength(input.text, 'utf8') }
        : { name: input.filename, size_bytes: input.bytes.byteLength },
    ),
  );
}

/**
 * Whether reading `input` may open a PDF: a file named or declared as one (its extension, else its content type). Such
 * a request is read on a worker (docs/deploy.md "Where the work runs"); a file named .pdf that is no PDF is refused
 * there without being opened, as here.
 */
export function readsPdf(input: ExtractionInput): boolean {
  return input.kind === 'file' && claimedKind(input.filename, input.content_type) === 'pdf';
}

/**
 * Reads and screens sources without AI. Checks the request limits first (throws VALIDATION_FAILED / PAYLOAD_TOO_LARGE).
 * Each result has one status: processed (lines set), excluded_for_privacy (quarantined_lines set), unsupported or error (reason set).
 * Store the result; return `sourceSummary(source)` to callers, never the lines.
 */
export async function extractSources(inputs: ExtractionInput[], options: ExtractionOptions = {}): Promise<ExtractedSource[]> {
  checkInputLimits(inputs);
  // As many sources at once as the organization may hold pool threads for extraction (PDFs are memory-heavy and the
  // request is bounded by SOURCES_PER_REQUEST_MAX); the results keep the request's order.
  const results = new Array<ExtractedSource>(inputs.length);
  let next = 0;
  const reader = async () => {
    while (next < inputs.length) {
      const index = next++;
      results[index] = await extractOrReport(inputs[index]!, index, options);
    }
  };
  const readers = Math.min(inputs.length, computeShareLimits().extraction_per_org_max);
  await Promise.all(Array.from({ length: readers }, reader));
  return results;
}

export type DocumentFinding = { pointer: string; kind: string; category: string; masked: string };

/**
 * Screens every string of a JSON document (a confirmed or imported IntakeSpec) with the rules sources are screened with
 * (spec: Intake — only screened text reaches a model or the literature index). Returns masked findings with the JSON
 * pointer of the string each was found in; empty when the document is clean.
 */
export async function screenDocument(value: unknown): Promise<DocumentFinding[]> {
  const lines: string[] = [];
  const pointer_of_line: string[] = [];
  const visit = (node: unknown, pointer: string) => {
    if (typeof node === 'string') {
      for (const line of node.split(/\r?\n/)) {
        lines.push(line);
        pointer_of_line.push(pointer || '/');
      }
      lines.push(''); // strings do not run into each other
      pointer_of_line.push(pointer || '/');
    } else if (Array.isArray(node)) {
      for (const [index, item] of node.entries()) visit(item, `${pointer}/${index}`);
    } else if (node && typeof node === 'object') {
      for (const [key, inner] of Object.entries(node)) visit(inner, `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`);
    }
  };
  visit(value, '');
  // Long strings are split like a source's lines; each part keeps its string's pointer.
  const split_lines: string[] = [];
  const split_pointers: string[] = [];
  lines.forEach((line, index) => {
    for (const part of splitLongLines([line]).lines) {
      split_lines.push(part);
      split_pointers.push(pointer_of_line[index]!);
    }
  });
  const screened = await screenOnPool(split_lines);
  if (!screened.ok)
    throw new ServiceError('VALIDATION_FAILED', `the document could not be screened: ${screened.reason}`, [{ path: '/', message: screened.reason }]);
  const { findings } = findingsFromHits(screened.hits);
  return findings.map((finding) => ({ pointer: split_pointers[finding.line - 1]!, kind: finding.kind, category: finding.category, masked: finding.masked }));
}
