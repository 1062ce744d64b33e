// Intake extraction throughput beside Debian's pdftotext (poppler-utils) on the same generated files, in one run.
// Run: node_modules/.bin/node bench/intake.ts   Prints figures, ratios and the goal; not a timed test.
// (BENCH_INTAKE_PAGES the PDF's pages, BENCH_INTAKE_REPETITIONS the rounds, for a smoke test.)
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { extractSources } from '../compute/extraction.ts';
import { readPdfText } from '../compute/extraction/pdf.ts';
import { buildPdf, type PdfPage } from '../test/support/corpus.ts';
import { printGoals } from './goals.ts';

const run = promisify(execFile);

export const BENCH_PDF_PAGES = Number(process.env.BENCH_INTAKE_PAGES) || 250; // under PDF_PAGES_MAX so the end-to-end path reads it all
export const BENCH_LINES_PER_PAGE = 45;
export const BENCH_TEXT_BYTES = 8 * 1024 * 1024;
export const BENCH_REPETITIONS = Number(process.env.BENCH_INTAKE_REPETITIONS) || 9;
/** The goal: the PDF reader at least 1.5 times pdftotext's pages per second, at load 2 (up to 2.5). */
export const REQUIRED_RATIO_PDFTOTEXT = 1.5;
export const LOAD_2_MAX = 2.5;

const WORDS =
  'patients clinic referral triage nurse consultant pathway outcome waiting review practice dermatology photo urgent routine audit evidence budget buyer pilot'.split(
    ' ',
  );

function sentence(seed: number): string {
  const words: string[] = [];
  let state = seed;
  for (let index = 0; index < 14; index++) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    words.push(WORDS[state % WORDS.length]!);
  }
  return `${words.join(' ')} ${seed % 97}.`;
}

