// The web app's static files over real HTTP (api/web.ts, runtime/webBuild.ts; docs/web.md, Serving): each asset of
// index.html is served brotli when the browser accepts it, gzip when it accepts only gzip, unencoded otherwise, always
// with `Vary: Accept-Encoding`, and decodes to the same bytes; the first screen's compressed JS and CSS stay within
// 200 KB (fast to open).
import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/harness.ts';

/** The first screen's compressed scripts and styles, together, at most. */
const FIRST_SCREEN_COMPRESSED_BYTES_MAX = 200 * 1024;

let service: TestService;
beforeAll(async () => {
  service = await startTestService({ mode: 'api' });
});
afterAll(async () => {
  await service?.stop();
});

type Raw = { status: number; headers: Record<string, string | string[] | undefined>; body: Buffer };

/** A GET with exactly these headers (fetch would add its own Accept-Encoding and decode the body). */
function get(path: string, headers: Record<string, string>): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = request(`${service.url}${path}`, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** The scripts and styles index.html loads before anything else: the entry, its preloaded imports, its CSS. */
async function firstScreenAssets(): Promise<string[]> {
  const index = await get('/', { 'accept-encoding': 'identity' });
  expect(index.status).toBe(200);
  const html = index.body.toString('utf8');
  const assets = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+\.(?:js|css))"/g)].map((m) => m[1]!);
  expect(assets.some((a) => a.endsWith('.js'))).toBe(true);
  expect(assets.some((a) => a.endsWith('.css'))).toBe(true);
  return [...new Set(assets)];
}

describe('the web app served compressed', () => {
  it("serves index.html's assets brotli or gzip per Accept-Encoding, identity otherwise, with Vary", async () => {
    for (const asset of await firstScreenAssets()) {
      const plain = await get(asset, { 'accept-encoding': 'identity' });
      expect(plain.status, asset).toBe(200);
      expect(plain.headers['content-encoding'], asset).toBeUndefined();
      expect(String(plain.headers.vary), asset).toMatch(/Accept-Encoding/i);
      const none = await get(asset, {});
      expect(none.headers['content-encoding'], asset).toBeUndefined();
      expect(none.body.equals(plain.body), asset).toBe(true);

      const brotli = await get(asset, { 'accept-encoding': 'gzip, deflate, br' });
      expect(brotli.headers['content-encoding'], asset).toBe('br');
      expect(String(brotli.headers.vary), asset).toMatch(/Accept-Encoding/i);
      expect(brotli.headers['content-type'], asset).toMatch(asset.endsWith('.js') ? /javascript/ : /text\/css/);
      expect(brotliDecompressSync(brotli.body).equals(plain.body), asset).toBe(true);
      expect(brotli.body.length, asset).toBeLessThan(plain.body.length);

      const gzip = await get(asset, { 'accept-encoding': 'gzip' });
      expect(gzip.headers['content-encoding'], asset).toBe('gzip');
      expect(gunzipSync(gzip.body).equals(plain.body), asset).toBe(true);
    }
  });

  it("keeps the first screen's compressed JS and CSS within 200 KB (gzip and brotli)", async () => {
    let brotli_bytes = 0;
    let gzip_bytes = 0;
    for (const asset of await firstScreenAssets()) {
      brotli_bytes += (await get(asset, { 'accept-encoding': 'br' })).body.length;
      gzip_bytes += (await get(asset, { 'accept-encoding': 'gzip' })).body.length;
    }
    expect(brotli_bytes).toBeGreaterThan(10 * 1024);
    expect(gzip_bytes).toBeLessThanOrEqual(FIRST_SCREEN_COMPRESSED_BYTES_MAX);
    expect(brotli_bytes).toBeLessThanOrEqual(FIRST_SCREEN_COMPRESSED_BYTES_MAX);
  });

  it('answers the app routes with index.html, compressed when accepted and unencoded otherwise', async () => {
    const plain = await get('/projects/anything', { 'accept-encoding': 'identity' });
    expect(plain.status).toBe(200);
    expect(plain.body.toString('utf8')).toContain('<div id="root">');
    expect(String(plain.headers.vary)).toMatch(/Accept-Encoding/i);
    const gzip = await get('/projects/anything', { 'accept-encoding': 'gzip' });
    const body = gzip.headers['content-encoding'] === 'gzip' ? gunzipSync(gzip.body) : gzip.body;
    expect(body.equals(plain.body)).toBe(true);
  });
});
