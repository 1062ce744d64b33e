// PDF text layer reading with pdfjs-dist's legacy build for Node. Text layer only: never OCR, never guess (ARCHITECTURE.md: PDF).
import { getDocument, PDFWorker } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { invariant } from '../../domain/errors.ts';
import { PDF_PAGES_MAX, PDF_READ_SECONDS_MAX, PDF_STREAM_BYTES_MAX } from '../../domain/intake/sources.ts';

export type PdfReadResult = { ok: true; page_count: number; pages: Array<{ page: number; lines: string[] }> } | { ok: false; reason: string };

type TextItem = { str: string; hasEOL: boolean; transform: number[]; width: number; height: number };

/** What a pool thread returns for its share of a document: the document's page count and the pages it read. */
export type PdfShareResult = { ok: true; page_count: number; pages: Array<{ page: number; lines: string[] }> } | { ok: false; reason: string };

/** Pages a thread claims at a time: small, so the threads finish together; each claim is one atomic add. */
export const PDF_PAGES_PER_CLAIM = 2;

// The reading progress of one document, shared by its tasks (an Int32Array over a SharedArrayBuffer).
const NEXT_PAGE = 0; // the first page no thread has claimed yet
const PAGE_COUNT = 1; // the page count, once a thread has opened the document; -1 before
const STOPPED = 2; // 1 once the reading failed or every page is back: no thread claims more pages
const STARTED = 3; // 1 once a thread has begun opening the document: the time limit runs from then
const PROGRESS_SLOTS = 4;

/** How often a read's time limit is checked; a read is stopped at most this much after its limit. */
const PDF_READ_CHECK_MS = 1_000;
const DAMAGED = 'the PDF structure is damaged and could not be read';
const TOO_LARGE = `a stream in the PDF decodes to more than ${PDF_STREAM_BYTES_MAX / 2 ** 20} MiB; PDF_STREAM_BYTES_MAX is ${PDF_STREAM_BYTES_MAX} bytes; it may be damaged or built to exhaust the reader: convert it to text elsewhere and upload the text`;

/** The shared progress of one document's reading, before any thread has opened it. */
export function newPdfProgress(): Int32Array {
  const progress = new Int32Array(new SharedArrayBuffer(PROGRESS_SLOTS * Int32Array.BYTES_PER_ELEMENT));
  progress[NEXT_PAGE] = 1;
  progress[PAGE_COUNT] = -1;
  return progress;
}

/**
 * Reads every page's text layer as lines in content order; a page with no text gives no lines. The reading runs on the
 * process's compute pool, never on the caller's event loop, as `org_id`'s extraction (at most its share of the threads,
 * compute/scheduler.ts): every thread opens the document from the start and claims
 * pages from a shared counter until none are left, so no thread waits for the page count and none idles while another
 * has pages to read. The answer comes once every page is read; a task that starts later (its thread was busy) finds
 * nothing to claim and returns at once, without opening the document.
 *
 * A read still going `seconds_max` (PDF_READ_SECONDS_MAX) after a thread began it is answered with a reason, and the
 * threads still on it are ended (the pool starts others): pdfjs never gives control back within a page, and a small
 * file can hold a page that takes hours (forms drawing forms). Time spent queued behind other work does not count.
 */
export async function readPdfText(bytes: Uint8Array, options: { seconds_max?: number; org_id?: string | null } = {}): Promise<PdfReadResult> {
  const { runComputeTask, computeShareLimits } = await import('../pool.ts');
  // As many tasks as the organization may hold threads for extraction (compute/scheduler.ts): more would only queue.
  const threads = computeShareLimits().extraction_per_org_max;
  const seconds_max = options.seconds_max ?? PDF_READ_SECONDS_MAX;
  // One copy the threads share, instead of one structured clone of the file per task.
  const shared_bytes = new Uint8Array(new SharedArrayBuffer(bytes.byteLength));
  shared_bytes.set(bytes);
  const progress = newPdfProgress();
  const abort = new AbortController();
  return new Promise<PdfReadResult>((resolve, reject) => {
    const pages: Array<{ page: number; lines: string[] }> = [];
    let tasks_returned = 0;
    let settled = false;
    let started_at: number | null = null;
    let check: NodeJS.Timeout | undefined;
    const settle = (outcome: () => void) => {
      settled = true;
      clearTimeout(check);
      Atomics.store(progress, STOPPED, 1); // a task still queued then returns without opening the document
      outcome();
    };
    const checkTime = () => {
      const now = performance.now();
      if (started_at === null && Atomics.load(progress, STARTED) === 1) started_at = now;
      if (started_at !== null && now - started_at >= seconds_max * 1000) {
        settle(() => resolve({ ok: false, reason: tooSlow(seconds_max) }));
        return abort.abort();
      }
      check = setTimeout(checkTime, started_at === null ? PDF_READ_CHECK_MS : Math.min(PDF_READ_CHECK_MS, started_at + seconds_max * 1000 - now));
    };
    const collect = (result: PdfShareResult) => {
      tasks_returned++;
      if (settled) return;
      if (!result.ok) return settle(() => resolve(result));
      pages.push(...result.pages);
      if (pages.length === result.page_count) {
        pages.sort((a, b) => a.page - b.page);
        return settle(() => resolve({ ok: true, page_count: result.page_count, pages }));
      }
      // Each claimed page comes back with the task that claimed it, so when every task is back every page is here.
      invariant(tasks_returned < threads, `the PDF tasks returned ${pages.length} of ${result.page_count} pages`);
    };
    for (let task = 0; task < threads; task++) {
      runComputeTask<PdfShareResult>({ kind: 'pdf_pages', bytes: shared_bytes, progress }, { signal: abort.signal, org_id: options.org_id })
        .then(collect)
        .catch((error: unknown) => {
          if (!settled) settle(() => reject(error));
        });
    }
    checkTime();
  });
}

