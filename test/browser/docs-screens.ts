// npm run docs:screens — regenerates docs/screens/<name>.png, the screenshots docs/web.md shows. It runs the plain-
// language browser test (test/browser/plain-language.test.ts) with CRUCIBLE_DOCS_SCREENS set: that test starts the
// real service (offline provider, fake Europe PMC, fake Stripe), walks the screens listed in test/browser/walk.ts
// (SCREENS: add a screen there and it is checked and photographed) and copies each desktop screenshot to docs/screens.
// A screen's PNG is written only once that screen passed its checks, so the docs never show a screen that failed them.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const result = spawnSync('npx', ['vitest', 'run', 'test/browser/plain-language.test.ts'], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, CRUCIBLE_DOCS_SCREENS: '1' },
});
process.exit(result.status ?? 1);
