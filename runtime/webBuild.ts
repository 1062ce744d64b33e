// Builds the web app (web/ → web/dist) when the build is missing or older than its sources: `npm start` runs it first
// (the "prestart" script), the test global setup runs it, and `npm run build:web` forces it. The build needs no network.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const WEB_DIR = fileURLToPath(new URL('../web', import.meta.url));
const DIST_INDEX = join(WEB_DIR, 'dist', 'index.html');
/** What the build reads besides node_modules: a change to any of these makes the build stale. */
const SOURCES = ['src', 'index.html', 'vite.config.ts', 'public', '../samples/worlds'];

function newestMtime(path: string): number {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

export function webBuildIsFresh(): boolean {
  if (!existsSync(DIST_INDEX)) return false;
  const built = statSync(DIST_INDEX).mtimeMs;
  return SOURCES.every((source) => newestMtime(join(WEB_DIR, source)) <= built);
}

export async function ensureWebBuild(options: { force?: boolean; say?: (line: string) => void } = {}): Promise<'fresh' | 'built'> {
  if (!options.force && webBuildIsFresh()) return 'fresh';
  const say = options.say ?? ((line: string) => process.stderr.write(`${line}\n`));
  const started = performance.now();
  say('building the web app (web/ → web/dist)…');
  const { build } = await import('vite');
  await build({ configFile: join(WEB_DIR, 'vite.config.ts'), logLevel: 'warn' });
  say(`web app built in ${Math.round(performance.now() - started)} ms`);
  return 'built';
}

if (import.meta.main) {
  await ensureWebBuild({ force: process.argv.includes('--force') });
}