function tooSlow(seconds_max: number): string {
  return `the PDF was still being read after ${seconds_max} s; PDF_READ_SECONDS_MAX is ${seconds_max}; it may be damaged or built to be slow to read: convert it to text elsewhere and upload the text`;
}

/** Rejections pdfjs left with no handler, as the pool thread's listener counts them (compute/worker.ts). */
let stray_rejections = 0;

/**
 * Counts a promise pdfjs rejected with no handler (a damaged file can make it drop one): called by the pool thread's
 * 'unhandledRejection' listener, which keeps Node from ending the thread; the read in progress counts it as a failure.
 */
export function countStrayRejection(): void {
  stray_rejections++;
}

/**
 * Reads the text layer of the pages this thread claims from `progress` until none are left or the reading stopped;
 * runs on a pool thread (compute/worker.ts).
 */
export async function readPdfShare(bytes: Uint8Array, progress: Int32Array): Promise<PdfShareResult> {
  const known_count = Atomics.load(progress, PAGE_COUNT);
  if (Atomics.load(progress, STOPPED) === 1 || (known_count >= 0 && Atomics.load(progress, NEXT_PAGE) > known_count)) {
    return { ok: true, page_count: known_count, pages: [] };
  }
  Atomics.store(progress, STARTED, 1);
  const strays_before = stray_rejections;
  const result = await readClaimedPages(bytes, progress);
  // Node reports a rejection nobody handled only when the thread's event loop turns, and between a pool thread's tasks
  // piscina waits on an Atomics lock that never lets it turn: one turn here has any rejection this read left reported
  // now, while it is the thread's only work, instead of during some later task.
  await new Promise((resolve) => setImmediate(resolve));
  if (stray_rejections > strays_before && result.ok) {
    Atomics.store(progress, STOPPED, 1);
    return { ok: false, reason: DAMAGED };
  }
  return result;
}

