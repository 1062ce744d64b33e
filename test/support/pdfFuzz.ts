// A deterministic fuzzer for the PDF reader: damages real PDFs (test/support/pdfDamage.ts) and reads each three ways:
// readPdfText through the real compute pool, readPdfShare on this thread (where a promise pdfjs leaves rejected with no
// handler surfaces as this process's unhandled rejection; on a pool thread the read counts it and fails), and
// extractSources as the intake calls it. It reports any unhandled rejection or uncaught exception in this process, a
// pool thread that died (a thread started beyond the pool's own), a pool error, a read past its deadline, and a result
// that is neither ok nor `{ ok: false, reason }` with a plain reason.
//
//   node test/support/pdfFuzz.ts [--rounds 200] [--seed 1] [--deadline-ms 30000] [extra.pdf|extra.pdf.gz ...]
//
// Real PDFs make the best seeds (those under /usr/share/doc, say). Exits 1 when anything was found. Not a test: the
// unit test (test/unit/pdf-damage.test.ts) keeps a fixed set.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { extractSources } from '../../compute/extraction.ts';
import { newPdfProgress, readPdfShare, readPdfText } from '../../compute/extraction/pdf.ts';
import { closeComputePool, computePool, computePoolStats } from '../../compute/pool.ts';
import { buildPdf, PDF_PAGE_ONE } from './corpus.ts';
import { DAMAGE_KINDS, type DamageKind, damagePdf, pdfToDamage, seededRandom } from './pdfDamage.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { rounds: { type: 'string', default: '200' }, seed: { type: 'string', default: '1' }, 'deadline-ms': { type: 'string', default: '30000' } },
});
const rounds = Number(values.rounds);
const base_seed = Number(values.seed);
const deadline_ms = Number(values['deadline-ms']);

type Source = { name: string; bytes: Uint8Array };
const sources: Source[] = [
  { name: 'text-3', bytes: await pdfToDamage(3, { objectStreams: false }) },
  { name: 'text-12-objstm', bytes: await pdfToDamage(12, { objectStreams: true }) },
  { name: 'mixed', bytes: await buildPdf([{ kind: 'text', lines: PDF_PAGE_ONE }, { kind: 'image' }]) },
  { name: 'locked', bytes: new Uint8Array(readFileSync(new URL('../fixtures/locked.pdf', import.meta.url))) },
  ...positionals.map((path) => {
    const raw = readFileSync(path);
    return { name: path.split('/').pop()!, bytes: new Uint8Array(path.endsWith('.gz') ? gunzipSync(raw) : raw) };
  }),
];

let current = '(none)';
const findings: string[] = [];
process.on('unhandledRejection', (reason) => findings.push(`${current}: unhandled rejection ${describe(reason)}`));
process.on('uncaughtException', (error) => findings.push(`${current}: uncaught exception ${describe(error)}`));

function describe(value: unknown): string {
  return value instanceof Error ? `${value.name}: ${value.message.slice(0, 120)}` : String(value).slice(0, 120);
}

/** The outcome, or 'deadline' when it took longer than the deadline. */
async function withDeadline<T>(work: Promise<T>): Promise<T | 'deadline'> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'deadline'>((resolve) => {
    timer = setTimeout(() => resolve('deadline'), deadline_ms);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

const plainReason = (reason: unknown) => typeof reason === 'string' && reason.length > 0 && reason.length < 300 && !/\n|Error:|at \w/.test(reason);

const tally = new Map<string, number>();
const count = (key: string) => tally.set(key, (tally.get(key) ?? 0) + 1);

async function fuzzOne(label: string, bytes: Uint8Array): Promise<void> {
  const read = await withDeadline(readPdfText(bytes).catch((error: unknown) => ({ thrown: describe(error) })));
  if (read === 'deadline') findings.push(`${label}: readPdfText past ${deadline_ms} ms`);
  else if ('thrown' in read) findings.push(`${label}: readPdfText rejected (${read.thrown})`);
  else if (!read.ok && !plainReason(read.reason)) findings.push(`${label}: readPdfText reason is not plain: ${JSON.stringify(read.reason)}`);
  else count(read.ok ? 'read ok' : `read: ${read.reason.replace(/\d+/g, 'N')}`);
  const share = await withDeadline(readPdfShare(bytes, newPdfProgress()).catch((error: unknown) => ({ thrown: describe(error) })));
  if (share === 'deadline') findings.push(`${label}: readPdfShare on this thread past ${deadline_ms} ms`);
  else if ('thrown' in share) findings.push(`${label}: readPdfShare rejected (${share.thrown})`);
  const extracted = await withDeadline(
    extractSources([{ kind: 'file', filename: 'upload.pdf', bytes }]).catch((error: unknown) => ({ thrown: describe(error) })),
  );
  if (extracted === 'deadline') findings.push(`${label}: extractSources past ${deadline_ms} ms`);
  else if ('thrown' in extracted) findings.push(`${label}: extractSources rejected (${extracted.thrown})`);
  else {
    const [source] = extracted;
    if (source!.status !== 'processed' && !plainReason(source!.reason))
      findings.push(`${label}: source reason is not plain: ${JSON.stringify(source!.reason)}`);
    if (source!.reason?.startsWith('reading failed unexpectedly')) findings.push(`${label}: extractSources fell to its catch-all`);
    count(`source ${source!.status}`);
  }
}

await computePool();
const started = computePoolStats();
const random = seededRandom(base_seed);
for (let round = 0; round < rounds; round++) {
  const source = sources[Math.floor(random() * sources.length)]!;
  const kind: DamageKind = DAMAGE_KINDS[Math.floor(random() * DAMAGE_KINDS.length)]!;
  const seed = base_seed * 1_000_003 + round;
  current = `round ${round} ${source.name} ${kind} seed ${seed}`;
  const before = computePoolStats();
  await fuzzOne(current, damagePdf(source.bytes, kind, seededRandom(seed)));
  await new Promise((resolve) => setTimeout(resolve, 20)); // a stray rejection is reported after the read's microtasks
  const after = computePoolStats();
  if (after.threads_started > before.threads_started)
    findings.push(`${current}: ${after.threads_started - before.threads_started} pool thread(s) died and were replaced`);
  if (after.errors > before.errors) findings.push(`${current}: the pool emitted ${after.errors - before.errors} error(s)`);
}
const good = await readPdfText(sources[0]!.bytes);
if (!good.ok) findings.push(`the good PDF is no longer read after the damaged ones: ${good.reason}`);
const ended = computePoolStats();
process.stdout.write(`${rounds} rounds from seed ${base_seed} over ${sources.map((source) => source.name).join(', ')}\n`);
for (const [key, times] of [...tally].sort()) process.stdout.write(`  ${String(times).padStart(5)}  ${key}\n`);
process.stdout.write(`pool: ${started.threads_started} threads at start, ${ended.threads_started} started in all, ${ended.errors} errors\n`);
process.stdout.write(findings.length === 0 ? 'no findings\n' : `${findings.length} findings:\n${findings.map((finding) => `  ${finding}`).join('\n')}\n`);
await closeComputePool();
process.exitCode = findings.length === 0 ? 0 : 1;
