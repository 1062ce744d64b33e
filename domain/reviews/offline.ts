// The offline provider's review drafter and support judge: deterministic heuristics, labelled as such, so the
// embedded default and the tests run the whole review without a model (ARCHITECTURE.md: AI and literature).
// The drafter writes no claim of its own: each evidence claim restates one sentence quoted verbatim from a retrieved,
// openly licensed text. The judge measures word overlap between claim and quote.
import type { EvidenceJudgement, JudgeInput } from '../prompts/reviewJudge.ts';
import type { ConceptReviewDraft, DraftRecord } from '../prompts/reviewDraft.ts';
import { CLAIMS_PER_DIMENSION_MAX } from '../contracts/conceptReview.ts';
import { DIMENSIONS } from './dimensions.ts';
import { DRAFT_CLAIM_CHARS_MAX, DRAFT_QUOTE_CHARS_MAX } from './limits.ts';
import { inSentence } from '../../clients/sdk/src/words/sentences.ts';

export const OFFLINE_REVIEW_METHOD =
  'offline heuristic (not AI): evidence claims restate sentences quoted verbatim from openly licensed records, chosen by dimension keywords; support judged by word overlap';
/** Sentences quoted per dimension by the offline drafter (at most CLAIMS_PER_DIMENSION_MAX). */
export const OFFLINE_CLAIMS_PER_DIMENSION = 2;
/** Share of the claim's content words that must appear in the quote for the lexical judge to agree. */
export const LEXICAL_SUPPORT_THRESHOLD = 0.6;
const SENTENCE_CHARS_MIN = 40;

export type OfflineDraftInput = {
  topic: string;
  problem: string | null;
  solution: string | null;
  stage: string | null;
  records: DraftRecord[];
};

const STOP = new Set(
  'the a an and or of to in on for with by from at as is are was were be been this that these those it its their our we our was not no than then into over under about between within which who whom what when where how why can could may might would should will shall has have had do does did also such each per via'.split(
    ' ',
  ),
);

export function contentWords(text: string): string[] {
  return (text.toLowerCase().match(/[a-z0-9][a-z0-9-]*/g) ?? []).filter((word) => word.length >= 3 && !STOP.has(word));
}

function sentences(text: string): string[] {
  return text
    .split(/\n{2,}/)
    .flatMap((paragraph) => paragraph.split(/(?<=[.!?])\s+(?=[A-Z0-9])/))
    .map((s) => s.replace(/\s+/g, ' ').trim())
    .filter((s) => s.length >= SENTENCE_CHARS_MIN && s.length <= DRAFT_QUOTE_CHARS_MAX);
}

function hasKeyword(sentence: string, keywords: readonly string[]): boolean {
  const words = new Set(contentWords(sentence));
  return keywords.some((k) => words.has(k));
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`;
}

/**
 * The project's topic as words to set inside a sentence: the person's own words in quotes, named as the problem (or the
 * idea, when only a solution was stated), without their closing punctuation (the sentence around them has its own).
 */
export function topicWords(input: Pick<OfflineDraftInput, 'topic' | 'problem'>, max: number): string {
  const words = clip(
    input.topic
      .replace(/\s+/g, ' ')
      .trim()
      .replace(/[\s.!?;:,]+$/u, ''),
    max,
  );
  if (!words) return 'the problem';
  return `${input.problem ? 'the problem' : 'the idea'} (“${words}”)`;
}

/** "1 sentence from openly licensed records mentions …", "2 sentences … mention …": the count with its plural. */
export function sentencesFound(count: number, dimension: string): string {
  return count === 1
    ? `1 sentence from openly licensed records mentions ${dimension} terms; read it as a lead to test, not a finding.`
    : `${count} sentences from openly licensed records mention ${dimension} terms; read them as leads to test, not findings.`;
}

/** Deterministic draft over the 13 dimensions from the records' open texts (never from abstracts: those cannot be verified). */
export function draftReviewOffline(input: OfflineDraftInput): ConceptReviewDraft {
  const pool = input.records.filter((r) => r.text_kind === 'open_full_text').flatMap((r) => sentences(r.text).map((sentence) => ({ record: r, sentence })));
  const used = new Set<string>();
  const per_dimension = Math.min(OFFLINE_CLAIMS_PER_DIMENSION, CLAIMS_PER_DIMENSION_MAX);
  return {
    dimensions: DIMENSIONS.map((dimension) => {
      const picked = pool.filter((p) => !used.has(p.sentence) && hasKeyword(p.sentence, dimension.keywords)).slice(0, per_dimension);
      for (const p of picked) used.add(p.sentence);
      const summary =
        `Heuristic draft (no AI model) about ${topicWords(input, 160)}${input.stage ? `, at the ${input.stage} stage` : ''}: ${inSentence(dimension.asks)} ` +
        (picked.length > 0
          ? sentencesFound(picked.length, dimension.name.toLowerCase())
          : `No openly licensed record retrieved for this review mentions ${dimension.name.toLowerCase()} terms; this is an open question.`);
      return {
        id: dimension.id,
        summary,
        questions: dimension.questions.map((q) => q.replaceAll('{topic}', topicWords(input, 120))),
        next_experiments: dimension.next_experiments.map((e) => e.replaceAll('{topic}', topicWords(input, 120))),
        evidence_claims: picked.map((p) => ({
          claim: clip(`A retrieved record reports that ${p.sentence.charAt(0).toLowerCase()}${p.sentence.slice(1)}`, DRAFT_CLAIM_CHARS_MAX),
          record_id: p.record.record_id,
          quote: p.sentence,
        })),
      };
    }),
  };
}

/** Lexical support judge: agrees when enough of the claim's content words appear in the quote. */
export function judgeSupportOffline(input: JudgeInput): EvidenceJudgement {
  const claim = [...new Set(contentWords(input.claim))].filter((w) => !['retrieved', 'record', 'reports'].includes(w));
  const quote = new Set(contentWords(input.quote));
  const shared = claim.filter((w) => quote.has(w)).length;
  const share = claim.length === 0 ? 0 : shared / claim.length;
  const supports = share >= LEXICAL_SUPPORT_THRESHOLD;
  return {
    verdict: supports ? 'supports' : 'does_not_support',
    reason: `lexical overlap heuristic (not AI): ${shared} of ${claim.length} content words of the claim appear in the quote (threshold ${Math.round(LEXICAL_SUPPORT_THRESHOLD * 100)}%)`,
  };
}
