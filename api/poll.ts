// Pollable resources (RouteDef `pollable: true`): an ETag on every answer, 304 for a matching If-None-Match, and a
// bounded long-poll `?wait=N` that holds the request until the resource changes or N seconds pass. A waiting request
// holds a subscription to the change feed (store/changes.ts) and a timer: no query runs until a change is announced.
import { hash } from 'node:crypto';
import type { Context } from 'koa';
import { Type } from 'typebox';
import type { AppDeps } from './context.ts';
import type { QueryParam, RouteDef } from './registry.ts';
import { pathParameters } from './registry.ts';

/** The longest a `wait` may hold a request (seconds). */
export const POLL_WAIT_SECONDS_MAX = 30;
/** Long-polls held at once per process; beyond it a `wait` answers at once (the client simply polls again). */
export const POLL_WAITERS_MAX = 10_000;

export const WaitQuery: Record<string, QueryParam> = {
  wait: {
    schema: Type.Integer({ minimum: 0, maximum: POLL_WAIT_SECONDS_MAX }),
    description: `Long-poll: hold the request up to this many seconds (at most ${POLL_WAIT_SECONDS_MAX}) until the resource differs from the If-None-Match version (or, without it, from its state when the request arrived); then 200 with it, or 304 (If-None-Match still current) / 200 (unchanged) at the end.`,
  },
};

function etagOfJson(json: string): string {
  return `"${hash('sha256', json, 'base64url').slice(0, 27)}"`;
}

/** A body serialised ahead of the request, with its ETag: kept beside its rows (store/rowCache.ts) and sent as it is. */
export type Rendered = { json: string; etag: string };

export function rendered(body: unknown): Rendered {
  const json = JSON.stringify(body);
  return { json, etag: etagOfJson(json) };
}

const sent_rendered = new WeakMap<Context, Rendered>();

/** Answers `body` as it was rendered: the router neither serialises it nor hashes it again. */
export function sendRendered(ctx: Context, body: Rendered): void {
  // The header Koa's `ctx.type = 'application/json'` sets, without its type lookup; set first, so Koa does not set a
  // text type for the string body.
  ctx.res.setHeader('Content-Type', 'application/json; charset=utf-8');
  ctx.body = body.json;
  sent_rendered.set(ctx, body);
}

/** The ETag of the answer's JSON text; a rendered body's own when the body is still that text. */
function etagOfAnswer(ctx: Context): string {
  const json = serialised(ctx);
  const kept = sent_rendered.get(ctx);
  return kept && kept.json === json ? kept.etag : etagOfJson(json);
}

/** Serialises the handler's body once: the ETag hashes the same JSON text that is sent. */
function serialised(ctx: Context): string {
  if (typeof ctx.body === 'string') return ctx.body;
  const json = JSON.stringify(ctx.body);
  ctx.body = json;
  ctx.type = 'application/json';
  return json;
}

function matches(header: string, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((candidate) => candidate.trim().replace(/^W\//, '') === etag);
}

/** Runs a pollable route's handler, then answers with its ETag, 304 or (with `wait`) the next version. */
export async function servePollable(deps: AppDeps, ctx: Context, route: RouteDef, wait_seconds: number, read: () => Promise<void>): Promise<void> {
  const if_none_match = ctx.get('if-none-match');
  const names = pathParameters(route.path).filter((name) => name.endsWith('_id'));
  const id = names.length > 0 ? String(ctx.params[names[names.length - 1]!]) : '';
  const waiting = wait_seconds > 0 && id !== '' && deps.db.changes.waiting() < POLL_WAITERS_MAX;
  let changed = false;
  let wake: () => void = () => {};
  let unsubscribe: () => void = () => {};
  // Listening starts before the first read, so a change between the read and the wait is not missed.
  const subscribe = async () => {
    changed = false;
    unsubscribe = await deps.db.changes.subscribe(id, () => {
      changed = true;
      wake();
    });
  };
  if (waiting) await subscribe();
  try {
    await read();
    if (ctx.status !== 200) return;
    let etag = etagOfAnswer(ctx);
    const baseline = if_none_match || etag;
    if (waiting && matches(baseline, etag)) {
      const deadline = Date.now() + wait_seconds * 1000;
      // The client hanging up ends the wait (the response's close: the request's fires once its body is read).
      let gone = false;
      const closed = new Promise<void>((resolve) =>
        ctx.res.once('close', () => {
          gone = true;
          resolve();
        }),
      );
      while (Date.now() < deadline && !gone) {
        if (!changed) {
          let timer: NodeJS.Timeout | undefined;
          await Promise.race([
            new Promise<void>((resolve) => {
              wake = resolve;
              timer = setTimeout(resolve, deadline - Date.now());
            }),
            closed,
          ]);
          clearTimeout(timer);
        }
        if (!changed) break;
        // Announced: re-read (the handler checks access again) and answer if the client's version is stale now.
        unsubscribe();
        await subscribe();
        await read();
        if (ctx.status !== 200) return;
        etag = etagOfAnswer(ctx);
        if (!matches(baseline, etag)) break;
      }
    }
    ctx.set('ETag', etag);
    if (!route.no_store) ctx.set('Cache-Control', 'private, no-cache');
    if (matches(if_none_match, etag)) {
      ctx.status = 304;
      ctx.body = null;
    }
  } finally {
    unsubscribe();
  }
}