async function readClaimedPages(bytes: Uint8Array, progress: Int32Array): Promise<PdfShareResult> {
  const worker = await inThreadWorker();
  // pdfjs drops a stream that decodes past PDF_STREAM_BYTES_MAX as it drops any damaged stream (a page read without
  // it): the count of such streams tells this read it must fail instead.
  const streams_over_before = decode_limits.exceeded;
  const overLimit = () => decode_limits.exceeded > streams_over_before;
  // pdfjs owns the buffer it is given (through a real worker's port it would be transferred): it gets a copy of its own.
  const task = getDocument({
    worker,
    data: bytes.slice(),
    verbosity: 0,
    disableFontFace: true,
    useSystemFonts: false,
    stopAtErrors: false,
  });
  const stop = (result: PdfShareResult) => {
    Atomics.store(progress, STOPPED, 1);
    return result;
  };
  try {
    let document: Awaited<typeof task.promise>;
    try {
      document = await task.promise;
    } catch (error) {
      const name = (error as { name?: string }).name;
      if (overLimit()) return stop({ ok: false, reason: TOO_LARGE });
      if (name === 'PasswordException') return stop({ ok: false, reason: 'the PDF is encrypted with a password; remove the password and upload it again' });
      if (name === 'InvalidPDFException') return stop({ ok: false, reason: DAMAGED });
      return stop({ ok: false, reason: 'the PDF could not be opened' });
    }
    const page_count = document.numPages;
    if (page_count > PDF_PAGES_MAX) {
      return stop({ ok: false, reason: `the PDF has ${page_count} pages; PDF_PAGES_MAX is ${PDF_PAGES_MAX}; split it into smaller files` });
    }
    Atomics.store(progress, PAGE_COUNT, page_count);
    const pages: Array<{ page: number; lines: string[] }> = [];
    while (Atomics.load(progress, STOPPED) === 0) {
      const first = Atomics.add(progress, NEXT_PAGE, PDF_PAGES_PER_CLAIM);
      if (first > page_count) break;
      for (let number = first; number <= Math.min(first + PDF_PAGES_PER_CLAIM - 1, page_count); number++) {
        const page = await document.getPage(number);
        const content = await page.getTextContent();
        if (overLimit()) return stop({ ok: false, reason: TOO_LARGE });
        pages.push({ page: number, lines: itemsToLines(content.items.flatMap((item) => ('str' in item ? [item as unknown as TextItem] : []))) });
        page.cleanup();
      }
    }
    return { ok: true, page_count, pages };
  } catch {
    return stop({ ok: false, reason: overLimit() ? TOO_LARGE : 'the PDF could not be read: a page failed to parse' });
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

type MessageListener = (event: { data: unknown }) => void;

/**
 * One end of an in-thread message channel between pdfjs's API and its worker code, in place of pdfjs's fake-worker
 * loopback: a message is copied when posted, as a port would, and delivered a microtask later to the other end. pdfjs's
 * loopback copies with structuredClone and its transfer list; this copy is plain JavaScript for the arrays and plain
 * objects a message is made of (most of it text items, which structuredClone serialises and parses again) and
 * structuredClone without transfer for anything else, so no ArrayBuffer is ever detached.
 */
class InThreadPort {
  other: InThreadPort | null = null;
  readonly #listeners = new Map<MessageListener, (() => void) | null>();
  readonly #delivered = Promise.resolve();

  postMessage(message: unknown): void {
    const event = { data: copyMessage(message) };
    const target = this.other!;
    void this.#delivered.then(() => {
      for (const listener of target.#listeners.keys()) listener.call(target, event);
    });
  }

  addEventListener(_name: 'message', listener: MessageListener, options?: { signal?: AbortSignal }): void {
    const signal = options?.signal;
    if (signal?.aborted) return;
    let unlisten: (() => void) | null = null;
    if (signal) {
      const onAbort = () => this.removeEventListener('message', listener);
      signal.addEventListener('abort', onAbort);
      unlisten = () => signal.removeEventListener('abort', onAbort);
    }
    this.#listeners.set(listener, unlisten);
  }

  removeEventListener(_name: 'message', listener: MessageListener): void {
    this.#listeners.get(listener)?.();
    this.#listeners.delete(listener);
  }

  terminate(): void {
    for (const unlisten of this.#listeners.values()) unlisten?.();
    this.#listeners.clear();
  }
}

/** A copy of a message as structuredClone makes it, cheaper for the arrays and plain objects it is made of. */
function copyMessage(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    const copy = new Array<unknown>(value.length);
    for (let index = 0; index < value.length; index++) copy[index] = copyMessage(value[index]);
    return copy;
  }
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return structuredClone(value);
  const copy: Record<string, unknown> = prototype === null ? Object.create(null) : {};
  for (const key of Object.keys(value)) copy[key] = copyMessage((value as Record<string, unknown>)[key]);
  return copy;
}

let in_thread_worker: Promise<PDFWorker> | null = null;
/** The patched pdfjs's stream limit on this thread, taken when its worker code loads (no stream is decoded before). */
let decode_limits: { bytesMax: number; exceeded: number } = { bytesMax: PDF_STREAM_BYTES_MAX, exceeded: 0 };

/**
 * pdfjs's worker code on this thread behind an InThreadPort, set up once per thread and shared by its documents. Loaded
 * on the first read, as pdfjs's fake worker loads it: a process that only hands PDFs to the pool (the API) never loads
 * it, nor the globals its polyfills add.
 */
function inThreadWorker(): Promise<PDFWorker> {
  in_thread_worker ??= import('pdfjs-dist/legacy/build/pdf.worker.mjs').then(({ DecodeLimits, WorkerMessageHandler }) => {
    // Absent only where node_modules predates the patch (npm install applies it): reads then go on without the limit,
    // and test/unit/pdf-damage.test.ts fails.
    if (DecodeLimits) {
      DecodeLimits.bytesMax = PDF_STREAM_BYTES_MAX;
      decode_limits = DecodeLimits;
    }
    const api_end = new InThreadPort();
    const worker_end = new InThreadPort();
    api_end.other = worker_end;
    worker_end.other = api_end;
    WorkerMessageHandler.initializeFromPort(worker_end);
    return new PDFWorker({ port: api_end as never, verbosity: 0 });
  });
  return in_thread_worker;
}
