// Damaged and hostile PDFs for the reader's robustness tests and its fuzzer (test/support/pdfFuzz.ts): a seeded PRNG,
// the kinds of damage a real upload shows (bits flipped in transit, a file cut short, a range zeroed, a number token
// broken, a range copied over another, a page count that lies), and files built to be slow to read. The same seed gives
// the same bytes on every run and machine: no Math.random, no clock (pdf-lib writes no dates without updateMetadata).
import { once } from 'node:events';
import { createDeflate } from 'node:zlib';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { buildPng } from './corpus.ts';

/** mulberry32: a small 32-bit PRNG, uniform in [0, 1). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const DAMAGE_KINDS = ['flip', 'bytes', 'truncate', 'zero', 'number', 'duplicate', 'count'] as const;
export type DamageKind = (typeof DAMAGE_KINDS)[number];

const int = (random: () => number, below: number) => Math.floor(random() * below);
const latin1 = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');

/** Offsets of every number token (a digit run not inside a name), for the 'number' damage. */
function numberOffsets(bytes: Uint8Array): number[] {
  const offsets: number[] = [];
  const text = latin1(bytes);
  for (const match of text.matchAll(/(?<=[\s[(<])\d+(\.\d+)?(?=[\s\]/>)])/g)) offsets.push(match.index);
  return offsets;
}

/**
 * One damaged copy of `bytes`: `flip` flips 1-64 bits, `bytes` sets 1-16 bytes to random values, `truncate` cuts the
 * file, `zero` zeroes a range of up to 4 KiB, `number` breaks number tokens the lexer will read ('-' or '.' where a digit
 * was, or a sign before a non-digit), `duplicate` copies a range over another, `count` declares 2^31-1 pages in every /Count.
 */
export function damagePdf(bytes: Uint8Array, kind: DamageKind, random: () => number): Uint8Array {
  const out = bytes.slice();
  const length = out.length;
  switch (kind) {
    case 'flip':
      for (let flips = 1 + int(random, 64); flips > 0; flips--) out[int(random, length)]! ^= 1 << int(random, 8);
      return out;
    case 'bytes':
      for (let count = 1 + int(random, 16); count > 0; count--) out[int(random, length)] = int(random, 256);
      return out;
    case 'truncate':
      return out.slice(0, int(random, length));
    case 'zero': {
      const start = int(random, length);
      out.fill(0, start, Math.min(length, start + 1 + int(random, 4096)));
      return out;
    }
    case 'number': {
      const offsets = numberOffsets(out);
      for (let count = 1 + int(random, 8); count > 0 && offsets.length > 0; count--) {
        const at = offsets[int(random, offsets.length)]!;
        out[at] = [0x2d, 0x2e, 0x2b][int(random, 3)]!; // '-', '.', '+'
        if (random() < 0.5 && at + 1 < length) out[at + 1] = 0x78; // 'x': a sign followed by no digit at all
      }
      return out;
    }
    case 'duplicate': {
      const from = int(random, length);
      const range = bytes.subarray(from, from + 1 + int(random, 2048));
      const to = int(random, length);
      out.set(range.subarray(0, length - to), to);
      return out;
    }
    case 'count':
      return new Uint8Array(Buffer.from(latin1(out).replace(/\/Count \d+/g, '/Count 2147483647'), 'latin1'));
  }
}

/** A text PDF for damaging: `pages` pages of a few lines each, standard fonts, an image on every third page. */
export async function pdfToDamage(pages: number, options: { objectStreams: boolean }): Promise<Uint8Array> {
  const document = await PDFDocument.create({ updateMetadata: false });
  const fonts = [await document.embedFont(StandardFonts.Helvetica), await document.embedFont(StandardFonts.TimesRoman)];
  const image = await document.embedPng(buildPng(16, 16));
  for (let number = 1; number <= pages; number++) {
    const page = document.addPage([595, 842]);
    for (let line = 0; line < 6; line++) {
      page.drawText(`Page ${number}, line ${line + 1}: referral triage within ${number * 7 + line} days.`, {
        x: 50,
        y: 790 - line * 16,
        size: 11,
        font: fonts[line % 2]!,
      });
    }
    if (number % 3 === 0) page.drawImage(image, { x: 50, y: 300, width: 200, height: 200 });
  }
  return document.save({ useObjectStreams: options.objectStreams });
}

/**
 * A 4-page text PDF whose two middle page dictionaries each hold a number broken as a sign followed by a letter
 * (`[ 0 0 -x5 842 ]`): pdfjs's lexer throws FormatError "Invalid number" when it fetches either page. While it looks up
 * the first page pdfjs fetches every page of a flat page tree ahead, so the read fails at page 2 with page 3's fetch
 * rejected and never awaited: stock pdfjs-dist 6.5.438 leaves that rejection unhandled (the reproduction of the
 * `FormatError: Invalid number` seen on a bit-flipped real PDF).
 */
