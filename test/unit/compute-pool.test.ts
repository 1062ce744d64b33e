import { describe, expect, it } from 'vitest';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { readPdfText } from '../../compute/extraction/pdf.ts';
import { computePoolStats, defaultThreadCount } from '../../compute/pool.ts';
import { runReplicationsOnPool } from '../../compute/simulation/pool.ts';
import { queueWorld } from '../support/worlds.ts';

const world = queueWorld({ servers: 2, arrivals_per_minute: 1.6, mean_service_minutes: 1, treatment_mean_service_minutes: 0.9, horizon_minutes: 2_000, warm_up_minutes: 100, replications: 4 });

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
    expect(computePoolStats()).toEqual({ pools_created: 1, threads_started: defaultThreadCount(), threads: defaultThreadCount() });
  }, 60_000);
});
