// A review presents no record it did not verify (spec: ConceptReview - "the cited record is one the service
// retrieved"; "Retracted records are excluded"). Every text of a review the model wrote (dimension summaries, questions,
// next experiments, claim texts, the judge's reasons) is scanned for record identifiers and citation-like mentions:
// record ids (MED:…), PMIDs, PMCIDs, DOIs and links to them, author–year citations and numbered references. A mention
// that names a record this review retrieved and kept stays; anything else (a record never retrieved, an excluded or
// retracted one, a numbered reference to a list the review does not have) is replaced by REMOVED_MENTION_MARK and
// listed with the text it came from and why. Pure.
import type { LiteratureRecord } from './literature.ts';

/** What a removed mention is replaced with, so a reader sees that something was taken out. */
export const REMOVED_MENTION_MARK = '[citation removed]';
/** Removed mentions listed per review; the rest are counted in the last entry's reason. */
export const REMOVED_MENTIONS_LISTED_MAX = 200;
/** A removed mention is listed up to this many characters. */
export const REMOVED_MENTION_TEXT_MAX = 600;

export type RemovedMention = {
  /** JSON pointer of the text in the review, e.g. /dimensions/2/summary */
  path: string;
  /** the mention as the model wrote it */
  removed: string;
  reason: string;
};

type Kept = Pick<LiteratureRecord, 'record_id' | 'pmid' | 'pmcid' | 'doi' | 'authors' | 'year' | 'status' | 'exclusion_reason'>;

/** The records a review retrieved, indexed by every identifier a text may use for them. */
export type MentionIndex = {
  byId: Map<string, Kept>;
  records: readonly Kept[];
};

