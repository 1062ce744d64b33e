// `npm run bench`: runs every benchmark in one process tree and prints the ratios each measures against its reference
// in the same run. Pass names to run a subset: `npm run bench -- simulation intake`.
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ALL = ['api', 'simulation', 'intake', 'ledger'];
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
