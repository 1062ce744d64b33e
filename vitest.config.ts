import { defineConfig } from 'vitest/config';

// Tests talk to real parts: PGlite, PostgreSQL (when DATABASE_URL is set), the Temporal dev server, HTTP on a real port.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 240_000,
    pool: 'forks',
    maxWorkers: 2,
    // system tools first (installed, or the run stops with the command to run), then the Temporal dev server and bundle
    globalSetup: ['test/support/system-tools.ts', 'test/support/global-setup.ts'],
  },
});
