// Packs, purchase intents and the reconciliation commit (spec: Billing pack and purchase intent; States and
// transitions, Purchase intent; Events rules 4 and 5).
import { grantTransferKey, NEW_INTENTS_PER_HOUR_MAX, type IntentStatus, type ReconcileTrigger } from '../../domain/billing/rules.ts';
import { ServiceError } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import { iso } from '../../domain/time.ts';
import { fundProgramPool, grantCredits } from '../credits/ledger.ts';
import { findProgram } from '../sponsors/sponsors.ts';
import type { Tx } from '../db.ts';
import { cachedRow } from '../rowCache.ts';

export type PackRow = { pack_key: string; title: string; price_id: string; credits: number; live_mode: boolean; created_at: string; retired_at: string | null };

type RawPack = Omit<PackRow, 'credits' | 'created_at' | 'retired_at'> & { credits: unknown; created_at: unknown; retired_at: unknown };
const pack = (row: RawPack): PackRow => ({
  ...row,
  credits: Number(row.credits),
  created_at: iso(row.created_at as Date)!,
  retired_at: row.retired_at ? iso(row.retired_at as Date)! : null,
});

/** Binds (or rebinds) a pack key to a price and a credit entitlement; a retired key comes back. */
export async function bindPack(tx: Tx, input: { pack_key: string; title: string; price_id: string; credits: number; live_mode: boolean }): Promise<PackRow> {
  const rows = await tx.query<RawPack>(
    `insert into billing_packs (pack_key, title, price_id, credits, live_mode) values (?, ?, ?, ?, ?)
     on conflict (pack_key) do update set title = excluded.title, price_id = excluded.price_id, credits = excluded.credits,
       live_mode = excluded.live_mode, retired_at = null
     returning *`,
    [input.pack_key, input.title, input.price_id, input.credits, input.live_mode],
  );
  return pack(rows[0]!);
}

export async function listPacks(tx: Tx, options: { include_retired?: boolean } = {}): Promise<PackRow[]> {
  const rows = await tx.query<RawPack>(`select * from billing_packs ${options.include_retired ? '' : 'where retired_at is null'} order by pack_key`);
  return rows.map(pack);
}

export async function findPack(tx: Tx, pack_key: string): Promise<PackRow | undefined> {
  const row = await tx.one<RawPack>('select * from billing_packs where pack_key = ? and retired_at is null', [pack_key]);
  return row ? pack(row) : undefined;
}

export async function retirePack(tx: Tx, pack_key: string): Promise<PackRow> {
  const row = await tx.one<RawPack>('update billing_packs set retired_at = coalesce(retired_at, now()) where pack_key = ? returning *', [pack_key]);
  if (!row) throw new ServiceError('NOT_FOUND', `Pack ${pack_key} was not found.`);
  return pack(row);
}

export type IntentRow = {
  id: string;
  owner_id: string;
  org_id: string | null;
  program_id: string | null;
  pack_key: string;
  price_id: string;
  amount: number;
  currency: string;
  credits: number;
  live_mode: boolean;
  return_url: string;
  status: IntentStatus;
  session_id: string | null;
  checkout_url: string | null;
  expires_at: string;
  transaction_id: string | null;
  conflict: string | null;
  flagged_reason: string | null;
  flagged_at: string | null;
  created_by: string;
  created_at: string;
  updated_at: string;
};

function intent(row: Record<string, unknown>): IntentRow {
  return {
    ...(row as unknown as IntentRow),
    amount: Number(row.amount),
    credits: Number(row.credits),
    expires_at: iso(row.expires_at as Date)!,
    flagged_at: row.flagged_at ? iso(row.flagged_at as Date)! : null,
    created_at: iso(row.created_at as Date)!,
    updated_at: iso(row.updated_at as Date)!,
  };
}

export async function findIntent(tx: Tx, id: string, options: { lock?: boolean } = {}): Promise<IntentRow | undefined> {
  if (options.lock) {
    const row = await tx.one('select * from purchase_intents where id = ? for update', [id]);
    return row ? intent(row) : undefined;
  }
  return cachedRow(tx, id, 'purchase', async () => {
    const row = await tx.one('select * from purchase_intents where id = ?', [id]);
    return row ? intent(row) : undefined;
  });
}

