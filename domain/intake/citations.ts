// Citation checking for a confirmed IntakeSpec (spec: IntakeSpec).
// A citation stays only if its source was processed, belongs to the project, the lines exist and the quote is in them word for word.
import type { Static } from 'typebox';
import type { CITATION_DROP_REASONS, DroppedCitation as DroppedCitationBody, DroppedClaim as DroppedClaimBody } from '../contracts/intake.ts';
import { type Citation, citationsWithPaths, type IntakeSpec } from '../contracts/intakeSpec.ts';
import { invariant } from '../errors.ts';
import type { SourceStatus } from './sources.ts';

/** What the caller knows about one cited source. `lines` are the stored numbered lines (line n is lines[n-1]). */
export type CitationSource = { status: SourceStatus; belongs_to_project: boolean; lines: string[] | null };
/** Returns undefined for an id that does not exist. */
export type CitationLookup = (source_id: string) => CitationSource | undefined;

export type CitationDropReason = (typeof CITATION_DROP_REASONS)[number];

/** A dropped citation (the quote is not echoed back: it may hold text the service must not repeat) and a dropped claim. */
export type DroppedCitation = Static<typeof DroppedCitationBody>;
export type DroppedClaim = Static<typeof DroppedClaimBody>;

export type CitationCheck = {
  spec: IntakeSpec; // the cleaned document: failing citations removed, claims left without a citation removed
  dropped: DroppedCitation[];
  dropped_claims: DroppedClaim[];
  citations_kept: number;
};

/** Collapses every run of whitespace to one space and trims: the only normalization a quote gets (spec: IntakeSpec). */
export function normalizeWhitespace(text: string): string {
  return text.replace(/\s+/gu, ' ').trim();
}

const WORD = /[\p{L}\p{N}]/u;

/** True when `quote` appears in `passage` word for word (whitespace normalized), not starting or ending inside a word. */
export function quoteAppearsIn(quote: string, passage: string): boolean {
  return holdsWordForWord(normalizeWhitespace(quote), normalizeWhitespace(passage));
}

/** quoteAppearsIn on texts already normalized. */
function holdsWordForWord(needle: string, haystack: string): boolean {
  if (needle.length === 0) return false;
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + 1)) {
    const before = haystack[at - 1];
    const after = haystack[at + needle.length];
    const starts_clean = !(before !== undefined && WORD.test(before) && WORD.test(needle[0]!));
    const ends_clean = !(after !== undefined && WORD.test(after) && WORD.test(needle[needle.length - 1]!));
    if (starts_clean && ends_clean) return true;
  }
  return false;
}

/** Numbered lines a quote may be found in: a source's lines from line 1, a cited passage from its first line. */
export type QuotePlace = { source_id: string; first_line: number; lines: readonly string[] };
/** Where a quote was found: the place (its index in the list searched) and the narrowest lines of it that hold the quote. */
export type QuoteLocation = { place: number; source_id: string; line_start: number; line_end: number };

const NORMALIZED_TEXTS = new WeakMap<readonly string[], string>();

/** A place's lines as one normalized text, kept while the line array lives (a draft's sources are searched per citation). */
function normalizedText(lines: readonly string[]): string {
  let text = NORMALIZED_TEXTS.get(lines);
  if (text === undefined) {
    text = normalizeWhitespace(lines.join('\n'));
    NORMALIZED_TEXTS.set(lines, text);
  }
  return text;
}

/** The narrowest run of `lines` that holds `quote` word for word, ending on the earliest line it can; null when none does. */
function narrowestLines(quote: string, lines: readonly string[]): { start: number; end: number } | null {
  const needle_chars = normalizeWhitespace(quote).length;
  const chars = lines.map((line) => {
    const normalized = normalizeWhitespace(line);
    return normalized.length + (normalized.length > 0 ? 1 : 0);
  });
  for (let end = 0; end < lines.length; end++) {
    // A quote that ends on line `end` starts at most needle_chars characters before it: the window reaches back that far.
    let start = end;
    let reach = 0;
    while (start > 0 && reach < needle_chars) {
      start -= 1;
      reach += chars[start]!;
    }
    if (!quoteAppearsIn(quote, lines.slice(start, end + 1).join('\n'))) continue;
    while (start < end && quoteAppearsIn(quote, lines.slice(start + 1, end + 1).join('\n'))) start++;
    return { start, end };
  }
  return null;
}

