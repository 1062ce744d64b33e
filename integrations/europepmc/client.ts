// Europe PMC REST client for the concept review (ARCHITECTURE.md: AI and literature).
// Search returns every record classified (excluded ones carry their reason, for the citation record);
// full text is fetched only for openly licensed open-access records and reduced to plain text.
// Failures are Temporal ApplicationFailures: the service being down is retryable, so the saga charges nothing.
import { ApplicationFailure } from '@temporalio/common';
import { XMLParser } from 'fast-xml-parser';
import { type EuropePmcResult, LITERATURE_FAILURE_TYPES, type LiteratureRecord, toLiteratureRecord } from '../../domain/reviews/literature.ts';

export { LITERATURE_FAILURE_TYPES };

export const EUROPE_PMC_DEFAULT_BASE_URL = 'https://www.ebi.ac.uk/europepmc/webservices/rest';
/** Records asked for in one search. */
export const LITERATURE_SEARCH_LIMIT_MAX = 100;
export const DEFAULT_LITERATURE_TIMEOUT_MS = 30_000;
/** A search response above this size is refused. */
export const SEARCH_RESPONSE_BYTES_MAX = 16 * 1024 * 1024;
/** A JATS document above this size is not read. */
export const FULL_TEXT_BYTES_MAX = 16 * 1024 * 1024;
/** Plain text kept per article; longer text is cut at a paragraph boundary. */
export const FULL_TEXT_CHARS_MAX = 400_000;

function unavailable(message: string, details: Record<string, unknown>): ApplicationFailure {
  return ApplicationFailure.create({ type: LITERATURE_FAILURE_TYPES.unavailable, message, nonRetryable: false, details: [details] });
}

function rejected(message: string, details: Record<string, unknown>): ApplicationFailure {
  return ApplicationFailure.create({ type: LITERATURE_FAILURE_TYPES.request_rejected, message, nonRetryable: true, details: [details] });
}

function trimBase(base_url: string): string {
  return base_url.replace(/\/+$/, '');
}

async function readLimited(response: Response, max_bytes: number, what: string): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? '0');
  if (declared > max_bytes) throw unavailable(`Europe PMC sent a ${what} of ${declared} bytes; the limit is ${max_bytes} bytes`, { what });
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    if (bytes > max_bytes) {
      await reader.cancel();
      throw unavailable(`Europe PMC sent a ${what} above the limit of ${max_bytes} bytes`, { what });
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

async function get(url: string, timeout_ms: number, abort_signal: AbortSignal | undefined, accept: string): Promise<Response> {
  const signal = abort_signal ? AbortSignal.any([abort_signal, AbortSignal.timeout(timeout_ms)]) : AbortSignal.timeout(timeout_ms);
  try {
    return await fetch(url, { headers: { accept }, signal });
  } catch (error) {
    if (abort_signal?.aborted) throw error;
    const name = error instanceof Error ? error.name : 'Error';
    const reason =
      name === 'TimeoutError'
        ? `no reply within ${timeout_ms} ms`
        : `${name}: ${error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error)}`;
    throw unavailable(`Europe PMC could not be reached (${reason})`, { status: null });
  }
}

function failureForStatus(status: number, what: string): ApplicationFailure {
  if (status === 429 || status === 408 || status >= 500) {
    return unavailable(`Europe PMC is unavailable (${status}) for the ${what}`, { status });
  }
  return rejected(`Europe PMC refused the ${what} (${status})`, { status });
}

export type SearchLiteratureInput = {
  base_url: string;
  /** A Europe PMC query, e.g. from buildLiteratureQuery (domain/reviews/literature.ts). */
  query: string;
  /** 1 to LITERATURE_SEARCH_LIMIT_MAX. */
  limit: number;
  timeout_ms?: number;
  abort_signal?: AbortSignal;
};

type SearchResponse = { hitCount?: number; nextCursorMark?: string; resultList?: { result?: EuropePmcResult[] } };

/**
 * One search, core result type: every record classified (retracted work and retraction notices come back
 * with status 'excluded' and their reason; use includedRecords() for evidence). Order is Europe PMC's.
 */
export async function searchLiterature(input: SearchLiteratureInput): Promise<LiteratureRecord[]> {
  if (!Number.isInteger(input.limit) || input.limit < 1 || input.limit > LITERATURE_SEARCH_LIMIT_MAX) {
    throw rejected(`limit must be an integer from 1 to LITERATURE_SEARCH_LIMIT_MAX (${LITERATURE_SEARCH_LIMIT_MAX})`, { limit: input.limit });
  }
  if (input.query.trim() === '') throw rejected('the literature query is empty', {});
  const params = new URLSearchParams({ query: input.query, format: 'json', resultType: 'core', pageSize: String(input.limit), cursorMark: '*' });
  const timeout_ms = input.timeout_ms ?? DEFAULT_LITERATURE_TIMEOUT_MS;
  const response = await get(`${trimBase(input.base_url)}/search?${params}`, timeout_ms, input.abort_signal, 'application/json');
  if (!response.ok) {
    await response.body?.cancel();
    throw failureForStatus(response.status, 'search');
  }
  const body = await readLimited(response, SEARCH_RESPONSE_BYTES_MAX, 'search response');
  let parsed: SearchResponse;
  try {
    parsed = JSON.parse(body) as SearchResponse;
  } catch {
    // A maintenance page served with 200 is a transient outage, not a bad query.
    throw unavailable('Europe PMC answered the search with something other than JSON', { status: response.status });
  }
  const results = parsed.resultList?.result;
  if (!Array.isArray(results)) throw unavailable('Europe PMC answered the search without a result list', { status: response.status });
  const seen = new Set<string>();
  const records: LiteratureRecord[] = [];
  for (const raw of results.slice(0, input.limit)) {
    if (raw === null || typeof raw !== 'object') continue;
    const record = toLiteratureRecord(raw);
    if (seen.has(record.record_id)) continue;
    seen.add(record.record_id);
    records.push(record);
  }
  return records;
}

export type FetchOpenAccessTextInput = {
  base_url: string;
  record: LiteratureRecord;
  timeout_ms?: number;
  abort_signal?: AbortSignal;
};

const PMCID_PATTERN = /^PMC\d{1,12}$/;

/**
 * The plain text of an openly licensed open-access article (title, abstract, body; references left out),
 * or null when its licence does not allow reading (no request is made) or Europe PMC holds no full text (404).
 * A null means the record's support is not verified (spec: ConceptReview).
 */
export async function fetchOpenAccessText(input: FetchOpenAccessTextInput): Promise<string | null> {
  const { record } = input;
  if (record.full_text_access !== 'open_licence' || record.status !== 'included' || record.pmcid === null) return null;
  if (!PMCID_PATTERN.test(record.pmcid)) throw rejected('the record carries a malformed PMCID', { record_id: record.record_id });
  const url = `${trimBase(input.base_url)}/${record.pmcid}/fullTextXML`;
  const response = await get(url, input.timeout_ms ?? DEFAULT_LITERATURE_TIMEOUT_MS, input.abort_signal, 'application/xml');
  if (response.status === 404) {
    await response.body?.cancel();
    return null;
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw failureForStatus(response.status, `full text of ${record.pmcid}`);
  }
  const xml = await readLimited(response, FULL_TEXT_BYTES_MAX, 'full-text document');
  const text = jatsToPlainText(xml);
  return text === '' ? null : text;
}

// ---------------------------------------------------------------------------------------------
// JATS XML to plain text

// Elements whose text is not the article's prose: references, formulas, metadata, figures' binary parts.
const SKIPPED_ELEMENTS = new Set([
  'back',
  'ref-list',
  'ref',
  'fn-group',
  'mml:math',
  'math',
  'tex-math',
  'graphic',
  'inline-graphic',
  'media',
  'object-id',
  'contrib-group',
  'aff',
  'author-notes',
  'pub-date',
  'history',
  'permissions',
  'kwd-group',
  'funding-group',
  'custom-meta-group',
  'counts',
  'self-uri',
  'related-article',
  'supplementary-material',
  'label',
]);
// Elements that end a paragraph of the plain text.
const BLOCK_ELEMENTS = new Set([
  'p',
  'title',
  'article-title',
  'sec',
  'abstract',
  'trans-abstract',
  'list-item',
  'caption',
  'fig',
  'table-wrap',
  'tr',
  'disp-quote',
  'boxed-text',
  'def-item',
  'statement',
  'disp-formula',
  'body',
  'list',
]);

type OrderedNode = { [name: string]: OrderedNode[] | string | Record<string, string> | undefined };

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: true,
  trimValues: false,
  parseTagValue: false,
  processEntities: true,
  htmlEntities: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
  commentPropName: false,
});

