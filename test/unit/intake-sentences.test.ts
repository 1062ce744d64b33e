// The built-in drafter reads sentences: wrapped lines are joined, headings and labelled lines stay apart, and each
// statement cites exactly its sentence (a passage within a line, or across the lines it wraps over).
import { describe, expect, it } from 'vitest';
import { extractSources } from '../../compute/extraction.ts';
import { checkCitations, citationLookupFrom } from '../../domain/intake/citations.ts';
import { draftIntakeOffline, foundSummary } from '../../domain/intake/offlineDraft.ts';
import { continuesLine, sourceSentences, splitSentences } from '../../domain/intake/sentences.ts';
import { buildPdf } from '../support/corpus.ts';
import { emptyIntakeSpec } from '../support/intakeSpecs.ts';

const source = (lines: string[]) => ({ id: 'src_a', name: 'notes', status: 'processed' as const, lines });
const checks = (lines: string[], spec: ReturnType<typeof draftIntakeOffline>) =>
  checkCitations(spec, citationLookupFrom([{ id: 'src_a', status: 'processed', lines, belongs_to_project: true }]));

describe('splitting text into sentences', () => {
  it('splits with Intl.Segmenter and keeps abbreviations, decimals and e.g. inside their sentence', () => {
    const text = 'Dr. Patel sees 2.5 patients an hour, e.g. on Mondays. Waits are long! Is that fair? Yes.';
    expect(splitSentences(text).map((sentence) => sentence.text)).toEqual([
      'Dr. Patel sees 2.5 patients an hour, e.g. on Mondays.',
      'Waits are long!',
      'Is that fair?',
      'Yes.',
    ]);
  });

  it('gives each sentence its offset in the text', () => {
    const text = 'One thing.  Another thing.';
    for (const sentence of splitSentences(text)) expect(text.slice(sentence.start, sentence.start + sentence.text.length)).toBe(sentence.text);
  });
});

describe('joining wrapped lines', () => {
  it('joins a line that stops mid-sentence to a next line that starts lower-case, with a number or after a connecting word', () => {
    expect(continuesLine('each face-to-face new-patient slot is', '45 minutes.', 80)).toBe(true);
    expect(continuesLine('patients referred by their', 'GP wait 14 weeks.', 80)).toBe(true);
    expect(continuesLine('we see about forty patients', 'a day.', 80)).toBe(true);
  });

  it('keeps apart a finished sentence, a heading, a list item and a short title', () => {
    expect(continuesLine('Waits are long.', 'they are getting longer.', 80)).toBe(false);
    expect(continuesLine('Some text without an end', '## Problem', 80)).toBe(false);
    expect(continuesLine('Steps we take', '- the nurse calls', 80)).toBe(false);
    expect(continuesLine('Eczema coaching for families', 'Children with eczema wait.', 80)).toBe(false);
  });

  it('cites a sentence wrapped over two lines with both line numbers and the sentence as its quote', () => {
    const lines = [
      'Our clinic is busy. The service has 6 whole-time-equivalent physiotherapists; each face-to-face new-patient slot is',
      '45 minutes. We see',
      'about 120 new referrals a week.',
    ];
    const sentences = sourceSentences('src_a', lines);
    expect(sentences.map(({ line_start, line_end, text }) => ({ line_start, line_end, text }))).toEqual([
      { line_start: 1, line_end: 1, text: 'Our clinic is busy.' },
      { line_start: 1, line_end: 2, text: 'The service has 6 whole-time-equivalent physiotherapists; each face-to-face new-patient slot is 45 minutes.' },
      { line_start: 2, line_end: 3, text: 'We see about 120 new referrals a week.' },
    ]);
  });

  it('keeps headings, "Label: text" lines and list items apart, each under its heading or label', () => {
    const lines = ['# Notes', 'Problem: patients wait too long', 'Buyer: the ICB', '## Risks', '- a missed lesion', '- poor photos in bad light'];
    const sentences = sourceSentences('src_a', lines);
    expect(sentences.map(({ text, label, heading }) => ({ text, label, heading }))).toEqual([
      { text: 'patients wait too long', label: 'Problem', heading: 'Notes' },
      { text: 'the ICB', label: 'Buyer', heading: 'Notes' },
      { text: 'a missed lesion', label: null, heading: 'Risks' },
      { text: 'poor photos in bad light', label: null, heading: 'Risks' },
    ]);
  });
});