/**
 * Where the service finds `quote`, word for word (spec: IntakeSpec — whitespace normalized, never starting or ending
 * inside a word): the first place, in the order given, that holds it, and the narrowest of its lines that do; null when
 * none does. The one way a quote a model returned is located: an intake draft's citations in the draft's processed
 * sources (relocateCitations), an authoring proposal's in the confirmed intake's cited passages (domain/authoring).
 */
export function locateQuote(quote: string, places: readonly QuotePlace[]): QuoteLocation | null {
  const needle = normalizeWhitespace(quote);
  if (needle.length === 0) return null;
  for (const [place, { source_id, first_line, lines }] of places.entries()) {
    // The whole place first (its normalized text kept per line array), then its lines only where it holds the quote.
    if (!holdsWordForWord(needle, normalizedText(lines))) continue;
    const found = narrowestLines(quote, lines);
    if (found) return { place, source_id, line_start: first_line + found.start, line_end: first_line + found.end };
  }
  return null;
}

/** A processed source a draft was made from: its id and its numbered lines (line n is lines[n-1]). */
export type DraftedSource = { id: string; lines: readonly string[] };
type CitedPlace = Pick<Citation, 'source_id' | 'line_start' | 'line_end'>;
/** A citation the service moved to where its quote is (no quote: it may hold text the service must not repeat in logs). */
export type MovedCitation = { path: string; from: CitedPlace; to: CitedPlace };

/** Where to look for a citation's quote: the lines it names, then the source it names, then every other drafted source. */
function searchOrder(citation: Citation, sources: readonly DraftedSource[]): QuotePlace[] {
  const named = sources.find((source) => source.id === citation.source_id);
  const places: QuotePlace[] = [];
  if (named && citation.line_start <= citation.line_end && citation.line_end <= named.lines.length) {
    places.push({ source_id: named.id, first_line: citation.line_start, lines: named.lines.slice(citation.line_start - 1, citation.line_end) });
  }
  if (named) places.push({ source_id: named.id, first_line: 1, lines: named.lines });
  for (const source of sources) if (source !== named) places.push({ source_id: source.id, first_line: 1, lines: source.lines });
  return places;
}

/**
 * The drafted document with every citation set to where the service found its quote in the draft's processed sources
 * (spec: IntakeSpec, citations): the model's source id and lines are never taken on trust, only searched first. A quote
 * found nowhere keeps the model's citation, which checkCitations then drops with its reason.
 */
export function relocateCitations(spec: IntakeSpec, sources: readonly DraftedSource[]): { spec: IntakeSpec; moved: MovedCitation[] } {
  const relocated = structuredClone(spec);
  const moved: MovedCitation[] = [];
  for (const { path, citation } of citationsWithPaths(relocated)) {
    const found = locateQuote(citation.quote, searchOrder(citation, sources));
    if (!found) continue;
    const to = { source_id: found.source_id, line_start: found.line_start, line_end: found.line_end };
    if (to.source_id !== citation.source_id || to.line_start !== citation.line_start || to.line_end !== citation.line_end) {
      moved.push({ path, from: { source_id: citation.source_id, line_start: citation.line_start, line_end: citation.line_end }, to });
      Object.assign(citation, to);
    }
  }
  return { spec: relocated, moved };
}