function walk(nodes: OrderedNode[], paragraphs: string[], current: string[]): void {
  for (const node of nodes) {
    for (const [name, value] of Object.entries(node)) {
      if (name === ':@') continue;
      if (name === '#text') {
        current.push(String(value));
        continue;
      }
      if (SKIPPED_ELEMENTS.has(name) || !Array.isArray(value)) continue;
      if (BLOCK_ELEMENTS.has(name)) {
        flush(paragraphs, current);
        walk(value, paragraphs, current);
        flush(paragraphs, current);
      } else {
        // Table cells sit side by side; a space keeps their words apart.
        if (name === 'td' || name === 'th') current.push(' ');
        walk(value, paragraphs, current);
      }
    }
  }
}

function flush(paragraphs: string[], current: string[]): void {
  const paragraph = current.join('').replace(/\s+/g, ' ').trim();
  current.length = 0;
  if (paragraph !== '') paragraphs.push(paragraph);
}

function find(nodes: OrderedNode[], name: string): OrderedNode[][] {
  const found: OrderedNode[][] = [];
  for (const node of nodes) {
    for (const [key, value] of Object.entries(node)) {
      if (!Array.isArray(value)) continue;
      if (key === name) found.push(value);
      else found.push(...find(value, name));
    }
  }
  return found;
}

/**
 * The article's title, abstracts and body as paragraphs separated by blank lines, whitespace collapsed
 * within each; references, formulas and metadata left out. Quotes are verified against this text.
 */
export function jatsToPlainText(xml: string): string {
  let tree: OrderedNode[];
  try {
    tree = parser.parse(xml) as OrderedNode[];
  } catch {
    return '';
  }
  const paragraphs: string[] = [];
  const current: string[] = [];
  const front = find(tree, 'front')[0] ?? [];
  for (const title of find(front, 'article-title').slice(0, 1)) walk([{ 'article-title': title }], paragraphs, current);
  for (const abstract of find(front, 'abstract')) walk([{ abstract }], paragraphs, current);
  for (const body of find(tree, 'body').slice(0, 1)) walk([{ body }], paragraphs, current);
  flush(paragraphs, current);
  let text = '';
  for (const paragraph of paragraphs) {
    const next = text === '' ? paragraph : `${text}\n\n${paragraph}`;
    if (next.length > FULL_TEXT_CHARS_MAX) break;
    text = next;
  }
  return text;
}