/**
 * Saves a new pending intent (spec: States, checkout → pending) after the rolling-hour limit: the owner's intents are
 * counted under a per-owner advisory lock so concurrent checkouts cannot both take the tenth place.
 */
export async function createIntent(
  tx: Tx,
  input: Omit<
    IntentRow,
    | 'id'
    | 'status'
    | 'session_id'
    | 'checkout_url'
    | 'transaction_id'
    | 'conflict'
    | 'flagged_reason'
    | 'flagged_at'
    | 'created_at'
    | 'updated_at'
    | 'expires_at'
  > & {
    lifetime_seconds: number;
  },
): Promise<IntentRow> {
  await tx.query('select pg_advisory_xact_lock(hashtext(?))', [`billing-owner:${input.owner_id}`]);
  const counted = await tx.one<{ n: number }>(`select count(*)::int as n from purchase_intents where owner_id = ? and created_at > now() - interval '1 hour'`, [
    input.owner_id,
  ]);
  if ((counted?.n ?? 0) >= NEW_INTENTS_PER_HOUR_MAX) {
    throw new ServiceError(
      'CONFLICT',
      `This owner started ${NEW_INTENTS_PER_HOUR_MAX} purchases within the last hour (the limit); finish or wait for one of them, or retry an earlier request with its Idempotency-Key.`,
      { reason: 'intent_limit', limit: NEW_INTENTS_PER_HOUR_MAX },
    );
  }
  const row = await tx.one(
    `insert into purchase_intents (id, owner_id, org_id, program_id, pack_key, price_id, amount, currency, credits, live_mode, return_url, status, expires_at, created_by)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', now() + (? || ' seconds')::interval, ?) returning *`,
    [
      newId('pi'),
      input.owner_id,
      input.org_id,
      input.program_id,
      input.pack_key,
      input.price_id,
      input.amount,
      input.currency,
      input.credits,
      input.live_mode,
      input.return_url,
      String(input.lifetime_seconds),
      input.created_by,
    ],
  );
  return intent(row!);
}

/** Keeps the provider's session on the intent (the first one wins; a later webhook can fill it in too). */
export async function saveSession(tx: Tx, intent_id: string, session: { id: string; url: string | null }): Promise<IntentRow> {
  await tx.query(
    'update purchase_intents set session_id = ?, checkout_url = coalesce(?, checkout_url), updated_at = now() where id = ? and session_id is null',
    [session.id, session.url, intent_id],
  );
  return (await findIntent(tx, intent_id))!;
}

export type Reconciliation = { kind: 'paid' } | { kind: 'failed' } | { kind: 'unpaid' } | { kind: 'conflict'; mismatch: string };

export type ReconcileResult = { intent_id: string; status: IntentStatus; outcome: string; transaction_id: string | null };

/**
 * Applies what the retrieved session says, in ONE transaction with the intent row locked (spec: Events rule 4): the small
 * event record, the intent's change and, for a paid completion, the credit grant. A repeated event finds the intent
 * completed and changes nothing; a late completion of a failed or refunded intent is flagged for an operator.
 */
