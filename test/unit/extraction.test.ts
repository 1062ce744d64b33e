import { beforeAll, describe, expect, it } from 'vitest';
import {
  checkExtractionLimits,
  type ExtractedSource,
  extractSources,
  BYTES_PER_REQUEST_MAX,
  BYTES_PER_SOURCE_MAX,
  PDF_PAGES_MAX,
  SOURCES_PER_REQUEST_MAX,
  sourceSummary,
} from '../../compute/extraction.ts';
import { isServiceError, type ServiceError } from '../../domain/errors.ts';
import { buildCorpus, buildPdf, type CorpusFile, PDF_PAGE_ONE, PDF_PAGE_THREE, PROJECT_BRIEF_TXT } from '../support/corpus.ts';

let corpus: CorpusFile[];
let results: ExtractedSource[];
const byName = (name: string) => {
  const index = corpus.findIndex((file) => file.name === name);
  expect(index, `corpus file ${name}`).toBeGreaterThanOrEqual(0);
  return results[index]!;
};

beforeAll(async () => {
  corpus = await buildCorpus();
  results = await extractSources(corpus.map((file) => file.input));
});

function thrown(run: () => unknown): ServiceError {
  try {
    run();
  } catch (error) {
    if (isServiceError(error)) return error as ServiceError;
    throw error;
  }
  throw new Error('expected a ServiceError');
}

describe('extractSources over the generated corpus', () => {
  it('gives every corpus file its expected status and finding kinds', () => {
    const actual = results.map((source, index) => ({
      name: corpus[index]!.name,
      status: source.status,
      kinds: [...new Set(source.findings.map((finding) => finding.kind))].sort(),
    }));
    const expected = corpus.map((file) => ({ name: file.name, status: file.expected_status, kinds: [...file.expected_finding_kinds].sort() }));
    expect(actual).toEqual(expected);
  });

  it('gives each source a src_ id, its size in bytes and a line count', () => {
    const ids = new Set(results.map((source) => source.id));
    expect(ids.size).toBe(results.length);
    for (const [index, source] of results.entries()) {
      expect(source.id).toMatch(/^src_[0-9a-z]+$/);
      const input = corpus[index]!.input;
      expect(source.size_bytes).toBe(input.kind === 'file' ? input.bytes.byteLength : Buffer.byteLength(input.text));
    }
    expect(byName('brief.txt').line_count).toBe(PROJECT_BRIEF_TXT.split('\n').length);
    expect(byName('brief.txt').lines).toEqual(PROJECT_BRIEF_TXT.split('\n'));
  });

  it('never puts a raw secret or identifier in the returned summaries, reasons or findings', () => {
    const visible = JSON.stringify(results.map(sourceSummary));
    const raw_values = corpus.flatMap((file) => file.raw_values);
    expect(raw_values.length).toBeGreaterThan(10);
    for (const value of raw_values) expect(visible.includes(value), `raw value of length ${value.length} leaked`).toBe(false);
    // Digits-only forms too (an NHS number without its spaces).
    for (const value of raw_values.filter((v) => /^[\d\s-]+$/.test(v))) expect(visible.includes(value.replace(/\D/g, ''))).toBe(false);
  });

  it('keeps the text of an excluded source only in quarantined_lines, never in lines', () => {
    for (const source of results.filter((s) => s.status === 'excluded_for_privacy')) {
      expect(source.lines).toBeNull();
      expect(source.quarantined_lines!.length).toBe(source.line_count);
    }
    for (const source of results.filter((s) => s.status === 'processed')) expect(source.quarantined_lines).toBeNull();
    const serialized = JSON.stringify(results.map((source) => ({ ...source, quarantined_lines: null })));
    for (const value of corpus.flatMap((file) => file.raw_values)) expect(serialized.includes(value)).toBe(false);
  });

  it('masks an NHS number as 943 *** **19', () => {
    expect(byName('audit.txt').findings).toEqual([{ kind: 'nhs_number', category: 'patient_identifier', line: 2, masked: '943 *** **19' }]);
  });

  it('does not flag an NHS-shaped number that fails the modulus-11 check', () => {
    const source = byName('batch.txt');
    expect(source.findings).toEqual([]);
    expect(source.status).toBe('processed');
  });

  it('reads the text layer of a PDF as numbered lines, page by page', () => {
    const source = byName('pilot.pdf');
    expect(source.lines).toEqual([...PDF_PAGE_ONE, ...PDF_PAGE_THREE]);
    expect(source.pdf).toEqual({
      page_count: 2,
      pages_read: [1, 2],
      pages_without_text: [],
      page_lines: [
        { page: 1, line_start: 1, line_end: 2 },
        { page: 2, line_start: 3, line_end: 3 },
      ],
    });
    expect(source.conversion_prompt).toBeNull();
  });

  it('reports a PDF of images only with its pages and a copyable conversion prompt, guessing nothing', () => {
    const source = byName('scanned.pdf');
    expect(source.status).toBe('unsupported');
    expect(source.pdf?.pages_without_text).toEqual([1, 2]);
    expect(source.pdf?.pages_read).toEqual([]);
    expect(source.lines).toBeNull();
    expect(source.line_count).toBe(0);
    expect(source.reason).toMatch(/no page has a text layer \(pages 1-2\)/);
    expect(source.conversion_prompt).toMatch(/Convert pages 1-2 of the attached PDF "scanned\.pdf" to plain text/);
  });

  it('says which pages of a mixed PDF were read', () => {
    const source = byName('mixed.pdf');
    expect(source.status).toBe('processed');
    expect(source.pdf?.pages_read).toEqual([1, 3]);
    expect(source.pdf?.pages_without_text).toEqual([2]);
    expect(source.lines).toEqual([...PDF_PAGE_ONE, ...PDF_PAGE_THREE]);
    expect(source.reason).toBe('read pages 1, 3; pages 2 have no text layer and were not read (see conversion_prompt)');
    expect(source.conversion_prompt).toMatch(/Convert pages 2 of/);
  });

  it('reports an encrypted PDF as an error with the reason', () => {
    const source = byName('locked.pdf');
    expect(source.status).toBe('error');
    expect(source.reason).toMatch(/encrypted with a password/);
    expect(source.lines).toBeNull();
  });

  it('reports a PNG named .pdf as unsupported because the bytes do not match the claimed kind', () => {
    const source = byName('photo.pdf');
    expect(source.status).toBe('unsupported');
    expect(source.reason).toMatch(/named as PDF but the content is a PNG image/);
  });

  it('reports broken JSON as an error at its line and column without quoting it', () => {
    const source = byName('broken.json');
    expect(source.status).toBe('error');
    expect(source.reason).toBe('the JSON is not valid: syntax error at line 3, column 12');
    expect(source.reason).not.toMatch(/prototype/);
  });

  it('reads pasted text fields as sources too', async () => {
    const [source] = await extractSources([{ kind: 'text', text: 'An idea for\r\nfaster triage\n', name: 'notes' }]);
    expect(source!.status).toBe('processed');
    expect(source!.name).toBe('notes');
    expect(source!.lines).toEqual(['An idea for', 'faster triage']);
  });

  it('calls a file of an unknown kind unsupported and names the accepted kinds', async () => {
    const [source] = await extractSources([{ kind: 'file', filename: 'deck.docx', bytes: new Uint8Array([0x50, 0x4b, 0x03, 0x04, 1, 2]) }]);
    expect(source!.status).toBe('unsupported');
    expect(source!.reason).toMatch(/accepted kinds are TXT/);
  });

  it('calls binary bytes named .txt unsupported', async () => {
    const [source] = await extractSources([{ kind: 'file', filename: 'notes.txt', bytes: new Uint8Array([0xc3, 0x28, 0xa0, 0xa1]) }]);
    expect(source!.status).toBe('unsupported');
    expect(source!.reason).toMatch(/not UTF-8/);
  });
});