function checkOne(citation: Citation, lookup: CitationLookup): { reason: CitationDropReason; message: string } | null {
  const source = lookup(citation.source_id);
  // Unknown and foreign ids get one answer, so the check never reveals another project's sources.
  if (source === undefined || !source.belongs_to_project)
    return { reason: 'source_not_in_project', message: 'the cited source is not a source of this project' };
  if (source.status !== 'processed' || source.lines === null) {
    return { reason: 'source_not_processed', message: `the cited source has status ${source.status}; only processed sources can be cited` };
  }
  if (citation.line_end < citation.line_start) return { reason: 'line_range_invalid', message: 'line_end is before line_start' };
  if (citation.line_end > source.lines.length) {
    return {
      reason: 'lines_out_of_range',
      message: `the source has ${source.lines.length} lines; lines ${citation.line_start}-${citation.line_end} do not exist`,
    };
  }
  const passage = source.lines.slice(citation.line_start - 1, citation.line_end).join('\n');
  if (!quoteAppearsIn(citation.quote, passage)) {
    return { reason: 'quote_not_in_lines', message: `the quote does not appear word for word in lines ${citation.line_start}-${citation.line_end}` };
  }
  return null;
}

/**
 * Checks every citation in `spec` (which must already be schema-valid) against the project's sources.
 * Failing citations are removed and listed with their reason; a claim left with no citation is removed and listed
 * in dropped_claims (a claim must cite: spec: IntakeSpec). Other statements keep their text without the citation.
 * Paths refer to the submitted document.
 */
export function checkCitations(spec: IntakeSpec, lookup: CitationLookup): CitationCheck {
  const cleaned = structuredClone(spec);
  const dropped: DroppedCitation[] = [];
  const failing = new Set<string>();
  let citations_kept = 0;
  for (const { path, citation } of citationsWithPaths(spec)) {
    const problem = checkOne(citation, lookup);
    if (problem === null) citations_kept++;
    else {
      failing.add(path);
      dropped.push({ path, source_id: citation.source_id, line_start: citation.line_start, line_end: citation.line_end, ...problem });
    }
  }
  // Remove failing citations from the clone by walking the same paths the check used.
  for (const { path, citation } of citationsWithPaths(cleaned)) {
    if (failing.has(path)) (citation as Citation & { drop?: true }).drop = true;
  }
  const keep = (holder: { citations: Citation[] } | null) => {
    if (holder) holder.citations = holder.citations.filter((citation) => !(citation as Citation & { drop?: true }).drop);
  };
  keep(cleaned.problem);
  keep(cleaned.proposed_solution);
  cleaned.intended_users.forEach(keep);
  keep(cleaned.care_setting);
  keep(cleaned.stage);
  cleaned.claims.forEach(keep);
  cleaned.evidence_offered.forEach(keep);
  cleaned.risks.forEach(keep);
  for (const key of ['proposed_user', 'buyer', 'budget_owner', 'current_alternative', 'value_hypothesis'] as const) keep(cleaned.business[key]);
  cleaned.business.dependencies.forEach(keep);
  keep(cleaned.care_pathway.description);
  cleaned.care_pathway.steps.forEach(keep);

  const dropped_claims: DroppedClaim[] = [];
  cleaned.claims = cleaned.claims.filter((claim, index) => {
    if (claim.citations.length > 0) return true;
    dropped_claims.push({ path: `/claims/${index}`, reason: 'no_valid_citation', message: 'the claim has no citation that passed the check; it was removed' });
    return false;
  });
  invariant(citationsWithPaths(cleaned).length === citations_kept, 'kept citations match the cleaned document');
  return { spec: cleaned, dropped, dropped_claims, citations_kept };
}

/** A lookup over sources already loaded by the caller; ids not in the list are unknown (dropped as source_not_in_project). */
export function citationLookupFrom(sources: Array<{ id: string; status: SourceStatus; lines: string[] | null; belongs_to_project: boolean }>): CitationLookup {
  const by_id = new Map(sources.map((source) => [source.id, source]));
  return (source_id) => {
    const source = by_id.get(source_id);
    return source && { status: source.status, belongs_to_project: source.belongs_to_project, lines: source.lines };
  };
}
