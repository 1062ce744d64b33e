// The built-in drafter measured on a corpus of prose paragraphs and wrapped PDFs (test/support/drafterCorpus.ts): for
// each field, precision (of the sentences the draft cites for it, how many state it) and recall (of the fields the
// material states, how many the draft found: per paragraph for a single-valued field, per sentence for a list).
// PDFs are built with pdf-lib and read through the real extraction, so their lines wrap as a PDF's do.
import { beforeAll, describe, expect, it } from 'vitest';
import { extractSources } from '../../compute/extraction.ts';
import { citationsWithPaths, type IntakeSpec, type Statement } from '../../domain/contracts/intakeSpec.ts';
import { checkCitations, citationLookupFrom, normalizeWhitespace } from '../../domain/intake/citations.ts';
import { draftIntakeOffline } from '../../domain/intake/offlineDraft.ts';
import type { DraftSource } from '../../domain/prompts/intakeDraft.ts';
import { SOURCES_PER_REQUEST_MAX } from '../../domain/intake/sources.ts';
import { buildPdf } from '../support/corpus.ts';
import {
  CORPUS_FIELDS,
  type CorpusCase,
  type CorpusField,
  caseText,
  HELD_OUT_CASES,
  PDF_CASES,
  PROSE_CASES,
  SECOND_ROUND_CASES,
  THIRD_ROUND_CASES,
  wrapWords,
} from '../support/drafterCorpus.ts';

const SCORE_MIN = 0.9;
const LIST_FIELDS: ReadonlySet<CorpusField> = new Set(['intended_users', 'risks', 'evidence_offered', 'dependencies', 'claims']);