function generatedText(bytes: number): string {
  const lines: string[] = [];
  let size = 0;
  for (let index = 0; size < bytes; index++) {
    const line = sentence(index + 1);
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join('\n');
}

async function median(repetitions: number, work: () => Promise<unknown>): Promise<number> {
  const [seconds] = await interleavedMedians(repetitions, [work]);
  return seconds!;
}

/**
 * Median seconds of each work, the works taking turns once per round: on a shared machine a change of load then falls on
 * every work alike instead of on whichever was being timed.
 */
async function interleavedMedians(repetitions: number, works: Array<() => Promise<unknown>>): Promise<number[]> {
  const times = works.map((): number[] => []);
  for (let round = 0; round < repetitions; round++) {
    for (const [index, work] of works.entries()) {
      const started = performance.now();
      await work();
      times[index]!.push((performance.now() - started) / 1000);
    }
  }
  return times.map((list) => list.sort((a, b) => a - b)[Math.floor(list.length / 2)]!);
}

async function pdftotextAvailable(): Promise<boolean> {
  try {
    await run('pdftotext', ['-v']);
    return true;
  } catch {
    return false;
  }
}

const fixed = (value: number, digits = 2) => value.toFixed(digits);

export async function main(): Promise<void> {
  if (!(await pdftotextAvailable())) {
    throw new Error('pdftotext is missing: flock /tmp/apt.lock apt-get install -y poppler-utils');
  }
  const directory = mkdtempSync(join(tmpdir(), 'crucible-bench-intake-'));
  try {
    const pages: PdfPage[] = Array.from({ length: BENCH_PDF_PAGES }, (_, page) => ({
      kind: 'text',
      lines: Array.from({ length: BENCH_LINES_PER_PAGE }, (_, line) => sentence(page * 1000 + line + 1)),
    }));
    const pdf = await buildPdf(pages);
    const pdf_path = join(directory, 'bench.pdf');
    writeFileSync(pdf_path, pdf);

    // Warm both paths once (module loading, page cache) before timing.
    await readPdfText(pdf);
    await run('pdftotext', ['-q', pdf_path, '-'], { maxBuffer: 256 * 1024 * 1024 });

    let ours_text_bytes = 0;
    let poppler_text_bytes = 0;
    const load_before = loadavg()[0]!;
    const [ours_read_s, ours_full_s, poppler_s] = (await interleavedMedians(BENCH_REPETITIONS, [
      async () => {
        const result = await readPdfText(pdf);
        if (!result.ok) throw new Error(result.reason);
        ours_text_bytes = Buffer.byteLength(result.pages.map((page) => page.lines.join('\n')).join('\n'));
      },
      async () => {
        const [source] = await extractSources([{ kind: 'file', filename: 'bench.pdf', bytes: pdf }]);
        if (source!.status !== 'processed') throw new Error(`bench PDF came back ${source!.status}`);
      },
      async () => {
        const { stdout } = await run('pdftotext', ['-q', pdf_path, '-'], { maxBuffer: 256 * 1024 * 1024, encoding: 'buffer' });
        poppler_text_bytes = stdout.byteLength;
      },
    ])) as [number, number, number];
    const load_after = loadavg()[0]!;

    const text = generatedText(BENCH_TEXT_BYTES);
    const text_bytes = new TextEncoder().encode(text);
    const text_s = await median(BENCH_REPETITIONS, async () => {
      const [source] = await extractSources([{ kind: 'file', filename: 'bench.txt', bytes: text_bytes }]);
      if (source!.status !== 'processed') throw new Error(`bench text came back ${source!.status}`);
    });

    const mb = 1024 * 1024;
    const rows = [
      ['pdfjs text layer (readPdfText)', BENCH_PDF_PAGES / ours_read_s, ours_text_bytes / mb / ours_read_s],
      ['extractSources PDF (read + screen)', BENCH_PDF_PAGES / ours_full_s, ours_text_bytes / mb / ours_full_s],
      ['pdftotext (poppler, process incl.)', BENCH_PDF_PAGES / poppler_s, poppler_text_bytes / mb / poppler_s],
    ] as const;
    console.log(
      `intake extraction benchmark: ${BENCH_PDF_PAGES}-page PDF (${fixed(pdf.byteLength / mb)} MiB), median of ${BENCH_REPETITIONS} rounds taking turns; ${availableParallelism()} cores, load ${fixed(load_before)} -> ${fixed(load_after)}`,
    );
    for (const [label, pages_per_s, text_mb_per_s] of rows) {
      console.log(`  ${label.padEnd(38)} ${fixed(pages_per_s, 1).padStart(8)} pages/s ${fixed(text_mb_per_s).padStart(8)} text MB/s`);
    }
    console.log(`  ratio pdfjs read / pdftotext (pages/s):        ${fixed(poppler_s / ours_read_s, 3)}`);
    console.log(`  ratio extractSources / pdftotext (pages/s):    ${fixed(poppler_s / ours_full_s, 3)}`);
    const ratio = poppler_s / ours_read_s;
    const load = Math.max(load_before, load_after);
    printGoals([
      {
        goal: `PDF text (pdfjs read on the pool) ≥ ${REQUIRED_RATIO_PDFTOTEXT}x pdftotext at load 2 (1-min load ≤ ${LOAD_2_MAX}; NOT MEASURED above)`,
        figure: `${fixed(ratio, 2)}x (load ${fixed(load_before)} → ${fixed(load_after)})`,
        met: load > LOAD_2_MAX ? null : ratio >= REQUIRED_RATIO_PDFTOTEXT,
      },
    ]);
    console.log(
      `plain text: ${fixed(text_bytes.byteLength / mb)} MiB TXT through extractSources (decode + screen): ${fixed(text_bytes.byteLength / mb / text_s)} MB/s`,
    );
    console.log(`  ratio TXT extractSources MB/s / pdftotext text MB/s: ${fixed(text_bytes.byteLength / text_s / (poppler_text_bytes / poppler_s), 3)}`);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((error) => {
    console.error(error);
    process.exitCode = 1;
  });
}
