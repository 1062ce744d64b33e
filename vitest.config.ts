import { configDefaults, defineConfig } from 'vitest/config';

// Tests talk to real parts: PGlite, PostgreSQL (when DATABASE_URL is set), the Temporal dev server, HTTP on a real port.
// Two projects: `unit` (test/unit: pure code, no service, so no Temporal dev server or workflow bundle is started for it)
// and `service` (everything else, after the global setup). `npm run test:unit` runs the first alone.
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
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'] } },
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
