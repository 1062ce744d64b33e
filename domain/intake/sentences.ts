// The sentences of a source, for the built-in drafter: lines a PDF or a paste wrapped mid-sentence are joined, headings
// and "Label: text" lines are kept apart, and each unit is split into sentences with Intl.Segmenter (docs/decisions.md).
// Every sentence keeps the lines it spans, and its text is verbatim: the lines' texts joined by one space, so its quote
// passes the citation check (whitespace is the only normalization a quote gets).
import { invariant } from '../errors.ts';

/** A sentence of a processed source with the lines it spans (1-based, inclusive). */
export type SourceSentence = {
  source_id: string;
  line_start: number;
  line_end: number;
  /** Verbatim: the sentence as it reads across its lines, wrapped lines joined by one space. */
  text: string;
  /** The "Label" of a "Label: text" line or a JSON key the sentence sits under; null for plain prose. */
  label: string | null;
  /** The heading in force (Markdown `#`, a bold line), null before any heading. */
  heading: string | null;
  /** A list item starting with "1." or "Step 1:" (a step of a described pathway). */
  numbered: boolean;
  /** A list item ("- ", "* ", "1. "): a short item need not end like a sentence. */
  list_item: boolean;
  /** Index of the sentence within its unit (paragraph, labelled line or list item). */
  index_in_unit: number;
};

/** A line wrapped at least this share of the longest line of its source, and not ending a sentence, runs on. */
const WRAPPED_LINE_SHARE_MIN = 0.8;
/** A line shorter than this is a title, never a wrapped line (unless it ends with a word that needs a continuation). */
const WRAPPED_LINE_CHARS_MIN = 40;

