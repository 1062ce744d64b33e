import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { newPdfProgress, readPdfShare, readPdfText } from '../../compute/extraction/pdf.ts';
import { computePool, computePoolStats, defaultThreadCount } from '../../compute/pool.ts';
import { runReplicationsOnPool } from '../../compute/simulation/pool.ts';
import { queueWorld } from '../support/worlds.ts';

const world = queueWorld({
  servers: 2,
  arrivals_per_minute: 1.6,
  mean_service_minutes: 1,
  treatment_mean_service_minutes: 0.9,
  horizon_minutes: 2_000,
  warm_up_minutes: 100,
  replications: 4,
});

async function pdfOfPages(count: number): Promise<Uint8Array> {
  const document = await PDFDocument.create();
  const font = await document.embedFont(StandardFonts.Helvetica);
  for (let index = 1; index <= count; index++) document.addPage([300, 200]).drawText(`Page number ${index}`, { x: 20, y: 100, size: 12, font });
  return document.save();
}

describe('the compute pool', () => {
  it('is created once per process: two runs and a PDF start no threads beyond the first pool', async () => {
    const first = await runReplicationsOnPool(world);
    expect(first.outcome).toBe('completed');
    const after_first = computePoolStats();
    expect(after_first.pools_created).toBe(1);
    expect(after_first.threads_started).toBe(defaultThreadCount());

    const second = await runReplicationsOnPool(world);
    expect(second.outcome).toBe('completed');
    const read = await readPdfText(await pdfOfPages(40));
    expect(read.ok && read.pages.map((page) => page.lines[0])).toEqual(Array.from({ length: 40 }, (_, index) => `Page number ${index + 1}`));
    expect(computePoolStats()).toEqual({ pools_created: 1, threads_started: defaultThreadCount(), threads: defaultThreadCount(), errors: 0 });
  }, 60_000);

  it('survives an error the pool emits (an answer for a task it no longer holds) and keeps running tasks', async () => {
    // piscina emits 'error' for such an answer; with no listener an EventEmitter throws it, which ended the process.
    const pool = await computePool();
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      expect(() => pool.emit('error', new Error('Unexpected message from Worker: { taskId: 7, result: { text: "an unpublished idea" } }'))).not.toThrow();
      await new Promise((resolve) => setImmediate(resolve));
      expect(computePoolStats().errors).toBe(1);
      expect(warnings.map((warning) => warning.message)).toEqual([
        "compute pool: Unexpected message from Worker (ignored; every task's caller had its answer)",
      ]);
      expect((await runReplicationsOnPool(world)).outcome).toBe('completed');
    } finally {
      process.off('warning', onWarning);
    }
  }, 60_000);
});

describe('a PDF shared by the pool threads', () => {
  it('has every page read exactly once between readers claiming pages, and a reader that comes after the last claim reads none', async () => {
    const bytes = await pdfOfPages(23);
    const progress = newPdfProgress();
    const shares = await Promise.all([readPdfShare(bytes, progress), readPdfShare(bytes, progress), readPdfShare(bytes, progress)]);
    const pages = shares.flatMap((share) => (share.ok ? share.pages : []));
    expect(shares.every((share) => share.ok && share.page_count === 23)).toBe(true);
    expect(pages.map((page) => page.page).sort((a, b) => a - b)).toEqual(Array.from({ length: 23 }, (_, index) => index + 1));
    for (const page of pages) expect(page.lines).toEqual([`Page number ${page.page}`]);
    expect(await readPdfShare(bytes, progress)).toEqual({ ok: true, page_count: 23, pages: [] });
  }, 60_000);

  it('reads documents one after another on one thread without transferring (detaching) any ArrayBuffer', async () => {
    // A detached buffer costs a pool thread V8's ArrayBufferDetaching protector for good (docs/performance.md), and the
    // simulation engine shares these threads: pdfjs's messages are copied on the thread, never transferred.
    const native = globalThis.structuredClone;
    const transfer_lists: unknown[] = [];
    globalThis.structuredClone = ((value: unknown, options?: { transfer?: unknown[] }) => {
      if (options?.transfer?.length) transfer_lists.push(options.transfer);
      return native(value, options as never);
    }) as typeof structuredClone;
    try {
      const locked = new Uint8Array(readFileSync(new URL('../fixtures/locked.pdf', import.meta.url)));
      const bytes = await pdfOfPages(3);
      expect(await readPdfShare(locked, newPdfProgress())).toEqual({
        ok: false,
        reason: 'the PDF is encrypted with a password; remove the password and upload it again',
      });
      for (let read = 0; read < 2; read++) {
        const share = await readPdfShare(bytes, newPdfProgress());
        expect(share.ok && share.pages.map((page) => page.lines)).toEqual([['Page number 1'], ['Page number 2'], ['Page number 3']]);
      }
      expect(bytes.byteLength).toBeGreaterThan(0);
      expect(transfer_lists).toEqual([]);
    } finally {
      globalThis.structuredClone = native;
    }
  }, 60_000);

  it('stops the other readers when one fails: a reader starting after a damaged PDF failed opens nothing', async () => {
    const progress = newPdfProgress();
    const damaged = new TextEncoder().encode('%PDF-1.7\nnot a document\n%%EOF');
    expect(await readPdfShare(damaged, progress)).toEqual({ ok: false, reason: 'the PDF structure is damaged and could not be read' });
    expect(await readPdfShare(damaged, progress)).toEqual({ ok: true, page_count: -1, pages: [] });
    expect(await readPdfText(damaged)).toEqual({ ok: false, reason: 'the PDF structure is damaged and could not be read' });
  }, 60_000);
});
