// The web app (ARCHITECTURE.md: Layout, web/): the built static files of web/dist served at `/`, with every unknown
// non-API path answered by index.html so the app's own routes work on reload. Paths under /v1 (the API and the payment
// webhook) are never touched here: they reach the router and keep its JSON 404 envelope.
// Mounted after the routes, which authenticate per operation: loading the page never reads the session cookie, so a
// stale cookie cannot turn the sign-in page itself into a 401.
import { existsSync } from 'node:fs';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { send } from '@koa/send';
import type { Context, Next } from 'koa';

export const WEB_DIST_DIR = fileURLToPath(new URL('../web/dist', import.meta.url));
const API_PREFIX = /^\/v1(\/|$)/;
/** Hashed build assets never change under their name. */
const ASSET_MAX_AGE_MS = 365 * 24 * 3600 * 1000;

// The app loads only its own scripts and styles, and never evaluates strings as code (no 'unsafe-eval', no
// 'wasm-unsafe-eval'). Recharts and the world diagram (@xyflow/react) set inline style attributes, and CodeMirror adds
// its theme as <style> elements, hence 'unsafe-inline' for styles only.
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

export function webApp(options: { root?: string } = {}) {
  const root = options.root ?? WEB_DIST_DIR;
  return async (ctx: Context, next: Next) => {
    if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || API_PREFIX.test(ctx.path) || !existsSync(`${root}/index.html`)) return next();
    const headers = () => {
      // runtime/webBuild.ts precompressed the text files: @koa/send serves `.br` or `.gz` per Accept-Encoding
      ctx.vary('Accept-Encoding');
      ctx.set('Content-Security-Policy', CONTENT_SECURITY_POLICY);
      ctx.set('X-Content-Type-Options', 'nosniff');
      ctx.set('Referrer-Policy', 'same-origin');
    };
    const asset = ctx.path.startsWith('/assets/');
    if (ctx.path !== '/' && extname(ctx.path)) {
      try {
        headers();
        await send(ctx, ctx.path, { root, immutable: asset, maxage: asset ? ASSET_MAX_AGE_MS : 0, hidden: false, brotli: true, gzip: true });
        return;
      } catch (error) {
        const status = (error as { status?: number }).status;
        if (status !== 404 && status !== 400 && status !== 403) throw error;
        // a missing file under /assets is a real 404 (a stale page asking for an old build), not the app
        if (asset) {
          ctx.status = 404;
          ctx.type = 'text/plain';
          ctx.body = 'Not found';
          return;
        }
      }
    }
    // spec: Layout — the app's routes (/projects/…, /settings) are client-side: index.html answers them all
    headers();
    ctx.set('Cache-Control', 'no-cache');
    await send(ctx, 'index.html', { root, brotli: true, gzip: true });
  };
}
