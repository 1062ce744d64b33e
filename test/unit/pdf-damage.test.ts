// Damaged and hostile PDFs through the real compute pool: every read ends in a result (the text, or a plain reason the
// intake shows), never an unhandled rejection, an uncaught exception, a dead pool thread or a read that never ends.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractSources } from '../../compute/extraction.ts';
import { type PdfReadResult, readPdfText } from '../../compute/extraction/pdf.ts';
import { computePoolStats, defaultThreadCount } from '../../compute/pool.ts';
import { PDF_PAGES_MAX, PDF_STREAM_BYTES_MAX } from '../../domain/intake/sources.ts';
import { DAMAGE_KINDS, damagePdf, formsDrawingFormsPdf, inflatingPdf, pdfToDamage, pdfWithBrokenPageNumbers, seededRandom } from '../support/pdfDamage.ts';

/** Every reason the reader gives for a PDF it could not read: what the intake shows as the source's reason. */
const READER_REASONS = [
  /^the PDF is encrypted with a password; remove the password and upload it again$/,
  /^the PDF structure is damaged and could not be read$/,
  /^the PDF could not be opened$/,
  /^the PDF could not be read: a page failed to parse$/,
  new RegExp(`^the PDF has \\d+ pages; PDF_PAGES_MAX is ${PDF_PAGES_MAX}; split it into smaller files$`),
  new RegExp(`^a stream in the PDF decodes to more than \\d+ MiB; PDF_STREAM_BYTES_MAX is ${PDF_STREAM_BYTES_MAX} bytes; .+ upload the text$`),
  /^the PDF was still being read after \d+ s; PDF_READ_SECONDS_MAX is \d+; it may be damaged or built to be slow to read: convert it to text elsewhere and upload the text$/,
];

const strays: string[] = [];
const onRejection = (reason: unknown) => strays.push(`unhandledRejection: ${String(reason)}`);
const onException = (error: unknown) => strays.push(`uncaughtException: ${String(error)}`);

function expectReadable(result: PdfReadResult, label: string): void {
  if (result.ok) {
    expect(
      result.pages.map((page) => page.page),
      label,
    ).toEqual(Array.from({ length: result.page_count }, (_, index) => index + 1));
  } else {
    expect(Object.keys(result).sort(), label).toEqual(['ok', 'reason']);
    expect(
      READER_REASONS.some((reason) => reason.test(result.reason)),
      `${label}: ${result.reason}`,
    ).toBe(true);
  }
}

