import { configDefaults, defineConfig } from 'vitest/config';

// Tests talk to real parts: PGlite, PostgreSQL (when DATABASE_URL is set), the Temporal dev server, HTTP on a real port.
// Three projects: `unit` (test/unit: pure code, no service, so no Temporal dev server or workflow bundle is started for
// it), `slow` (the files of test/unit listed below) and `service` (everything else, after the global setup).
// `npm run test:unit` runs the first alone; `npm run test:quick` type-checks, lints and runs it. The `unit` project
// does not isolate its files (each worker imports a module once for all its files, which halves the run); a unit test
// that changes a global (process.env, fetch) restores it before it ends.
/**
 * Files of test/unit that spawn processes (the CLI against a real HTTP server) or check statistics over many
 * replications: the `slow` project, so `npm run test:unit` stays the inner loop (under 30 s on a quiet machine).
 */
const SLOW_UNIT_FILES = [
  'test/unit/cli-long-poll.test.ts',
  'test/unit/cli-wait-retry.test.ts',
  'test/unit/compute-fairness.test.ts',
  'test/unit/pdf-damage.test.ts',
  'test/unit/router-index.test.ts',
  'test/unit/simulation-batch-service.test.ts',
  'test/unit/simulation-breakdowns.test.ts',
  'test/unit/simulation-calendars.test.ts',
  'test/unit/simulation-estimate.test.ts',
  'test/unit/simulation-loop.test.ts',
  'test/unit/simulation-pool.test.ts',
  'test/unit/simulation-routing.test.ts',
  'test/unit/simulation-seize.test.ts',
  'test/unit/simulation-seize-queue-limit.test.ts',
  'test/unit/simulation-theory.test.ts',
];

export default defineConfig({
  // Vite's cache in this checkout (gitignored), not in node_modules: checkouts that share node_modules through a symlink
  // would otherwise share (and break) one another's module cache.
  cacheDir: '.cache/vite',
  test: {
    testTimeout: 60_000,
    hookTimeout: 240_000,
    pool: 'forks',
    maxWorkers: 2,
    projects: [
      { extends: true, test: { name: 'unit', isolate: false, include: ['test/unit/**/*.test.ts'], exclude: [...configDefaults.exclude, ...SLOW_UNIT_FILES] } },
      { extends: true, test: { name: 'slow', include: SLOW_UNIT_FILES } },
      {
        extends: true,
        test: {
          name: 'service',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, 'test/unit/**'],
          // system tools first (installed, or the run stops with the command to run), then the Temporal dev server and bundle
          globalSetup: ['test/support/system-tools.ts', 'test/support/global-setup.ts'],
        },
      },
    ],
  },
});