describe('JSON material', () => {
  it('reads a "key": "value" pair and the items of a "key": [ ... ] list under their key, citing the value only', () => {
    const lines = [
      '{',
      '  "current_alternative": "Paper referral letters.",',
      '  "dependencies": [',
      '    "Access to the practice record",',
      '    "A signed data agreement"',
      '  ]',
      '}',
    ];
    const spec = draftIntakeOffline([source(lines)]);
    expect(spec.business.current_alternative?.citations).toEqual([{ source_id: 'src_a', line_start: 2, line_end: 2, quote: 'Paper referral letters.' }]);
    expect(spec.business.dependencies.map((dependency) => dependency.text)).toEqual(['Access to the practice record', 'A signed data agreement']);
    expect(checks(lines, spec).dropped).toEqual([]);
  });
});

describe('the offline draft of prose', () => {
  it('reads a PDF whose sentence wraps mid-sentence as ONE claim with its unit, citing both lines', async () => {
    const lines = ['Physiotherapy service notes', '6 whole-time-equivalent physiotherapists; each face-to-face new-patient slot is', '45 minutes.'];
    const [pdf] = await extractSources([
      { kind: 'file', filename: 'notes.pdf', content_type: 'application/pdf', bytes: await buildPdf([{ kind: 'text', lines }]) },
    ]);
    expect(pdf!.lines).toEqual(lines);
    const spec = draftIntakeOffline([{ id: 'src_a', name: 'notes.pdf', status: 'processed', lines: pdf!.lines }]);
    expect(spec.claims).toHaveLength(1);
    expect(spec.claims[0]).toMatchObject({
      text: '6 whole-time-equivalent physiotherapists; each face-to-face new-patient slot is 45 minutes.',
      citations: [
        {
          source_id: 'src_a',
          line_start: 2,
          line_end: 3,
          quote: '6 whole-time-equivalent physiotherapists; each face-to-face new-patient slot is 45 minutes.',
        },
      ],
    });
    expect(checks(pdf!.lines!, spec).dropped).toEqual([]);
  });

  it('fills problem, solution, users, setting, stage and buyer from plain sentences, each citing its own sentence', () => {
    const paragraph =
      'Patients with heart failure are readmitted too often in the first month after discharge. We want to build an app that lets them log their weight each morning. ' +
      'It would be used by the heart failure nurses, who would call anyone whose weight jumps. It would be used in the community heart failure service. ' +
      'Nothing is built yet. The buyer would be the integrated care board.';
    const spec = draftIntakeOffline([source([paragraph])]);
    expect(spec.problem?.text).toBe('Patients with heart failure are readmitted too often in the first month after discharge.');
    expect(spec.proposed_solution?.text).toBe('We want to build an app that lets them log their weight each morning.');
    expect(spec.intended_users.map((user) => user.text)).toEqual(['It would be used by the heart failure nurses, who would call anyone whose weight jumps.']);
    expect(spec.care_setting?.text).toBe('It would be used in the community heart failure service.');
    expect(spec.stage).toMatchObject({ value: 'idea', citations: [{ line_start: 1, line_end: 1, quote: 'Nothing is built yet.' }] });
    expect(spec.business.buyer?.text).toBe('The buyer would be the integrated care board.');
    expect(spec.business.proposed_user?.text).toBe(spec.intended_users[0]!.text);
    for (const statement of [spec.problem, spec.proposed_solution, spec.care_setting, spec.business.buyer]) {
      expect(statement!.citations).toHaveLength(1);
      expect(statement!.citations[0]!.quote).toBe(statement!.text);
    }
    expect(checks([paragraph], spec).dropped).toEqual([]);
    expect(spec.unknowns.map((unknown) => unknown.field)).not.toEqual(expect.arrayContaining(['problem', 'proposed_solution', 'stage', 'business.buyer']));
    expect(spec.drafted_by?.summary).toBe(
      'Found 6 of 8 parts in your material (problem, solution, users, care setting, stage, buyer); not found: what people do today, risks.',
    );
  });

  it('never fills a field with the whole paragraph cut short: a run-on text with no sentence end gives nothing', () => {
    const run_on = `${'patients wait and wait for the clinic and '.repeat(20)}nobody knows why`;
    const spec = draftIntakeOffline([source([run_on])]);
    expect(spec.problem).toBeNull();
    expect(spec.intended_users).toEqual([]);
  });

  it('does not take "we do not know who would pay" for a buyer', () => {
    const spec = draftIntakeOffline([source(['We do not yet know who would pay for it.'])]);
    expect(spec.business.buyer).toBeNull();
    expect(spec.business.budget_owner).toBeNull();
  });

  it('says plainly when it found nothing', () => {
    const spec = draftIntakeOffline([source(['Lorem ipsum dolor sit amet, consectetur adipiscing elit.'])]);
    expect(spec.drafted_by?.summary).toMatch(/^Found nothing in your material that the intake asks for/);
    expect(foundSummary(emptyIntakeSpec())).toMatch(/^Found nothing/);
  });
});