const normalizeDoi = (doi: string) =>
  doi
    .trim()
    .replace(/^https?:\/\/(dx\.)?doi\.org\//i, '')
    .replace(/^doi:\s*/i, '')
    .toLowerCase();

export function mentionIndex(records: readonly Kept[]): MentionIndex {
  const byId = new Map<string, Kept>();
  const put = (key: string | null, record: Kept) => {
    // an included record wins over an excluded one that shares an identifier
    if (key && (!byId.has(key) || byId.get(key)!.status === 'excluded')) byId.set(key, record);
  };
  for (const record of records) {
    put(`record:${record.record_id.toUpperCase()}`, record);
    if (record.pmid) put(`pmid:${record.pmid}`, record);
    if (record.pmcid) put(`pmcid:${record.pmcid.toUpperCase()}`, record);
    if (record.doi) put(`doi:${normalizeDoi(record.doi)}`, record);
  }
  return { byId, records };
}

type Mention = { start: number; end: number; text: string; resolve: (index: MentionIndex) => Kept | 'numbered' | null };

const NAME = "[A-Z][\\p{L}'’-]+";
const YEAR = '((?:19|20)\\d{2})[a-z]?';
const PATTERNS: Array<{ pattern: RegExp; resolve: (match: RegExpExecArray, index: MentionIndex) => Kept | 'numbered' | null }> = [
  // links to a record: doi.org, PubMed, PMC, Europe PMC
  {
    pattern: /https?:\/\/(?:dx\.)?doi\.org\/(10\.\d{4,9}\/[^\s"<>()[\]]+)/giu,
    resolve: (match, index) => index.byId.get(`doi:${normalizeDoi(trimTrailing(match[1]!))}`) ?? null,
  },
  {
    pattern: /https?:\/\/(?:www\.)?(?:pubmed\.ncbi\.nlm\.nih\.gov|ncbi\.nlm\.nih\.gov\/pubmed)\/(\d{1,9})\/?/giu,
    resolve: (match, index) => index.byId.get(`pmid:${match[1]}`) ?? null,
  },
  {
    pattern: /https?:\/\/(?:www\.)?(?:ncbi\.nlm\.nih\.gov\/pmc\/articles|pmc\.ncbi\.nlm\.nih\.gov\/articles)\/(PMC\d{1,9})\/?/giu,
    resolve: (match, index) => index.byId.get(`pmcid:${match[1]!.toUpperCase()}`) ?? null,
  },
  {
    pattern: /https?:\/\/(?:www\.)?europepmc\.org\/(?:abstract|article)\/([A-Z]{3})\/([A-Z]*\d+)\/?/giu,
    resolve: (match, index) => index.byId.get(`record:${match[1]!.toUpperCase()}:${match[2]!.toUpperCase()}`) ?? null,
  },
  // Europe PMC record ids as the review writes them: MED:31234567, PMC:PMC6543210, PPR:PPR12345
  {
    pattern: /\b(?:MED|PMC|PPR|AGR|CBA|CTX|ETH|HIR|PAT|NBK|IND):[A-Z]*\d+\b/gu,
    resolve: (match, index) => index.byId.get(`record:${match[0].toUpperCase()}`) ?? null,
  },
  { pattern: /\bPMID\s*:?\s*(\d{1,9})\b/giu, resolve: (match, index) => index.byId.get(`pmid:${match[1]}`) ?? null },
  { pattern: /\bPMC\d{1,9}\b/gu, resolve: (match, index) => index.byId.get(`pmcid:${match[0].toUpperCase()}`) ?? null },
  {
    pattern: /\b(?:doi:\s*)?(10\.\d{4,9}\/[^\s"<>()[\]]+)/giu,
    resolve: (match, index) => index.byId.get(`doi:${normalizeDoi(trimTrailing(match[1]!))}`) ?? null,
  },
  // author–year citations: (Smith et al., 2019), (Smith and Jones 2020; …), Smith et al. (2019), Smith (2019)
  {
    pattern: new RegExp(`\\((${NAME})(?:\\s+et\\s+al\\.?|\\s+(?:and|&)\\s+${NAME})?,?\\s+${YEAR}(?:;[^)]{0,200})?\\)`, 'gu'),
    resolve: (match, index) => byAuthorYear(index, match[1]!, Number(match[2])),
  },
  {
    pattern: new RegExp(`\\b(${NAME})\\s+et\\s+al\\.?,?\\s*\\(?${YEAR}\\)?`, 'gu'),
    resolve: (match, index) => byAuthorYear(index, match[1]!, Number(match[2])),
  },
  {
    pattern: new RegExp(`\\b(${NAME})(?:\\s+(?:and|&)\\s+${NAME})?\\s+\\(${YEAR}\\)`, 'gu'),
    resolve: (match, index) => byAuthorYear(index, match[1]!, Number(match[2])),
  },
  // numbered references: the review has no reference list, so [1] or [2-4] names nothing
  { pattern: /\[\d{1,3}(?:\s*[-–,]\s*\d{1,3})*\]/gu, resolve: () => 'numbered' },
];

function trimTrailing(value: string): string {
  return value.replace(/[.,;:]+$/u, '');
}

function escapeRegExp(value: string): string {
  return value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A record whose authors include the surname and whose year matches; an included one is preferred. */
function byAuthorYear(index: MentionIndex, surname: string, year: number): Kept | null {
  const word = new RegExp(`(^|[^\\p{L}])${escapeRegExp(surname)}([^\\p{L}]|$)`, 'iu');
  const matches = index.records.filter((record) => record.year === year && record.authors !== null && word.test(record.authors));
  return matches.find((record) => record.status === 'included') ?? matches[0] ?? null;
}

function mentionsIn(text: string): Mention[] {
  const found: Mention[] = [];
  for (const { pattern, resolve } of PATTERNS) {
    pattern.lastIndex = 0;
    for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
      const captured = match;
      const value = trimTrailing(match[0]);
      found.push({ start: match.index, end: match.index + value.length, text: value, resolve: (index) => resolve(captured, index) });
      if (match[0].length === 0) pattern.lastIndex += 1;
    }
  }
  // earlier and longer first; a mention inside one already taken (a DOI inside its link) is not counted twice
  found.sort((a, b) => a.start - b.start || b.end - a.end);
  const kept: Mention[] = [];
  for (const mention of found) {
    const last = kept[kept.length - 1];
    if (last && mention.start < last.end) continue;
    kept.push(mention);
  }
  return kept;
}

/** Why a mention of `target` is removed, or null when it names a record this review retrieved and kept. */
export function removalReason(target: Pick<Kept, 'record_id' | 'status' | 'exclusion_reason'> | 'numbered' | null): string | null {
  if (target === 'numbered') return 'a numbered reference: this review has no reference list, only the records in its citation record';
  if (target === null) return 'names no record this review retrieved';
  if (target.status === 'excluded')
    return `names ${target.record_id}, which this review excluded (${target.exclusion_reason ?? 'excluded'}); it is not evidence`;
  return null;
}

/** The text with every mention that does not name a kept record replaced, and what was removed. */
export function scrubMentions(text: string, path: string, index: MentionIndex): { text: string; removed: RemovedMention[] } {
  const removed: RemovedMention[] = [];
  let out = '';
  let at = 0;
  for (const mention of mentionsIn(text)) {
    const reason = removalReason(mention.resolve(index));
    if (reason === null) continue;
    out += text.slice(at, mention.start) + REMOVED_MENTION_MARK;
    at = mention.end;
    removed.push({ path, removed: mention.text.slice(0, REMOVED_MENTION_TEXT_MAX), reason });
  }
  if (removed.length === 0) return { text, removed };
  return { text: out + text.slice(at), removed };
}