// Strips list, heading and quote markers; the rest of the line is kept character for character.
const MARKERS = /^\s*(?:#{1,6}\s+|[-*+•]\s+|>\s*|\d{1,3}[.)]\s+|\[[ xX]\]\s+)*/;
const LIST_ITEM = /^\s*(?:[-*+•]\s+|\d{1,3}[.)]\s+|step \d+[:.]?\s+)/i;
const HEADING = /^\s*#{1,6}\s+\S|^\s*\*\*[^*]+\*\*\s*:?\s*$/;
const JSON_PAIR = /^\s*"([^"\\]{1,80})"\s*:\s*"((?:[^"\\]){2,})"\s*,?\s*$/;
const JSON_LIST_OPEN = /^\s*"([^"\\]{1,80})"\s*:\s*\[\s*$/;
const JSON_LIST_ITEM = /^\s*"((?:[^"\\]){2,})"\s*,?\s*$/;
const LABELLED = /^([A-Za-z][A-Za-z /&'-]{1,40}?)\s*[:–—-]\s+(\S.*)$/;
const ENDS_SENTENCE = /[.!?:]["')\]’”]*$/;
// A line ending in one of these words (or a comma, a dash) cannot end a sentence: the next line continues it.
const CONNECTOR =
  /(?:[,;&/–—-]|\b(?:a|an|the|of|to|in|on|at|for|with|by|from|into|onto|and|or|but|nor|as|than|that|which|who|whose|whom|is|are|was|were|be|been|being|has|have|had|do|does|would|will|can|could|should|may|might|must|their|our|its|his|her|your|my|this|these|those|each|every|per|about|over|under|between|within|without|via|after|before|when|while|if|so|not|no|very|more|most|less|up|we|they|it|he|she|you|i)|\d)$/i;
// Segments ending in these abbreviations are not sentence ends (Intl.Segmenter breaks after "Dr." before a capital).
const ABBREVIATION = /\b(?:Dr|Mr|Mrs|Ms|Mx|Prof|St|No|vs|approx|etc|e\.g|i\.e|Dept|Fig|Ref|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)\.\s*$/i;

type Line = { number: number; text: string; label: string | null; heading: boolean; list_item: boolean; numbered: boolean; json: boolean };

function readLine(raw: string, number: number, json_key: string | null): Line {
  const base = { number, heading: false, list_item: false, numbered: false, json: true };
  const pair = JSON_PAIR.exec(raw);
  if (pair) return { ...base, text: pair[2]!, label: pair[1]!.replace(/[_-]/g, ' ') };
  const item = json_key !== null ? JSON_LIST_ITEM.exec(raw) : null;
  if (item) return { ...base, text: item[1]!, label: json_key };
  const heading = HEADING.test(raw);
  const list_item = LIST_ITEM.test(raw);
  const numbered = /^\s*(?:\d{1,3}[.)]|step \d+[:.]?)\s+/i.test(raw);
  const stripped = raw
    .replace(MARKERS, '')
    .replace(/^\*\*([^*]+)\*\*\s*:?\s*$/, '$1')
    .trim();
  const labelled = heading ? null : LABELLED.exec(stripped);
  if (labelled) return { number, text: labelled[2]!.trimEnd(), label: labelled[1]!, heading, list_item, numbered, json: false };
  return { number, text: stripped, label: null, heading, list_item, numbered, json: false };
}

/** True when `next` continues the sentence `previous` left open (a wrap by a PDF layout or a paste). */
export function continuesLine(previous: string, next: string, longest_line_chars: number): boolean {
  const before = previous.trimEnd();
  const after = next.trimStart();
  if (before === '' || after === '' || ENDS_SENTENCE.test(before)) return false;
  if (HEADING.test(next) || LIST_ITEM.test(next)) return false;
  if (/^[\p{Ll}(]/u.test(after)) return true;
  if (CONNECTOR.test(before)) return true;
  // A number after a short line with no connecting word is a new line under a title ("Service notes" / "6 staff ...").
  return before.length >= WRAPPED_LINE_CHARS_MIN && before.length >= WRAPPED_LINE_SHARE_MIN * longest_line_chars;
}

type Unit = { lines: Line[]; label: string | null; heading: string | null; numbered: boolean; list_item: boolean };

/** Groups a source's lines into units: a paragraph (wrapped lines joined), a labelled line, a list item, a JSON value. */
function unitsOf(lines: readonly string[]): Unit[] {
  const longest = lines.reduce((max, line) => Math.max(max, line.trim().length), 0);
  const units: Unit[] = [];
  let open: Unit | null = null;
  let heading: string | null = null;
  let json_key: string | null = null;
  lines.forEach((raw, index) => {
    const open_list = JSON_LIST_OPEN.exec(raw);
    if (open_list) json_key = open_list[1]!.replace(/[_-]/g, ' ');
    else if (/^\s*\]/.test(raw)) json_key = null;
    const line = readLine(raw, index + 1, json_key);
    const last = open?.lines.at(-1);
    if (open && last && !line.json && !last.json && continuesLine(last.text, raw, longest)) {
      open.lines.push({ ...line, text: raw.trim() });
      return;
    }
    open = null;
    if (line.heading) heading = line.text;
    else if (line.text !== '') {
      open = { lines: [line], label: line.label, heading, numbered: line.numbered, list_item: line.list_item };
      units.push(open);
    }
  });
  return units;
}

const segmenter = new Intl.Segmenter('en', { granularity: 'sentence' });

/** Splits text into sentences (start offset and text, trimmed), not breaking after "Dr." or "e.g.". */
export function splitSentences(text: string): Array<{ start: number; text: string }> {
  const out: Array<{ start: number; text: string }> = [];
  let pending: { start: number; end: number } | null = null;
  for (const segment of segmenter.segment(text)) {
    const end = segment.index + segment.segment.length;
    pending = pending ? { start: pending.start, end } : { start: segment.index, end };
    if (ABBREVIATION.test(text.slice(pending.start, pending.end))) continue;
    pushTrimmed(out, text, pending);
    pending = null;
  }
  if (pending) pushTrimmed(out, text, pending);
  return out;
}

function pushTrimmed(out: Array<{ start: number; text: string }>, text: string, span: { start: number; end: number }): void {
  const raw = text.slice(span.start, span.end);
  const lead = raw.length - raw.trimStart().length;
  const trimmed = raw.trim();
  if (trimmed !== '') out.push({ start: span.start + lead, text: trimmed });
}

/** The sentences of one processed source, in order, each with its line range. */
export function sourceSentences(source_id: string, lines: readonly string[]): SourceSentence[] {
  const out: SourceSentence[] = [];
  for (const unit of unitsOf(lines)) {
    // The unit's text: its lines joined by one space; starts[i] is where line i begins in it.
    const starts: number[] = [];
    let text = '';
    for (const line of unit.lines) {
      if (text !== '') text += ' ';
      starts.push(text.length);
      text += line.text;
    }
    // The line holding an offset: the last line starting at or before it (binary search: a unit may span many lines).
    const lineAt = (offset: number) => {
      let low = 0;
      let high = starts.length - 1;
      while (low < high) {
        const middle = (low + high + 1) >> 1;
        if (starts[middle]! <= offset) low = middle;
        else high = middle - 1;
      }
      return unit.lines[low]!.number;
    };
    splitSentences(text).forEach((sentence, index_in_unit) => {
      const line_start = lineAt(sentence.start);
      const line_end = lineAt(sentence.start + sentence.text.length - 1);
      invariant(line_end >= line_start, 'a sentence ends on or after the line it starts on');
      out.push({
        source_id,
        line_start,
        line_end,
        text: sentence.text,
        label: unit.label,
        heading: unit.heading,
        numbered: unit.numbered,
        list_item: unit.list_item,
        index_in_unit,
      });
    });
  }
  return out;
}