/** The corpus sentence a quote is: the sentence itself, or a labelled line's text after its "Label:". */
function sentenceKey(text: string): string {
  return normalizeWhitespace(text).replace(/^[A-Za-z][A-Za-z /&'-]{1,40}?:\s+/, '');
}

type Drafted = { corpus_case: CorpusCase; source: DraftSource; spec: IntakeSpec };
type Tally = { cited: number; cited_right: number; stated: number; found: number };

/** The statements of a field in a draft (stage counts as a statement when it has a value). */
function statementsOf(spec: IntakeSpec, field: CorpusField): Array<Pick<Statement, 'citations'>> {
  if (field === 'stage') return spec.stage.value === null ? [] : [spec.stage];
  const business = spec.business as Record<string, Statement | Statement[] | null>;
  const value = field in business ? business[field] : (spec as unknown as Record<string, Statement | Statement[] | null>)[field];
  if (value === null || value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

function tally(drafted: Drafted[]): Map<CorpusField, Tally> {
  const tallies = new Map(CORPUS_FIELDS.map((field) => [field, { cited: 0, cited_right: 0, stated: 0, found: 0 }]));
  for (const { corpus_case, spec } of drafted) {
    const expected = new Map(corpus_case.sentences.map((sentence) => [sentenceKey(sentence.text), sentence.fields]));
    for (const field of CORPUS_FIELDS) {
      const t = tallies.get(field)!;
      const quotes = statementsOf(spec, field).flatMap((statement) => statement.citations.map((citation) => sentenceKey(citation.quote)));
      const right = quotes.filter((quote) => expected.get(quote)?.includes(field));
      t.cited += quotes.length;
      t.cited_right += right.length;
      const stating = corpus_case.sentences.filter((sentence) => sentence.fields.includes(field));
      if (LIST_FIELDS.has(field)) {
        t.stated += stating.length;
        t.found += stating.filter((sentence) => quotes.includes(sentenceKey(sentence.text))).length;
      } else if (stating.length > 0) {
        t.stated += 1;
        t.found += right.length > 0 ? 1 : 0;
      }
    }
  }
  return tallies;
}

const ratio = (part: number, whole: number) => (whole === 0 ? 1 : part / whole);

/** Prints precision and recall per field and overall, and returns the rows. */
function report(title: string, drafted_cases: Drafted[]) {
  const tallies = tally(drafted_cases);
  const rows = [...tallies].map(([field, t]) => ({
    field,
    precision: ratio(t.cited_right, t.cited),
    recall: ratio(t.found, t.stated),
    cited: t.cited,
    stated: t.stated,
  }));
  const all = [...tallies.values()].reduce((sum, t) => ({
    cited: sum.cited + t.cited,
    cited_right: sum.cited_right + t.cited_right,
    stated: sum.stated + t.stated,
    found: sum.found + t.found,
  }));
  rows.push({
    field: 'overall' as CorpusField,
    precision: ratio(all.cited_right, all.cited),
    recall: ratio(all.found, all.stated),
    cited: all.cited,
    stated: all.stated,
  });
  console.log(
    [
      `${title}: field        precision  recall  (cited, stated)`,
      ...rows.map((r) => `${r.field.padEnd(22)}${r.precision.toFixed(2).padStart(9)}${r.recall.toFixed(2).padStart(8)}  (${r.cited}, ${r.stated})`),
    ].join('\n'),
  );
  return rows;
}

let drafted: Drafted[];

beforeAll(async () => {
  const inputs = [
    ...[...PROSE_CASES, ...SECOND_ROUND_CASES, ...THIRD_ROUND_CASES].map((corpus_case) => ({
      kind: 'text' as const,
      name: `${corpus_case.name}.txt`,
      text: caseText(corpus_case),
    })),
    ...(await Promise.all(
      PDF_CASES.map(async (corpus_case) => {
        const lines = [corpus_case.title, ...wrapWords(caseText(corpus_case), corpus_case.wrap_chars)];
        return {
          kind: 'file' as const,
          filename: `${corpus_case.name}.pdf`,
          content_type: 'application/pdf',
          bytes: await buildPdf([{ kind: 'text', lines }]),
        };
      }),
    )),
  ];
  // Read as a person would upload them: at most SOURCES_PER_REQUEST_MAX at a time.
  const sources = [];
  for (let at = 0; at < inputs.length; at += SOURCES_PER_REQUEST_MAX) sources.push(...(await extractSources(inputs.slice(at, at + SOURCES_PER_REQUEST_MAX))));
  const cases = [...PROSE_CASES, ...SECOND_ROUND_CASES, ...THIRD_ROUND_CASES, ...PDF_CASES];
  drafted = sources.map((source, index) => {
    expect(source.status).toBe('processed');
    const draft_source: DraftSource = { id: source.id, name: source.name, status: source.status, lines: source.lines };
    return { corpus_case: cases[index]!, source: draft_source, spec: draftIntakeOffline([draft_source]) };
  });
}, 60_000);

describe('the built-in drafter on a corpus of prose and wrapped PDFs', () => {
  it('holds at least 12 prose paragraphs and 3 PDFs whose sentences really wrap across lines', () => {
    expect(PROSE_CASES.length).toBeGreaterThanOrEqual(12);
    expect(PDF_CASES.length).toBeGreaterThanOrEqual(3);
    for (const pdf of drafted.filter(({ corpus_case }) => PDF_CASES.includes(corpus_case as never))) {
      const spans = citationsWithPaths(pdf.spec).filter(({ citation }) => citation.line_end > citation.line_start);
      expect(spans.length, pdf.corpus_case.name).toBeGreaterThan(0);
    }
  });

  it('cites only sentences that pass the citation check', () => {
    for (const { source, spec } of drafted) {
      const checked = checkCitations(spec, citationLookupFrom([{ ...source, belongs_to_project: true }]));
      expect(checked.dropped, source.name).toEqual([]);
    }
  });

  it('reads the stage each paragraph states, and none where it states none', () => {
    for (const { corpus_case, spec } of drafted) expect(spec.stage.value, corpus_case.name).toBe(corpus_case.stage);
  });

  it(`finds each field with precision and recall of at least ${SCORE_MIN}`, () => {
    const rows = report('corpus', drafted);
    for (const row of rows) {
      expect(row.precision, `${row.field} precision`).toBeGreaterThanOrEqual(SCORE_MIN);
      expect(row.recall, `${row.field} recall`).toBeGreaterThanOrEqual(SCORE_MIN);
    }
  });

  it('prints its figures on held-out paragraphs it was never tuned on, and cites only true sentences there too', () => {
    const held_out = HELD_OUT_CASES.map((corpus_case) => {
      const source: DraftSource = { id: 'src_held', name: corpus_case.name, status: 'processed', lines: [caseText(corpus_case)] };
      return { corpus_case, source, spec: draftIntakeOffline([source]) };
    });
    const rows = report('held-out paragraphs', held_out);
    expect(rows.at(-1)!.cited).toBeGreaterThan(0);
    for (const { source, spec } of held_out) expect(checkCitations(spec, citationLookupFrom([{ ...source, belongs_to_project: true }])).dropped).toEqual([]);
  });

  it('never fills a field with a cut-off paragraph: every quote is one whole sentence of the corpus', () => {
    for (const { corpus_case, spec } of drafted) {
      const sentences = new Set(corpus_case.sentences.map((sentence) => sentenceKey(sentence.text)));
      for (const field of CORPUS_FIELDS) {
        for (const statement of statementsOf(spec, field)) {
          for (const citation of statement.citations) expect(sentences.has(sentenceKey(citation.quote)), `${corpus_case.name} ${field}`).toBe(true);
        }
      }
    }
  });
});
