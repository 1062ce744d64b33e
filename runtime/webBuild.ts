// Builds the web app (web/ → web/dist) when the build is missing or older than its sources: `npm start` runs it first
// (the "prestart" script), the test global setup runs it, and `npm run build:web` forces it. The build needs no network.
// Every text asset is then precompressed beside itself (`x.js.br`, `x.js.gz`): api/web.ts serves the variant the browser
// accepts, so nothing is compressed per request.
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const WEB_DIR = fileURLToPath(new URL('../web', import.meta.url));
const DIST_INDEX = join(WEB_DIR, 'dist', 'index.html');
/** What the build reads besides node_modules (the SDK: the client the app calls the API with, and the words it shares with the service): a change to any of these makes the build stale. */
const SOURCES = ['src', 'index.html', 'vite.config.ts', 'public', '../samples/worlds', '../clients/sdk/src'];

function newestMtime(path: string): number {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

/** A build from before precompression (or interrupted before it) is stale: every script needs its `.br`. */
function isPrecompressed(): boolean {
  const assets = join(WEB_DIR, 'dist', 'assets');
  if (!existsSync(assets)) return false;
  return readdirSync(assets)
    .filter((name) => name.endsWith('.js') && statSync(join(assets, name)).size >= COMPRESS_MIN_BYTES)
    .every((name) => existsSync(join(assets, `${name}.br`)));
}

export function webBuildIsFresh(): boolean {
  if (!existsSync(DIST_INDEX) || !isPrecompressed()) return false;
  const built = statSync(DIST_INDEX).mtimeMs;
  return SOURCES.every((source) => newestMtime(join(WEB_DIR, source)) <= built);
}

/** Text files worth compressing; images and fonts are already compressed. */
const COMPRESSIBLE = new Set(['.js', '.css', '.html', '.svg', '.json', '.txt', '.map']);
/** Below this size a compressed copy saves less than its headers cost. */
const COMPRESS_MIN_BYTES = 512;

/** Writes `<file>.br` (brotli, quality 11) and `<file>.gz` (gzip level 9) beside every compressible file of `dir`. */
export function precompress(dir: string): { files: number; bytes: number; brotli_bytes: number } {
  const totals = { files: 0, bytes: 0, brotli_bytes: 0 };
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      const inner = precompress(path);
      totals.files += inner.files;
      totals.bytes += inner.bytes;
      totals.brotli_bytes += inner.brotli_bytes;
      continue;
    }
    if (!COMPRESSIBLE.has(extname(entry.name))) continue;
    const content = readFileSync(path);
    if (content.length < COMPRESS_MIN_BYTES) continue;
    const brotli = brotliCompressSync(content, {
      params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: content.length },
    });
    writeFileSync(`${path}.br`, brotli);
    writeFileSync(`${path}.gz`, gzipSync(content, { level: 9 }));
    totals.files += 1;
    totals.bytes += content.length;
    totals.brotli_bytes += brotli.length;
  }
  return totals;
}

export async function ensureWebBuild(options: { force?: boolean; say?: (line: string) => void } = {}): Promise<'fresh' | 'built'> {
  if (!options.force && webBuildIsFresh()) return 'fresh';
  const say = options.say ?? ((line: string) => process.stderr.write(`${line}\n`));
  const started = performance.now();
  say('building the web app (web/ → web/dist)…');
  const { build } = await import('vite');
  // always the production build (React's production runtime, minified): under the test runner NODE_ENV is 'test',
  // which would otherwise give the development runtime and a bundle twice the size
  const node_env = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    await build({ configFile: join(WEB_DIR, 'vite.config.ts'), logLevel: 'warn', mode: 'production' });
  } finally {
    if (node_env === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = node_env;
  }
  const compressed = precompress(join(WEB_DIR, 'dist'));
  say(
    `web app built in ${Math.round(performance.now() - started)} ms; ${compressed.files} files precompressed (${Math.round(compressed.bytes / 1024)} kB, ${Math.round(compressed.brotli_bytes / 1024)} kB brotli)`,
  );
  return 'built';
}

if (import.meta.main) {
  await ensureWebBuild({ force: process.argv.includes('--force') });
}
