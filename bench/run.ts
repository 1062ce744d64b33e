// `npm run bench`: runs every benchmark in one process tree and prints the ratios each measures against its reference
// in the same run. Pass names to run a subset: `npm run bench -- simulation intake`.
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

// The references are Debian packages: SimPy 3 (python3-simpy3) for the engine, poppler's pdftotext (poppler-utils) for
// PDF text. Installed here when missing and apt-get may run (as root), so one `npm run bench` prints every ratio.
const REFERENCES = [
  { package: 'python3-simpy3', present: () => ['/usr/bin/python3', 'python3'].some((python) => spawnSync(python, ['-c', 'import simpy'], { stdio: 'ignore' }).status === 0) },
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

const ALL = ['api', 'health', 'readiness', 'simulation', 'intake', 'ledger', 'worldrun'];
const wanted = process.argv.slice(2).length ? process.argv.slice(2) : ALL;
let failed = 0;
for (const name of wanted) {
  const file = fileURLToPath(new URL(`./${name}.ts`, import.meta.url));
  if (!existsSync(file)) {
    process.stderr.write(`no benchmark named ${name} (have: ${ALL.join(', ')})\n`);
    failed++;
    continue;
  }
  process.stdout.write(`\n=== bench/${name} ===\n`);
  const result = spawnSync(process.execPath, [file], { stdio: 'inherit' });
  if (result.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