export async function pdfWithBrokenPageNumbers(): Promise<Uint8Array> {
  const media_box = '/MediaBox [ 0 0 595 842 ]';
  const parts = latin1(await pdfToDamage(4, { objectStreams: false })).split(media_box);
  if (parts.length !== 5) throw new Error(`pdfWithBrokenPageNumbers: ${parts.length - 1} page MediaBoxes in the generated PDF, not 4`);
  const broken = '/MediaBox [ 0 0 -x5 842 ]';
  return new Uint8Array(Buffer.from([parts[0], media_box, parts[1], broken, parts[2], broken, parts[3], media_box, parts[4]].join(''), 'latin1'));
}

/** A PDF written object by object (object n is bodies[n - 1]; object 1 the catalog), with a correct cross-reference table. */
export function rawPdf(bodies: string[]): Uint8Array {
  let text = '%PDF-1.7\n';
  const offsets: number[] = [];
  for (const [index, body] of bodies.entries()) {
    offsets.push(text.length);
    text += `${index + 1} 0 obj\n${body}\nendobj\n`;
  }
  const xref_at = text.length;
  text += `xref\n0 ${bodies.length + 1}\n0000000000 65535 f \n${offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('')}`;
  text += `trailer\n<< /Size ${bodies.length + 1} /Root 1 0 R >>\nstartxref\n${xref_at}\n%%EOF\n`;
  return new Uint8Array(Buffer.from(text, 'latin1'));
}

const rawStream = (content: string, dictionary = '') => `<< /Length ${content.length} ${dictionary}>>\nstream\n${content}\nendstream`;

/**
 * A one-page PDF of about 2 KiB whose page draws form X0 `fan_out` times, each form Xi draws X(i+1) as often, and the
 * last shows a word: fan_out^(depth + 1) words, so reading its text takes pdfjs hours at the defaults (forms drawing
 * forms; pdfjs caches no form's text). Only a time limit stops it.
 */
export function formsDrawingFormsPdf(depth = 8, fan_out = 10): Uint8Array {
  const draws = (name: string) => Array.from({ length: fan_out }, () => `/${name} Do`).join(' ');
  const forms = Array.from({ length: depth + 1 }, (_, level) =>
    level === depth
      ? rawStream('BT /F1 12 Tf 50 700 Td (lol) Tj ET', '/Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> ')
      : rawStream(draws(`X${level + 1}`), `/Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources << /XObject << /X${level + 1} ${7 + level} 0 R >> >> `),
  );
  return rawPdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /XObject << /X0 6 0 R >> >> /Contents 5 0 R >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    rawStream(draws('X0')),
    ...forms,
  ]);
}

/**
 * A one-page PDF whose content stream inflates to `decoded_mib` MiB of spaces and then shows a word: about 1 KiB of file
 * per MiB, so a 10 MiB upload could hold 10 GiB (pdfjs keeps a stream's decoded bytes whole, growing by doubling).
 */
export async function inflatingPdf(decoded_mib: number): Promise<Uint8Array> {
  const deflate = createDeflate({ level: 9 });
  const compressed: Buffer[] = [];
  deflate.on('data', (chunk: Buffer) => compressed.push(chunk));
  const spaces = Buffer.alloc(2 ** 20, 0x20);
  for (let mib = 0; mib < decoded_mib; mib++) if (!deflate.write(spaces)) await once(deflate, 'drain');
  deflate.end('BT /F1 12 Tf 50 700 Td (inflated) Tj ET');
  await once(deflate, 'end');
  return rawPdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    rawStream(Buffer.concat(compressed).toString('latin1'), '/Filter /FlateDecode '),
  ]);
}

/**
 * A PDF of `pages` pages that all draw the same content stream, which inflates to `decoded_mib` MiB (under
 * PDF_STREAM_BYTES_MAX, so the reader decodes it) of short text operators: a file of a few hundred KiB that the reader
 * decodes and parses again for every page, holding each pool thread on it until the read's time limit.
 */
export async function sharedStreamBombPdf(pages = 20, decoded_mib = 250): Promise<Uint8Array> {
  const deflate = createDeflate({ level: 9 });
  const compressed: Buffer[] = [];
  deflate.on('data', (chunk: Buffer) => compressed.push(chunk));
  const operators = '0 0 m 1 1 l S\n';
  const mib = Buffer.from(operators.repeat(Math.floor(2 ** 20 / operators.length)).padEnd(2 ** 20, ' '), 'latin1');
  for (let count = 0; count < decoded_mib; count++) if (!deflate.write(mib)) await once(deflate, 'drain');
  deflate.end('BT /F1 12 Tf 50 700 Td (inflated) Tj ET');
  await once(deflate, 'end');
  const page_objects = Array.from({ length: pages }, (_, index) => `${index + 5} 0 R`).join(' ');
  return rawPdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [${page_objects}] /Count ${pages} >>`,
    rawStream(Buffer.concat(compressed).toString('latin1'), '/Filter /FlateDecode '),
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    ...Array.from({ length: pages }, () => '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 3 0 R >>'),
  ]);
}
