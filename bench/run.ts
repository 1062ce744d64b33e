// `npm run bench`: runs every benchmark in one process tree and prints the ratios each measures against its reference
// in the same run, and each goal with MET / NOT MET and the load average (lines starting GOAL, gathered again at the
// end). Pass names to run a subset: `npm run bench -- service scaling`.
import { existsSync } from 'node:fs';
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { goalLines } from './goals.ts';

// The references are Debian packages: SimPy 3 (python3-simpy3) for the engine, poppler's pdftotext (poppler-utils) for
// PDF text. Installed here when missing and apt-get may run (as root), so one `npm run bench` prints every ratio.
const REFERENCES = [
  {
    package: 'python3-simpy3',
    present: () => ['/usr/bin/python3', 'python3'].some((python) => spawnSync(python, ['-c', 'import simpy'], { stdio: 'ignore' }).status === 0),
  },
  { package: 'poppler-utils', present: () => spawnSync('pdftotext', ['-v'], { stdio: 'ignore' }).status === 0 },
];
const missing = REFERENCES.filter((reference) => !reference.present()).map((reference) => reference.package);
if (missing.length > 0) {
  if (process.getuid?.() === 0 && spawnSync('apt-get', ['--version'], { stdio: 'ignore' }).status === 0) {
    process.stdout.write(`installing the benchmarks' references: ${missing.join(', ')}\n`);
    spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit' });
    spawnSync('apt-get', ['install', '-y', '-qq', ...missing], { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  } else process.stdout.write(`missing references (install them to get every ratio): ${missing.join(', ')}\n`);
}

const ALL = ['service', 'api', 'health', 'readiness', 'simulation', 'flags', 'intake', 'ledger', 'worldrun', 'scaling', 'scale-out', 'hostile'];
const wanted = process.argv.slice(2).length ? process.argv.slice(2) : ALL;

/** Runs one benchmark, its output shown as it comes; the GOAL lines it printed. */
function runOne(file: string): Promise<{ status: number | null; goals: string[] }> {
  const child = spawn(process.execPath, [file], { stdio: ['ignore', 'pipe', 'inherit'] });
  const chunks: Buffer[] = [];
  child.stdout!.on('data', (chunk: Buffer) => {
    process.stdout.write(chunk);
    chunks.push(chunk);
  });
  // 'close' comes after the last chunk: the output is split into lines once, whole.
  return new Promise((resolve) => child.once('close', (status) => resolve({ status, goals: goalLines(chunks) })));
}

let failed = 0;
const summary: string[] = [];
for (const name of wanted) {
  const file = fileURLToPath(new URL(`./${name}.ts`, import.meta.url));
  if (!existsSync(file)) {
    process.stderr.write(`no benchmark named ${name} (have: ${ALL.join(', ')})\n`);
    failed++;
    continue;
  }
  process.stdout.write(`\n=== bench/${name} ===\n`);
  const result = await runOne(file);
  summary.push(...result.goals.map((line) => `${name}: ${line.slice(5)}`));
  if (result.status !== 0) {
    failed++;
    summary.push(`${name}: FAILED (exit ${result.status}): its goals were not measured`);
  }
}
process.stdout.write(`\n=== goals ===\n${summary.join('\n')}\n`);
process.exit(failed ? 1 : 0);
