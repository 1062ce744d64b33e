// Draws bench/scaling's curve as a PNG: an SVG written here, rasterised by the Chromium that playwright-core drives
// (/usr/bin/chromium, or CHROMIUM_PATH). Three panels: run time against the events (log-log, with the linear line
// through the first point), each process's peak memory per run, and PDF intake time against the pages.
import { writeFileSync } from 'node:fs';
import { chromium } from 'playwright-core';
import type { PdfFigure, RunFigure } from './scaling.ts';

const WIDTH = 1200;
const HEIGHT = 440;
const PANEL = { width: 340, height: 300, top: 70 };

type Point = { x: number; y: number; label: string };

const xmlText = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A log-log panel: the points, joined, and the linear line through the first one (y ∝ x). */
function logLogPanel(left: number, title: string, xLabel: string, yLabel: string, points: Point[]): string {
  if (points.length === 0) return '';
  const xs = points.map((p) => Math.log10(p.x));
  const ys = points.map((p) => Math.log10(p.y));
  const first = points[0]!;
  const linear = points.map((p) => Math.log10(first.y * (p.x / first.x)));
  const [x0, x1] = [Math.min(...xs) - 0.2, Math.max(...xs) + 0.2];
  const [y0, y1] = [Math.min(...ys, ...linear) - 0.2, Math.max(...ys, ...linear) + 0.2];
  const px = (x: number) => left + ((x - x0) / (x1 - x0)) * PANEL.width;
  const py = (y: number) => PANEL.top + PANEL.height - ((y - y0) / (y1 - y0)) * PANEL.height;
  const path = (values: number[]) => values.map((y, index) => `${index ? 'L' : 'M'}${px(xs[index]!).toFixed(1)},${py(y).toFixed(1)}`).join(' ');
  return [
    `<text x="${left}" y="${PANEL.top - 20}" font-size="15" font-weight="bold">${xmlText(title)}</text>`,
    `<rect x="${left}" y="${PANEL.top}" width="${PANEL.width}" height="${PANEL.height}" fill="none" stroke="#999"/>`,
    `<path d="${path(linear)}" stroke="#999" stroke-dasharray="5,4" fill="none"/>`,
    `<path d="${path(ys)}" stroke="#1f5fa8" stroke-width="2" fill="none"/>`,
    ...points.map(
      (p, index) =>
        `<circle cx="${px(xs[index]!)}" cy="${py(ys[index]!)}" r="4" fill="#1f5fa8"/><text x="${px(xs[index]!) + 6}" y="${py(ys[index]!) - 6}" font-size="11">${xmlText(p.label)}</text>`,
    ),
    `<text x="${left + PANEL.width / 2}" y="${PANEL.top + PANEL.height + 28}" font-size="12" text-anchor="middle">${xmlText(xLabel)} (log)</text>`,
    `<text x="${left - 12}" y="${PANEL.top + PANEL.height / 2}" font-size="12" text-anchor="middle" transform="rotate(-90 ${left - 12} ${PANEL.top + PANEL.height / 2})">${xmlText(yLabel)} (log)</text>`,
  ].join('\n');
}

/** Grouped bars: the API's and the worker's peak memory per run. */
function memoryPanel(left: number, runs: RunFigure[]): string {
  const max = Math.max(1, ...runs.flatMap((r) => [r.api_peak_mb, r.worker_peak_mb]));
  const group = PANEL.width / Math.max(1, runs.length);
  const bar = group * 0.35;
  const height = (mb: number) => (mb / max) * (PANEL.height - 20);
  const bars = runs.flatMap((r, index) => {
    const x = left + index * group + group * 0.12;
    const short = r.factor === null ? 'big world' : `×${r.factor}`;
    return [
      `<rect x="${x}" y="${PANEL.top + PANEL.height - height(r.api_peak_mb)}" width="${bar}" height="${height(r.api_peak_mb)}" fill="#1f5fa8"/>`,
      `<rect x="${x + bar}" y="${PANEL.top + PANEL.height - height(r.worker_peak_mb)}" width="${bar}" height="${height(r.worker_peak_mb)}" fill="#d9822b"/>`,
      `<text x="${x + bar}" y="${PANEL.top + PANEL.height + 16}" font-size="11" text-anchor="middle">${xmlText(short)}</text>`,
      `<text x="${x + bar / 2}" y="${PANEL.top + PANEL.height - height(r.api_peak_mb) - 4}" font-size="10" text-anchor="middle">${r.api_peak_mb.toFixed(0)}</text>`,
      `<text x="${x + bar * 1.5}" y="${PANEL.top + PANEL.height - height(r.worker_peak_mb) - 4}" font-size="10" text-anchor="middle">${r.worker_peak_mb.toFixed(0)}</text>`,
    ];
  });
  return [
    `<text x="${left}" y="${PANEL.top - 20}" font-size="15" font-weight="bold">Peak memory (MB): API blue, worker orange</text>`,
    `<rect x="${left}" y="${PANEL.top}" width="${PANEL.width}" height="${PANEL.height}" fill="none" stroke="#999"/>`,
    ...bars,
  ].join('\n');
}

export function scalingSvg(runs: RunFigure[], pdf: PdfFigure[], load: string): string {
  const scaled = runs.filter((r) => r.factor !== null);
  const runPoints = scaled.map((r) => ({ x: r.events, y: r.wall_ms / 1000, label: `×${r.factor} ${(r.wall_ms / 1000).toFixed(1)} s` }));
  const pdfPoints = pdf.map((f) => ({ x: f.pages, y: f.seconds, label: `${f.pages} p ${f.seconds.toFixed(2)} s` }));
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" font-family="sans-serif">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="20" y="24" font-size="16">bench/scaling: cost against the work (dashed: linear through the first point); ${xmlText(load)}</text>`,
    logLogPanel(60, 'GP triage run: POST → succeeded', 'simulated events', 'seconds', runPoints),
    memoryPanel(450, runs),
    logLogPanel(840, 'PDF intake (extractSources)', 'pages', 'seconds', pdfPoints),
    '</svg>',
  ].join('\n');
}

/** Writes the chart as a PNG; says why when Chromium cannot be started (the figures are printed either way). */
export async function drawChart(path: string, runs: RunFigure[], pdf: PdfFigure[], load: string): Promise<void> {
  const svg = scalingSvg(runs, pdf, load);
  let browser: Awaited<ReturnType<typeof chromium.launch>> | null = null;
  try {
    browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox'] });
    const page = await browser.newPage({ viewport: { width: WIDTH, height: HEIGHT } });
    await page.setContent(`<!doctype html><body style="margin:0">${svg}</body>`);
    writeFileSync(path, await page.screenshot({ clip: { x: 0, y: 0, width: WIDTH, height: HEIGHT } }));
  } catch (error) {
    process.stdout.write(`no chart: Chromium could not draw it (${(error as Error).message.split('\n')[0]})\n`);
  } finally {
    await browser?.close();
  }
}
