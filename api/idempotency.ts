// One idempotency mechanism for every creating endpoint (spec: Versioning, Sponsor API rules 1–4,
// Checkout rules). A record keyed by (namespace, owner, key) holds a hash of method, route and canonical body and the
// stored response; it commits in the same transaction as the mutation. A concurrent request with the same key waits on
// the record's unique index and then replays; past a bounded wait it gets 409 IDEMPOTENCY_KEY_IN_USE.
import type { Context } from 'koa';
import { ServiceError } from '../domain/errors.ts';
import type { Db, Tx } from '../store/db.ts';
import { sha256 } from '../store/secrets.ts';
import type { State } from './context.ts';
import type { IdempotencyNamespace } from './registry.ts';

export const IDEMPOTENCY_KEY_LENGTH_MAX = 255;
/** How long a second request waits for the first one holding the same key. */
export const IDEMPOTENCY_WAIT_MS = 10_000;

const PRINTABLE = /^[\x20-\x7e]+$/;

export function readIdempotencyKey(ctx: Context, required: boolean): string | null {
  const key = ctx.get('idempotency-key');
  if (!key) {
    if (required) {
      throw new ServiceError('VALIDATION_FAILED', 'This endpoint needs an Idempotency-Key header (1 to 255 printable characters); reuse it when you retry.', [
        { path: '/headers/idempotency-key', message: 'is required' },
      ]);
    }
    return null;
  }
  if (key.length > IDEMPOTENCY_KEY_LENGTH_MAX || !PRINTABLE.test(key)) {
    throw new ServiceError('VALIDATION_FAILED', `The Idempotency-Key header must have 1 to ${IDEMPOTENCY_KEY_LENGTH_MAX} printable ASCII characters.`, [
      { path: '/headers/idempotency-key', message: `must have 1 to ${IDEMPOTENCY_KEY_LENGTH_MAX} printable characters` },
    ]);
  }
  return key;
}

/** Canonical JSON: keys sorted at every depth, so field order does not change the hash. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

export type Outcome = { status: number; body: unknown };

export type IdempotencyOptions = {
  /** Whose key space the key lives in: the organization, institution or billing owner named by the request. */
  owner_id: string;
  /** The body as the hash should see it (e.g. a redemption code replaced by its digest: spec Sponsor API rule 5). */
  hashed_body: unknown;
};

/**
 * Runs `mutate` once per (namespace, owner, key) and stores its response with it in one transaction. The namespace and
 * whether a key is required are what the route declares (`idempotency`, `idempotency_namespace`).
 * Returns the outcome and whether it was a replay. Without a key (where optional) it simply runs the mutation.
 */
export async function idempotent(
  db: Db,
  ctx: Context,
  options: IdempotencyOptions,
  mutate: (tx: Tx) => Promise<Outcome>,
): Promise<Outcome & { replayed: boolean }> {
  const state = ctx.state as State;
  const declared = state.route_def;
  if (!declared?.idempotency) throw new ServiceError('INTERNAL', `invariant violated: route ${state.route ?? ctx.path} declares no idempotency`);
  const namespace: IdempotencyNamespace = declared.idempotency_namespace ?? 'organization';
  const key = readIdempotencyKey(ctx, declared.idempotency === 'required');
  if (key === null) return { ...(await db.transaction(mutate)), replayed: false };
  const route = state.route ?? ctx.path;
  const request_hash = sha256(`${ctx.method} ${route}\n${canonicalJson(options.hashed_body)}`);
  try {
    return await db.transaction(async (tx) => {
      if (db.kind === 'postgresql') await tx.query(`set local lock_timeout = '${IDEMPOTENCY_WAIT_MS}ms'`);
      const inserted = await tx.query(
        `insert into idempotency_records (namespace, owner_id, key, request_hash, status_code, response_body)
         values (?, ?, ?, ?, 0, 'null'::jsonb) on conflict do nothing returning key`,
        [namespace, options.owner_id, key, request_hash],
      );
      if (inserted.length === 0) {
        const record = await tx.one<{ request_hash: string; status_code: number; response_body: unknown }>(
          'select request_hash, status_code, response_body from idempotency_records where namespace = ? and owner_id = ? and key = ?',
          [namespace, options.owner_id, key],
        );
        if (!record || record.status_code === 0) {
          throw new ServiceError('IDEMPOTENCY_KEY_IN_USE', 'A request with this Idempotency-Key is still being processed; retry shortly with the same key.');
        }
        if (record.request_hash !== request_hash) {
          throw new ServiceError(
            'IDEMPOTENCY_KEY_REUSED',
            'This Idempotency-Key was already used with a different body or endpoint; use a new key for a different request.',
          );
        }
        const body = typeof record.response_body === 'string' ? JSON.parse(record.response_body) : record.response_body;
        return { status: record.status_code, body, replayed: true };
      }
      const outcome = await mutate(tx);
      await tx.query('update idempotency_records set status_code = ?, response_body = ?::jsonb where namespace = ? and owner_id = ? and key = ?', [
        outcome.status,
        JSON.stringify(outcome.body),
        namespace,
        options.owner_id,
        key,
      ]);
      return { ...outcome, replayed: false };
    });
  } catch (error) {
    if ((error as { code?: string }).code === '55P03') {
      throw new ServiceError('IDEMPOTENCY_KEY_IN_USE', 'A request with this Idempotency-Key is still being processed; retry shortly with the same key.');
    }
    throw error;
  }
}

/** Writes an outcome to the response, marking replays. */
export function respond(ctx: Context, outcome: Outcome & { replayed: boolean }): void {
  ctx.status = outcome.status;
  ctx.body = outcome.body;
  if (outcome.replayed) ctx.set('Idempotent-Replayed', 'true');
}
