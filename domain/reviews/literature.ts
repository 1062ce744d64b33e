// Literature rules for the concept and evidence review, pure: the Europe PMC query built from the intake,
// and each record's classification (retractions, corrections, expressions of concern, licence).
// spec: What the service does 3; ConceptReview ("Sources whose text the service may not read are marked
// support not verified. Retracted records are excluded.").
import { ServiceError } from '../errors.ts';

// ---------------------------------------------------------------------------------------------
// The query

export type LiteratureQueryInput = {
  condition?: string | readonly string[] | null;
  intervention?: string | readonly string[] | null;
  setting?: string | readonly string[] | null;
  users?: string | readonly string[] | null;
  keywords?: string | readonly string[] | null;
};

/** Values taken per field; the rest are dropped (the intake can list up to 100 users). */
export const QUERY_VALUES_PER_FIELD_MAX = 5;
/** A value up to this many words is searched as an exact phrase; a longer one by its first content words. */
export const PHRASE_WORDS_MAX = 4;
/** Content words kept from a long, sentence-like value. */
export const CONTENT_WORDS_PER_VALUE_MAX = 4;
/** Europe PMC takes the query in the URL; longer queries are refused here with this limit named. */
export const LITERATURE_QUERY_CHARS_MAX = 1500;

// Common English words and words that say nothing about the topic of a health-technology idea.
const STOP_WORDS = new Set(
  (
    'a an and are as at be been being but by can could do does for from has have how in into is it its of on or our ' +
    'that the their them they this those to was we were what when where which who will with would within without ' +
    'about across after also among any before between both each more most new other over same so some such than ' +
    'then there these through under up very via while who whom whose why your you us my me i he she his her ' +
    'help helps helping improve improves improving better use used uses using allow allows enable enables ' +
    'provide provides providing support supports make makes based aim aims idea solution problem need needs'
  ).split(' '),
);