export async function applyReconciliation(
  tx: Tx,
  input: { intent_id: string; session_id: string; trigger: ReconcileTrigger; result: Reconciliation; grant?: (tx: Tx, row: IntentRow) => Promise<string> },
): Promise<ReconcileResult> {
  const row = await findIntent(tx, input.intent_id, { lock: true });
  if (!row) throw new ServiceError('NOT_FOUND', `Purchase intent ${input.intent_id} was not found.`);
  if (!row.session_id) await tx.query('update purchase_intents set session_id = ? where id = ? and session_id is null', [input.session_id, row.id]);
  let outcome: string;
  let status = row.status;
  let transaction_id = row.transaction_id;
  const record = (what: string) =>
    tx.query('insert into billing_events (id, intent_id, session_id, trigger, outcome) values (?, ?, ?, ?, ?)', [
      newId('whk'),
      row.id,
      input.session_id,
      input.trigger,
      what,
    ]);
  const flag = (reason: string) =>
    tx.query('update purchase_intents set flagged_reason = ?, flagged_at = now(), updated_at = now() where id = ?', [reason, row.id]);
  const { result } = input;
  if (result.kind === 'conflict') {
    // spec: Events rule 3 — a mismatched payment is CONFLICT: recorded, nothing granted, an operator looks at it.
    outcome = 'conflict';
    await tx.query('update purchase_intents set conflict = ?, updated_at = now() where id = ?', [result.mismatch, row.id]);
    await flag(`the paid session does not match the intent (${result.mismatch})`);
  } else if (result.kind === 'paid') {
    if (row.status === 'pending') {
      transaction_id = input.grant ? await input.grant(tx, row) : await grantIntent(tx, row);
      status = 'completed';
      outcome = 'completed';
      await tx.query(`update purchase_intents set status = 'completed', transaction_id = ?, updated_at = now() where id = ?`, [transaction_id, row.id]);
    } else if (row.status === 'completed') {
      outcome = 'unchanged';
    } else {
      // spec: States — failed or refunded, late completion: unchanged, no grant, operator investigation.
      outcome = 'flagged';
      await flag(`a paid completion arrived for a ${row.status} intent`);
    }
  } else if (result.kind === 'failed') {
    outcome = row.status === 'pending' ? 'failed' : 'unchanged';
    if (row.status === 'pending') {
      status = 'failed';
      await tx.query(`update purchase_intents set status = 'failed', updated_at = now() where id = ?`, [row.id]);
    }
  } else {
    outcome = row.status === 'pending' ? 'pending' : 'unchanged';
  }
  await record(outcome);
  return { intent_id: row.id, status, outcome, transaction_id };
}

/**
 * The grant of a purchase: to the organization's own credits, or to the program's pool (spec: Checkout rules — funding
 * approves and allocates nothing). The transfer key makes a second attempt find the first.
 */
async function grantIntent(tx: Tx, row: IntentRow): Promise<string> {
  const common = {
    credits: row.credits,
    reason: `purchase of pack ${row.pack_key} (${row.id})`,
    caused_by: `billing:${row.id}`,
    kind: 'purchase' as const,
    transfer_id: grantTransferKey(row.id),
  };
  if (row.program_id) {
    const program = await findProgram(tx, row.program_id);
    if (!program) throw new ServiceError('INTERNAL', `invariant violated: intent ${row.id} names a missing program`);
    return (await fundProgramPool(tx, { program_id: program.id, ends_at: program.ends_at, ...common })).id;
  }
  if (!row.org_id) throw new ServiceError('INTERNAL', `invariant violated: intent ${row.id} has no owner`);
  return (await grantCredits(tx, { org_id: row.org_id, ...common })).id;
}

export async function listFlaggedIntents(tx: Tx): Promise<IntentRow[]> {
  return (await tx.query('select * from purchase_intents where flagged_at is not null order by flagged_at limit 500')).map(intent);
}

export async function listIntentEvents(
  tx: Tx,
  intent_id: string,
): Promise<Array<{ session_id: string; trigger: string; outcome: string; created_at: string }>> {
  const rows = await tx.query<{ session_id: string; trigger: string; outcome: string; created_at: Date }>(
    'select session_id, trigger, outcome, created_at from billing_events where intent_id = ? order by created_at, id',
    [intent_id],
  );
  return rows.map((r) => ({ ...r, created_at: iso(r.created_at)! }));
}

/**
 * An operator records that a completed purchase was refunded in the provider's dashboard (there is no cash-refund API):
 * the intent becomes refunded. Credits already granted are not taken back here: the operator decides that with an
 * adjustment, since some may be spent (docs/billing.md).
 */
export async function markRefunded(tx: Tx, intent_id: string, reason: string): Promise<IntentRow> {
  const row = await findIntent(tx, intent_id, { lock: true });
  if (!row) throw new ServiceError('NOT_FOUND', `Purchase intent ${intent_id} was not found.`);
  if (row.status !== 'completed') {
    throw new ServiceError('CONFLICT', `Purchase intent ${intent_id} is ${row.status}; only a completed purchase can be marked refunded.`);
  }
  await tx.query(`update purchase_intents set status = 'refunded', updated_at = now() where id = ?`, [row.id]);
  await tx.query('insert into billing_events (id, intent_id, session_id, trigger, outcome) values (?, ?, ?, ?, ?)', [
    newId('whk'),
    row.id,
    row.session_id ?? '',
    `operator refund: ${reason}`.slice(0, 200),
    'unchanged',
  ]);
  return (await findIntent(tx, intent_id))!;
}
