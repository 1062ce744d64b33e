// PDF text layer reading with pdfjs-dist's legacy build for Node. Text layer only: never OCR, never guess (ARCHITECTURE.md: PDF).
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { PDF_PAGES_MAX } from '../../domain/intake/sources.ts';

export type PdfReadResult =
  | { ok: true; page_count: number; pages: Array<{ page: number; lines: string[] }> }
  | { ok: false; reason: string };


type TextItem = { str: string; hasEOL: boolean; transform: number[]; width: number; height: number };

/** What a pool thread returns for a page range: the document's page count and the pages it read. */
export type PdfRangeResult = { ok: true; page_count: number; pages: Array<{ page: number; lines: string[] }> } | { ok: false; reason: string };

/** Pages per pool task when one document is spread over the threads (below this one thread reads it all). */
export const PDF_PAGES_PER_TASK_MIN = 16;

/**
 * Reads every page's text layer as lines in content order; a page with no text gives no lines. The reading runs on the
 * process's compute pool, never on the caller's event loop; a long document is split into page ranges read in
 * parallel (each thread opens the document itself: the cross-reference parse is small beside the text extraction).
 */
export async function readPdfText(bytes: Uint8Array): Promise<PdfReadResult> {
  const { runComputeTask, defaultThreadCount } = await import('../pool.ts');
  const threads = defaultThreadCount();
  // The first range also tells how many pages there are.
  const first = await runComputeTask<PdfRangeResult>({ kind: 'pdf_pages', bytes, from: 1, to: PDF_PAGES_PER_TASK_MIN });
  if (!first.ok || first.page_count <= PDF_PAGES_PER_TASK_MIN) return first;
  const rest = first.page_count - PDF_PAGES_PER_TASK_MIN;
  const per_task = Math.max(PDF_PAGES_PER_TASK_MIN, Math.ceil(rest / threads));
  const ranges: Array<Promise<PdfRangeResult>> = [];
  for (let from = PDF_PAGES_PER_TASK_MIN + 1; from <= first.page_count; from += per_task) {
    ranges.push(runComputeTask<PdfRangeResult>({ kind: 'pdf_pages', bytes, from, to: Math.min(first.page_count, from + per_task - 1) }));
  }
  const pages = [...first.pages];
  for (const range of await Promise.all(ranges)) {
    if (!range.ok) return range;
    pages.push(...range.pages);
  }
  return { ok: true, page_count: first.page_count, pages };
}

/** Reads the text layer of pages `from`..`to` (clamped to the document); runs on a pool thread (compute/worker.ts). */
export async function readPdfPages(bytes: Uint8Array, from: number, to: number): Promise<PdfRangeResult> {
  // pdfjs transfers the buffer it is given; hand it a copy so the caller's bytes stay intact.
  const task = getDocument({
    data: bytes.slice(),
    verbosity: 0,
    disableFontFace: true,
    useSystemFonts: false,
    stopAtErrors: false,
  });
  try {
    let document: Awaited<typeof task.promise>;
    try {
      document = await task.promise;
    } catch (error) {
      const name = (error as { name?: string }).name;
      if (name === 'PasswordException') return { ok: false, reason: 'the PDF is encrypted with a password; remove the password and upload it again' };
      if (name === 'InvalidPDFException') return { ok: false, reason: 'the PDF structure is damaged and could not be read' };
      return { ok: false, reason: 'the PDF could not be opened' };
    }
    if (document.numPages > PDF_PAGES_MAX) {
      return { ok: false, reason: `the PDF has ${document.numPages} pages; PDF_PAGES_MAX is ${PDF_PAGES_MAX}; split it into smaller files` };
    }
    const pages: Array<{ page: number; lines: string[] }> = [];
    for (let number = Math.max(1, from); number <= Math.min(to, document.numPages); number++) {
      const page = await document.getPage(number);
      const content = await page.getTextContent();
      pages.push({ page: number, lines: itemsToLines(content.items.flatMap((item) => ('str' in item ? [item as unknown as TextItem] : []))) });
      page.cleanup();
    }
    return { ok: true, page_count: document.numPages, pages };
  } catch {
    return { ok: false, reason: 'the PDF could not be read: a page failed to parse' };
  } finally {
    await task.destroy();
  }
}

// Content order is kept; a new line starts at an end-of-line mark or when the baseline moves.
function itemsToLines(items: TextItem[]): string[] {
  const lines: string[] = [];
  let current = '';
  let last: TextItem | null = null;
  const flush = () => {
    const line = current.replace(/\s+$/u, '');
    lines.push(line);
    current = '';
  };
  for (const item of items) {
    if (last !== null && current !== '') {
      const font_size = Math.abs(item.transform[3] ?? item.height) || item.height || 10;
      const baseline_moved = Math.abs((item.transform[5] ?? 0) - (last.transform[5] ?? 0)) > font_size * 0.5;
      if (baseline_moved) flush();
      else {
        const gap = (item.transform[4] ?? 0) - ((last.transform[4] ?? 0) + last.width);
        if (gap > font_size * 0.15 && !/\s$/u.test(current) && !/^\s/u.test(item.str)) current += ' ';
      }
    }
    current += item.str;
    last = item;
    if (item.hasEOL) {
      flush();
      last = null;
    }
  }
  if (current !== '') flush();
  // Trailing empty lines carry nothing citable.
  while (lines.length > 0 && lines[lines.length - 1]!.trim() === '') lines.pop();
  return lines;
}