/** Characters with a meaning in Europe PMC's query syntax; removed so a value is always plain text. */
const QUERY_SYNTAX = /["'()[\]{}:*?\\^~!<>=|&+]/g;

function values(field: string | readonly string[] | null | undefined): string[] {
  const list = field === null || field === undefined ? [] : typeof field === 'string' ? [field] : [...field];
  return list
    .map((value) => value.replace(QUERY_SYNTAX, ' ').replace(/\s+/g, ' ').trim())
    .filter((value) => value.length > 0)
    .slice(0, QUERY_VALUES_PER_FIELD_MAX);
}

function clause(value: string): string | null {
  const words = value.split(' ');
  if (words.length <= PHRASE_WORDS_MAX) return `"${value}"`;
  const content = words
    .map((word) => word.replace(/^[-.,;/]+|[-.,;/]+$/g, ''))
    .filter((word) => word.length > 2 && !STOP_WORDS.has(word.toLowerCase()) && !/^(and|or|not)$/i.test(word));
  const kept = [...new Set(content.map((word) => word.toLowerCase()))].slice(0, CONTENT_WORDS_PER_VALUE_MAX);
  if (kept.length === 0) return null;
  return kept.length === 1 ? kept[0]! : `(${kept.join(' AND ')})`;
}

function group(...fields: Array<string | readonly string[] | null | undefined>): string | null {
  const clauses = [
    ...new Set(
      fields
        .flatMap(values)
        .map(clause)
        .filter((item): item is string => item !== null),
    ),
  ];
  if (clauses.length === 0) return null;
  return clauses.length === 1 ? clauses[0]! : `(${clauses.join(' OR ')})`;
}

function conjunction(groups: Array<string | null>): string | null {
  const present = groups.filter((item): item is string => item !== null);
  return present.length === 0 ? null : present.join(' AND ');
}

function checkLength(query: string): string {
  if (query.length > LITERATURE_QUERY_CHARS_MAX) {
    throw new ServiceError(
      'VALIDATION_FAILED',
      `the literature query is ${query.length} characters; the limit is LITERATURE_QUERY_CHARS_MAX (${LITERATURE_QUERY_CHARS_MAX})`,
      [{ path: '/query', message: 'shorten the intake terms used for the search' }],
    );
  }
  return query;
}

/**
 * The Europe PMC query for an intake: each field's values ORed (a short value as an exact phrase, a
 * sentence by its first content words), the fields ANDed; setting and users share one group.
 * Throws VALIDATION_FAILED when there is nothing to search for.
 */
export function buildLiteratureQuery(input: LiteratureQueryInput): string {
  const query = conjunction([group(input.condition), group(input.intervention), group(input.setting, input.users), group(input.keywords)]);
  if (query === null) {
    throw new ServiceError('VALIDATION_FAILED', 'the intake names no condition, intervention, setting, users or keywords to search the literature for', [
      { path: '/problem', message: 'describe the condition or problem the project addresses' },
    ]);
  }
  return checkLength(query);
}

/**
 * Queries from narrow to broad, deduplicated: the full query, then condition AND intervention, then
 * intervention AND setting/users, then condition alone, then intervention alone. A search that finds
 * too few records can try the next one.
 */
export function literatureQueryLadder(input: LiteratureQueryInput): string[] {
  const condition = group(input.condition);
  const intervention = group(input.intervention);
  const context = group(input.setting, input.users);
  const candidates = [buildLiteratureQuery(input), conjunction([condition, intervention]), conjunction([intervention, context]), condition, intervention];
  return [...new Set(candidates.filter((item): item is string => item !== null).map(checkLength))];
}

// ---------------------------------------------------------------------------------------------
// Europe PMC core records (resultType=core), as far as the review reads them

export type EuropePmcYesNo = 'Y' | 'N';

export type EuropePmcCommentCorrection = {
  id?: string;
  source?: string;
  reference?: string;
  type?: string;
  note?: string;
  orientation?: string;
};

export type EuropePmcResult = {
  id?: string;
  source?: string;
  pmid?: string;
  pmcid?: string;
  doi?: string;
  title?: string;
  authorString?: string;
  journalInfo?: { journal?: { title?: string }; yearOfPublication?: number | string };
  pubYear?: string;
  abstractText?: string;
  pubTypeList?: { pubType?: string | string[] };
  isOpenAccess?: EuropePmcYesNo | string;
  inEPMC?: EuropePmcYesNo | string;
  inPMC?: EuropePmcYesNo | string;
  license?: string;
  commentCorrectionList?: { commentCorrection?: EuropePmcCommentCorrection | EuropePmcCommentCorrection[] };
  [field: string]: unknown;
};

// ---------------------------------------------------------------------------------------------
// Classification

export type PublicationFlags = {
  /** The record itself has been retracted. Excluded. */
  retracted_publication: boolean;
  /** The record is a retraction notice. Excluded. */
  retraction_notice: boolean;
  /** The record is an erratum or correction notice. Kept, noted. */
  correction_notice: boolean;
  /** A correction or erratum to this record was published. Kept, noted. */
  corrected: boolean;
  /** The record is, or is the subject of, an expression of concern. Kept, noted. */
  expression_of_concern: boolean;
};

export const EXCLUSION_REASONS = ['retracted_publication', 'retraction_notice'] as const;
export type ExclusionReason = (typeof EXCLUSION_REASONS)[number];

/** Lower case, hyphens and underscores as spaces, single spaces: "Retraction-of-Publication" = "retraction of publication". */
export function normalizeTypeName(value: string): string {
  return value.toLowerCase().replace(/[-_]+/g, ' ').replace(/\s+/g, ' ').trim();
}

// Publication types, as MEDLINE (PubMed) names them and as Europe PMC and JATS article-type spell them.
const RETRACTED_TYPES = new Set(['retracted publication', 'retracted article', 'retracted']);
const RETRACTION_NOTICE_TYPES = new Set(['retraction of publication', 'retraction', 'retraction notice', 'retraction note', 'notice of retraction']);
const CORRECTION_NOTICE_TYPES = new Set(['published erratum', 'erratum', 'correction', 'correction notice', 'corrigendum', 'addendum correction']);
const CORRECTED_TYPES = new Set(['corrected and republished article']);
const CONCERN_TYPES = new Set(['expression of concern', 'editorial expression of concern', 'expression of concern notice']);

/** Flags from `pubTypeList.pubType` alone. */
export function classifyPublicationTypes(pub_types: readonly string[]): PublicationFlags {
  const names = pub_types.map(normalizeTypeName);
  const any = (set: Set<string>) => names.some((name) => set.has(name));
  return {
    retracted_publication: any(RETRACTED_TYPES),
    retraction_notice: any(RETRACTION_NOTICE_TYPES),
    correction_notice: any(CORRECTION_NOTICE_TYPES),
    corrected: any(CORRECTED_TYPES),
    expression_of_concern: any(CONCERN_TYPES),
  };
}

// commentCorrectionList types say how this record relates to another ("Retraction in" = this record was retracted).
function flagsFromCommentCorrections(items: readonly EuropePmcCommentCorrection[]): { flags: Partial<PublicationFlags>; notes: string[] } {
  const flags: Partial<PublicationFlags> = {};
  const notes: string[] = [];
  for (const item of items) {
    const type = normalizeTypeName(item.type ?? '');
    const reference = item.reference ? `: ${item.reference}` : item.id ? ` (${item.source ?? ''}${item.source ? ':' : ''}${item.id})` : '';
    if (type === 'retraction in' || type === 'retracted in') {
      flags.retracted_publication = true;
      notes.push(`retraction notice published${reference}`);
    } else if (type === 'retraction of') {
      flags.retraction_notice = true;
      notes.push(`retracts another record${reference}`);
    } else if (type === 'erratum in' || type === 'correction in' || type === 'corrected and republished in') {
      flags.corrected = true;
      notes.push(`correction published${reference}`);
    } else if (type === 'erratum for' || type === 'correction for') {
      flags.correction_notice = true;
      notes.push(`corrects another record${reference}`);
    } else if (type.startsWith('expression of concern')) {
      flags.expression_of_concern = true;
      notes.push(`expression of concern${reference}`);
    } else if (type.startsWith('partial retraction')) {
      // A partial retraction leaves the rest of the record standing; it is noted, not excluded.
      flags.expression_of_concern = true;
      notes.push(`partial retraction${reference}`);
    }
  }
  return { flags, notes };
}

// ---------------------------------------------------------------------------------------------
// Licence

/** Creative Commons licences: the text may be read and quoted for verification (decision: docs/ai-and-literature.md). */
export const OPEN_LICENCES = ['cc0', 'cc-by', 'cc-by-sa', 'cc-by-nd', 'cc-by-nc', 'cc-by-nc-sa', 'cc-by-nc-nd'] as const;
export type OpenLicence = (typeof OPEN_LICENCES)[number];

/** "CC BY-NC 4.0", "cc by-nc", "CC_BY_NC" all give "cc-by-nc"; "CC0 1.0" gives "cc0". null when absent. */
export function normalizeLicence(value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const name = value
    .toLowerCase()
    .trim()
    .replace(/^(creative commons|creativecommons)\s*/, 'cc ')
    .replace(/[\s_]+/g, '-')
    .replace(/-\d+(\.\d+)*$/, '')
    .replace(/-+/g, '-')
    .replace(/^-|-$/g, '');
  if (name === '') return null;
  if (name === 'cc-zero' || name === 'cc-0' || name === 'public-domain-cc0') return 'cc0';
  return name;
}

export function isOpenLicence(licence: string | null): licence is OpenLicence {
  return licence !== null && (OPEN_LICENCES as readonly string[]).includes(licence);
}

// ---------------------------------------------------------------------------------------------
// The record as the review uses it

export type FullTextAccess = 'open_licence' | 'support_not_verified';

export type LiteratureRecord = {
  /** Stable across searches: `${source}:${id}`, e.g. "MED:31234567" or "PMC:PMC6543210". */
  record_id: string;
  source: string;
  id: string;
  pmid: string | null;
  pmcid: string | null;
  doi: string | null;
  title: string;
  authors: string | null;
  journal: string | null;
  year: number | null;
  abstract: string | null;
  url: string;
  publication_types: string[];
  is_open_access: boolean;
  in_epmc: boolean;
  /** Normalized licence ("cc-by"), or null when Europe PMC states none. */
  licence: string | null;
  flags: PublicationFlags;
  status: 'included' | 'excluded';
  /** Why an excluded record is excluded; null when included. */
  exclusion_reason: ExclusionReason | null;
  /** Plain notes for the citation record: corrections, expressions of concern, the exclusion. */
  notes: string[];
  /** open_licence: the open-access full text may be fetched and quoted; otherwise support is not verified. */
  full_text_access: FullTextAccess;
  full_text_reason: string;
};

function asList<T>(value: T | T[] | undefined): T[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

function text(value: unknown): string | null {
  if (typeof value === 'number') return String(value);
  if (typeof value !== 'string') return null;
  const trimmed = value.trim();
  return trimmed === '' ? null : trimmed;
}

function year(raw: EuropePmcResult): number | null {
  const value = Number(raw.pubYear ?? raw.journalInfo?.yearOfPublication);
  return Number.isInteger(value) && value > 0 ? value : null;
}

function fullTextAccess(
  licence: string | null,
  pmcid: string | null,
  is_open_access: boolean,
  in_epmc: boolean,
  excluded: boolean,
): { access: FullTextAccess; reason: string } {
  if (excluded) return { access: 'support_not_verified', reason: 'the record is excluded' };
  if (!isOpenLicence(licence)) {
    return { access: 'support_not_verified', reason: licence === null ? 'no licence is stated' : `the licence "${licence}" is not an open licence` };
  }
  if (pmcid === null) return { access: 'support_not_verified', reason: 'the record has no PMCID, so no full text is held' };
  if (!is_open_access) return { access: 'support_not_verified', reason: 'the record is not in the open-access subset' };
  if (!in_epmc) return { access: 'support_not_verified', reason: 'the full text is not held by Europe PMC' };
  return { access: 'open_licence', reason: `openly licensed (${licence})` };
}

/** A Europe PMC core result as a classified LiteratureRecord. Pure; tolerant of absent fields. */
export function toLiteratureRecord(raw: EuropePmcResult): LiteratureRecord {
  const source = text(raw.source) ?? 'UNKNOWN';
  const pmcid = text(raw.pmcid);
  const id = text(raw.id) ?? text(raw.pmid) ?? pmcid ?? text(raw.doi) ?? 'unknown';
  const publication_types = asList(raw.pubTypeList?.pubType).filter((item): item is string => typeof item === 'string');
  const corrections = flagsFromCommentCorrections(asList(raw.commentCorrectionList?.commentCorrection));
  const fromTypes = classifyPublicationTypes(publication_types);
  const flags: PublicationFlags = {
    retracted_publication: fromTypes.retracted_publication || corrections.flags.retracted_publication === true,
    retraction_notice: fromTypes.retraction_notice || corrections.flags.retraction_notice === true,
    correction_notice: fromTypes.correction_notice || corrections.flags.correction_notice === true,
    corrected: fromTypes.corrected || corrections.flags.corrected === true,
    expression_of_concern: fromTypes.expression_of_concern || corrections.flags.expression_of_concern === true,
  };
  // spec: ConceptReview — retracted records are excluded; a retraction notice is not evidence either.
  const exclusion_reason: ExclusionReason | null = flags.retracted_publication ? 'retracted_publication' : flags.retraction_notice ? 'retraction_notice' : null;
  const notes: string[] = [];
  if (exclusion_reason === 'retracted_publication') notes.push('excluded: the publication has been retracted');
  if (exclusion_reason === 'retraction_notice') notes.push('excluded: the record is a retraction notice, not evidence');
  if (fromTypes.corrected) notes.push('corrected and republished');
  if (fromTypes.correction_notice) notes.push('the record is a correction or erratum notice');
  if (fromTypes.expression_of_concern) notes.push('the record is an expression of concern');
  notes.push(...corrections.notes);
  const licence = normalizeLicence(text(raw.license));
  const is_open_access = raw.isOpenAccess === 'Y';
  const in_epmc = raw.inEPMC === undefined ? is_open_access : raw.inEPMC === 'Y';
  const access = fullTextAccess(licence, pmcid, is_open_access, in_epmc, exclusion_reason !== null);
  return {
    record_id: `${source}:${id}`,
    source,
    id,
    pmid: text(raw.pmid),
    pmcid,
    doi: text(raw.doi),
    title: text(raw.title) ?? '(untitled)',
    authors: text(raw.authorString),
    journal: text(raw.journalInfo?.journal?.title),
    year: year(raw),
    abstract: text(raw.abstractText),
    url: `https://europepmc.org/article/${encodeURIComponent(source)}/${encodeURIComponent(id)}`,
    publication_types,
    is_open_access,
    in_epmc,
    licence,
    flags,
    status: exclusion_reason === null ? 'included' : 'excluded',
    exclusion_reason,
    notes: [...new Set(notes)],
    full_text_access: access.access,
    full_text_reason: access.reason,
  };
}

/** Records that may appear as evidence (spec: ConceptReview — retracted records are excluded). */
export function includedRecords(records: readonly LiteratureRecord[]): LiteratureRecord[] {
  return records.filter((record) => record.status === 'included');
}

/** The `type` of every failure the literature client throws (integrations/europepmc/client.ts). */
export const LITERATURE_FAILURE_TYPES = {
  /** Connection refused, timeout, 429 or 5xx, or a reply that is not the expected JSON. Retryable. */
  unavailable: 'LiteratureUnavailable',
  /** Other 4xx (a malformed query) or a bad request from us. Not retryable. */
  request_rejected: 'LiteratureRequestRejected',
} as const;
