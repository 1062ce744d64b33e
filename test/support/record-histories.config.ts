// The configuration that runs test/support/record-histories.ts alone (it rewrites the recorded histories, so the test
// suite never includes it): the service project's global setup (the dev server and the workflow bundle).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  cacheDir: '.cache/vite',
  test: {
    include: ['test/support/record-histories.ts'],
    testTimeout: 180_000,
    hookTimeout: 240_000,
    pool: 'forks',
    globalSetup: ['test/support/system-tools.ts', 'test/support/global-setup.ts'],
  },
});