/** The pool at full strength with `threads_started` threads started in all (a replaced thread reports once it is up). */
async function settledPool(threads_started: number): Promise<void> {
  const settled = () => computePoolStats().threads === defaultThreadCount() && computePoolStats().threads_started >= threads_started;
  for (let waited = 0; waited < 20_000 && !settled(); waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
  expect(computePoolStats()).toMatchObject({ threads: defaultThreadCount(), threads_started, errors: 0 });
}

let good: Uint8Array;

beforeAll(async () => {
  process.on('unhandledRejection', onRejection);
  process.on('uncaughtException', onException);
  good = await pdfToDamage(3, { objectStreams: false });
  expectReadable(await readPdfText(good), 'the good PDF'); // starts the pool
});

afterAll(() => {
  process.off('unhandledRejection', onRejection);
  process.off('uncaughtException', onException);
});

describe('a damaged PDF read through the pool', () => {
  it('fails a PDF whose page pdfjs fetched ahead and dropped (FormatError: Invalid number) with the plain reason, and nothing strays', async () => {
    const started = computePoolStats().threads_started;
    const bytes = await pdfWithBrokenPageNumbers();
    expect(await readPdfText(bytes)).toEqual({ ok: false, reason: 'the PDF could not be read: a page failed to parse' });
    const [source] = await extractSources([{ kind: 'file', filename: 'damaged.pdf', content_type: 'application/pdf', bytes }]);
    expect(source).toMatchObject({ status: 'error', reason: 'the PDF could not be read: a page failed to parse', lines: null });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(strays).toEqual([]);
    await settledPool(started);
  });

  it('ends every seeded damage of two generated PDFs and the encrypted fixture in the text or a plain reason, and still reads a good PDF', async () => {
    const started = computePoolStats().threads_started;
    const sources = [
      { name: 'text-3', bytes: good },
      { name: 'text-12 with object streams', bytes: await pdfToDamage(12, { objectStreams: true }) },
      { name: 'locked', bytes: new Uint8Array(readFileSync(new URL('../fixtures/locked.pdf', import.meta.url))) },
    ];
    const outcomes = new Set<string>();
    for (const source of sources) {
      for (const kind of DAMAGE_KINDS) {
        for (const seed of [1, 2, 3]) {
          const label = `${source.name}, ${kind}, seed ${seed}`;
          const result = await readPdfText(damagePdf(source.bytes, kind, seededRandom(seed)));
          expectReadable(result, label);
          outcomes.add(result.ok ? 'ok' : result.reason);
        }
      }
    }
    // The set is not trivial: some damage is read past, some is not.
    expect(outcomes.has('ok')).toBe(true);
    expect(outcomes.size).toBeGreaterThanOrEqual(3);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(strays).toEqual([]);
    await settledPool(started);
    const again = await readPdfText(good);
    expect(again.ok && again.pages.map((page) => page.lines[0])).toEqual(
      [1, 2, 3].map((page) => `Page ${page}, line 1: referral triage within ${page * 7} days.`),
    );
  });
});

describe('a PDF built to exhaust the reader', () => {
  it('is refused when one of its streams decodes past PDF_STREAM_BYTES_MAX, and read when its streams stay under it', async () => {
    const started = computePoolStats().threads_started;
    const over_mib = PDF_STREAM_BYTES_MAX / 2 ** 20 + 1;
    const over = await readPdfText(await inflatingPdf(over_mib));
    expect(over).toEqual({
      ok: false,
      reason: `a stream in the PDF decodes to more than ${over_mib - 1} MiB; PDF_STREAM_BYTES_MAX is ${PDF_STREAM_BYTES_MAX} bytes; it may be damaged or built to exhaust the reader: convert it to text elsewhere and upload the text`,
    });
    const under = await readPdfText(await inflatingPdf(4));
    expect(under.ok && under.pages[0]!.lines.map((line) => line.trim())).toEqual(['inflated']);
    await settledPool(started);
    expect(strays).toEqual([]);
  });

  it('is stopped at its time limit with the plain reason, its thread replaced, and the pool reads a good PDF after it', async () => {
    const started = computePoolStats().threads_started;
    const begun = performance.now();
    const result = await readPdfText(formsDrawingFormsPdf(), { seconds_max: 2 });
    const seconds = (performance.now() - begun) / 1000;
    expect(result).toEqual({
      ok: false,
      reason:
        'the PDF was still being read after 2 s; PDF_READ_SECONDS_MAX is 2; it may be damaged or built to be slow to read: convert it to text elsewhere and upload the text',
    });
    expect(seconds).toBeGreaterThanOrEqual(2); // not before its limit (without one, the read would outlast the test)
    // Its one page was on one thread: that thread was ended and another started in its place.
    await settledPool(started + 1);
    expectReadable(await readPdfText(good), 'the good PDF after');
    expect(strays).toEqual([]);
  });

  it('counts a read from when a thread opens it, not while it waits behind other work in the queue', async () => {
    const started = computePoolStats().threads_started;
    // Slow PDFs, one per thread, each hold the extraction share for its 3 s; the good PDF queued behind them has 1 s to read.
    const slow = Array.from({ length: defaultThreadCount() }, () => readPdfText(formsDrawingFormsPdf(), { seconds_max: 3 }));
    const queued = readPdfText(good, { seconds_max: 1 });
    const results = await Promise.all([...slow, queued]);
    for (const result of results.slice(0, -1)) expect(result).toMatchObject({ ok: false, reason: expect.stringContaining('PDF_READ_SECONDS_MAX is 3') });
    expect(results.at(-1)).toMatchObject({ ok: true, page_count: 3 });
    await settledPool(started + defaultThreadCount());
  });
});