describe('extraction limits', () => {
  it('refuses more sources than SOURCES_PER_REQUEST_MAX before reading, naming the limit', async () => {
    const inputs = Array.from({ length: SOURCES_PER_REQUEST_MAX + 1 }, (_, index) => ({ kind: 'text' as const, text: `line ${index}` }));
    await expect(extractSources(inputs)).rejects.toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringContaining('SOURCES_PER_REQUEST_MAX') });
  });

  it('refuses a source over BYTES_PER_SOURCE_MAX with PAYLOAD_TOO_LARGE naming the limit', () => {
    const error = thrown(() => checkExtractionLimits([{ name: 'big.pdf', size_bytes: BYTES_PER_SOURCE_MAX + 1 }]));
    expect(error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(error.message).toContain(`BYTES_PER_SOURCE_MAX is ${BYTES_PER_SOURCE_MAX} bytes`);
  });

  it('refuses a request over BYTES_PER_REQUEST_MAX with PAYLOAD_TOO_LARGE naming the limit', () => {
    const sizes = Array.from({ length: 3 }, (_, index) => ({ name: `f${index}`, size_bytes: BYTES_PER_SOURCE_MAX }));
    expect(3 * BYTES_PER_SOURCE_MAX).toBeGreaterThan(BYTES_PER_REQUEST_MAX);
    const error = thrown(() => checkExtractionLimits(sizes));
    expect(error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(error.message).toContain('BYTES_PER_REQUEST_MAX');
  });

  it('refuses an empty request', () => {
    expect(thrown(() => checkExtractionLimits([])).code).toBe('VALIDATION_FAILED');
  });

  it('reports a PDF over PDF_PAGES_MAX as an error naming the limit, not a truncated read', async () => {
    const bytes = await buildPdf(Array.from({ length: PDF_PAGES_MAX + 1 }, () => ({ kind: 'text' as const, lines: ['x y'] })));
    const [source] = await extractSources([{ kind: 'file', filename: 'long.pdf', bytes }]);
    expect(source!.status).toBe('error');
    expect(source!.reason).toContain(`PDF_PAGES_MAX is ${PDF_PAGES_MAX}`);
    expect(source!.lines).toBeNull();
  });
});
