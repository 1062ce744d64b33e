// The credit ledger's SQL (ARCHITECTURE.md: The credit ledger). Double entry with two-phase transfers
// on TigerBeetle's model. Every write takes the caller's transaction, locks the accounts it touches in id order (a fixed
// order, so concurrent writers never deadlock on each other), checks balances under those locks, and relies on the
// CHECK constraints of 0002_credits as the backstop. Every write is idempotent by its transfer id.
//
// For other rooms (see docs/credits.md):
//   grantCredits, fundProgramPool, allocateCredits, adjustCredits — posted transfers
//   reserve, settle, release — the two-phase saga used by activities/ledger.ts
//   balances, listLedger, findTransfer, sponsoredUsage — reading
// A job's reservation at creation and its void when it never started are store/jobs.ts, on reserve and settle.
import { createHash } from 'node:crypto';
import {
  type AccountKind,
  type Balances,
  checkCredits,
  checkSubject,
  checkText,
  CREDITS_MAX,
  type FundingSource,
  insufficientCredits,
  planDraw,
  planSettlement,
  REASON_LENGTH_MAX,
  spendable,
  type Subject,
  type SubjectKind,
  SYSTEM_ACCOUNT_KINDS,
  TRANSFER_KEY_LENGTH_MAX,
  type TransferKind,
  type TransferStatus,
} from '../../domain/credits/rules.ts';
import type { Static } from 'typebox';
import type { CreditSource as CreditSourceBody, LedgerEntry, OrganizationCredits } from '../../domain/contracts/credits.ts';
import { invariant, ServiceError } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import { iso, isoRequired } from '../../domain/time.ts';
import type { Tx } from '../db.ts';

// ---------------------------------------------------------------------------------------------------------------------
// Ids and row conversion

/**
 * The ledger id of a caller's transfer id: a `txn_…` id is used as is; any other key (`run_x:reserve`) maps to a
 * deterministic `txn_` + 128 bits of its SHA-256, so a retried write finds the row its first attempt committed.
 */
export function transferIdFor(transfer_key: string): string {
  checkText(transfer_key, 'transfer_id', TRANSFER_KEY_LENGTH_MAX);
  if (/^txn_[0-9a-z]{16,60}$/.test(transfer_key)) return transfer_key;
  return `txn_${createHash('sha256').update(transfer_key).digest('hex').slice(0, 32)}`;
}

/** BIGINT arrives as number (PGlite), string (pg) or bigint; credits are safe integers by the CHECKs and the limits. */
function credits(value: unknown): number {
  const n = typeof value === 'number' ? value : Number(value);
  invariant(Number.isSafeInteger(n), `a ledger amount is a safe integer (got ${String(value)})`);
  return n;
}

type AccountRow = {
  id: string;
  kind: AccountKind;
  org_id: string | null;
  program_id: string | null;
  ends_at: unknown;
  debits_pending: unknown;
  debits_posted: unknown;
  credits_pending: unknown;
  credits_posted: unknown;
};

type Account = Balances & { id: string; kind: AccountKind; org_id: string | null; program_id: string | null; ends_at: string | null };

function account(row: AccountRow): Account {
  return {
    id: row.id,
    kind: row.kind,
    org_id: row.org_id,
    program_id: row.program_id,
    ends_at: iso(row.ends_at),
    debits_pending: credits(row.debits_pending),
    debits_posted: credits(row.debits_posted),
    credits_pending: credits(row.credits_pending),
    credits_posted: credits(row.credits_posted),
  };
}

type TransferRow = {
  id: string;
  transfer_key: string;
  kind: TransferKind;
  status: TransferStatus;
  amount: unknown;
  available_change: unknown;
  org_id: string | null;
  program_id: string | null;
  pending_id: string | null;
  reason: string;
  subject_project_id: string | null;
  subject_kind: SubjectKind | null;
  subject_id: string | null;
  caused_by: string;
  created_at: unknown;
  resolved_at: unknown;
  legs?: unknown;
};

export type TransferSource = { source: 'own' | 'sponsored'; program_id: string | null; credits: number };

/** One ledger entry as the API and other rooms see it (domain/contracts/credits.ts). */
export type TransferView = Static<typeof LedgerEntry>;

function sourcesOf(legs: unknown): TransferSource[] {
  const list = (typeof legs === 'string' ? JSON.parse(legs) : (legs ?? [])) as { program_id: string | null; credits: unknown }[];
  return list.map((leg) => ({ source: leg.program_id ? 'sponsored' : 'own', program_id: leg.program_id, credits: credits(leg.credits) }));
}

function transferView(row: TransferRow): TransferView {
  return {
    id: row.id,
    kind: row.kind,
    status: row.status,
    credits: credits(row.amount),
    available_change_credits: credits(row.available_change),
    org_id: row.org_id,
    program_id: row.program_id,
    reservation_id: row.pending_id,
    reason: row.reason,
    subject: row.subject_kind ? { project_id: row.subject_project_id!, kind: row.subject_kind, id: row.subject_id! } : null,
    caused_by: row.caused_by,
    sources: sourcesOf(row.legs),
    created_at: isoRequired(row.created_at),
    resolved_at: iso(row.resolved_at),
  };
}

const LEGS_JSON = `(select coalesce(json_agg(json_build_object('program_id', l.program_id, 'credits', l.amount) order by l.leg_no), '[]'::json)
  from credit_legs l where l.transfer_id = t.id) as legs`;

export async function findTransfer(tx: Tx, id: string): Promise<TransferView | undefined> {
  const row = await tx.one<TransferRow>(`select t.*, ${LEGS_JSON} from credit_transfers t where t.id = ?`, [id]);
  return row && transferView(row);
}

// ---------------------------------------------------------------------------------------------------------------------
// Accounts

const ACCOUNT_KEY: Record<AccountKind, string> = {
  org_own: 'org_id = ? and program_id is null',
  system_usage: 'org_id = ? and program_id is null',
  program_pool: 'program_id = ? and org_id is null',
  sponsored: 'program_id = ? and org_id = ?',
  system_issuance: 'org_id is null and program_id is null',
};

/** Finds or creates the one account of a kind for its owner; concurrent creators meet on the partial unique indexes. */
async function ensureAccount(tx: Tx, kind: AccountKind, owner: { org_id?: string; program_id?: string; ends_at?: string }): Promise<string> {
  const key =
    kind === 'sponsored' ? [owner.program_id, owner.org_id] : kind === 'program_pool' ? [owner.program_id] : kind === 'system_issuance' ? [] : [owner.org_id];
  const find = () => tx.one<{ id: string }>(`select id from credit_accounts where kind = ? and ${ACCOUNT_KEY[kind]}`, [kind, ...key]);
  const found = await find();
  if (found) return found.id;
  await tx.query('insert into credit_accounts (id, kind, org_id, program_id, ends_at) values (?, ?, ?, ?, ?) on conflict do nothing', [
    newId('acct'),
    kind,
    owner.org_id ?? null,
    owner.program_id ?? null,
    owner.ends_at ?? null,
  ]);
  const created = await find();
  invariant(created, `the ${kind} account exists after creation`);
  return created.id;
}

/** Locks accounts in id order (the fixed order every ledger write uses) and returns them by id. */
async function lockAccounts(tx: Tx, ids: string[]): Promise<Map<string, Account>> {
  const unique = [...new Set(ids)].sort();
  const rows = await tx.query<AccountRow>(`select * from credit_accounts where id in (${unique.map(() => '?').join(', ')}) order by id for update`, unique);
  invariant(rows.length === unique.length, 'every account a transfer names exists');
  return new Map(rows.map((row) => [row.id, account(row)]));
}

type Delta = { debits_pending: number; debits_posted: number; credits_pending: number; credits_posted: number };

function addDelta(deltas: Map<string, Delta>, id: string, change: Partial<Delta>): void {
  const d = deltas.get(id) ?? { debits_pending: 0, debits_posted: 0, credits_pending: 0, credits_posted: 0 };
  d.debits_pending += change.debits_pending ?? 0;
  d.debits_posted += change.debits_posted ?? 0;
  d.credits_pending += change.credits_pending ?? 0;
  d.credits_posted += change.credits_posted ?? 0;
  deltas.set(id, d);
}

type Leg = { leg_no: number; debit_account_id: string; credit_account_id: string; amount: number; program_id: string | null };

/**
 * Inserts legs, applies the account deltas (rows already locked by `lockAccounts`) and runs one more statement, all in
 * one round trip: data-modifying CTEs, so a hot account's lock is held for as short a time as possible.
 */
async function writeLegsAndDeltas(
  tx: Tx,
  transfer_id: string,
  legs: Leg[],
  deltas: Map<string, Delta>,
  extra?: { sql: string; params: unknown[] },
): Promise<void> {
  const parts: string[] = [];
  const params: unknown[] = [];
  if (legs.length > 0) {
    parts.push(
      `legs as (insert into credit_legs (transfer_id, leg_no, debit_account_id, credit_account_id, amount, program_id) values ${legs.map(() => '(?, ?, ?, ?, ?, ?)').join(', ')})`,
    );
    for (const leg of legs) params.push(transfer_id, leg.leg_no, leg.debit_account_id, leg.credit_account_id, leg.amount, leg.program_id);
  }
  if (deltas.size > 0) {
    const tuples: string[] = [];
    for (const [id, d] of [...deltas].sort(([a], [b]) => (a < b ? -1 : 1))) {
      tuples.push('(?::text, ?::bigint, ?::bigint, ?::bigint, ?::bigint)');
      params.push(id, d.debits_pending, d.debits_posted, d.credits_pending, d.credits_posted);
    }
    parts.push(`balances as (update credit_accounts a set
       debits_pending = a.debits_pending + v.dpe, debits_posted = a.debits_posted + v.dpo,
       credits_pending = a.credits_pending + v.cpe, credits_posted = a.credits_posted + v.cpo
     from (values ${tuples.join(', ')}) as v(id, dpe, dpo, cpe, cpo) where a.id = v.id)`);
  }
  if (extra) {
    parts.push(`extra as (${extra.sql})`);
    params.push(...extra.params);
  }
  if (parts.length === 0) return;
  await tx.query(`with ${parts.join(', ')} select 1`, params);
}

type NewTransfer = {
  id: string;
  transfer_key: string;
  kind: TransferKind;
  status: TransferStatus;
  amount: number;
  available_change: number;
  org_id: string | null;
  program_id: string | null;
  pending_id: string | null;
  reason: string;
  subject: Subject | null;
  caused_by: string;
};

/**
 * Inserts the transfer row first: a concurrent or retried write with the same id waits here, then finds it.
 * Every unique index is an arbiter (no conflict target): with `(id)` alone, two racing inserts of one transfer could
 * pass the id check and collide on the non-arbiter transfer_key index, raising instead of waiting.
 */
async function insertTransfer(tx: Tx, t: NewTransfer): Promise<boolean> {
  const row = await tx.one(
    `insert into credit_transfers (id, transfer_key, kind, status, amount, available_change, org_id, program_id, pending_id, reason,
       subject_project_id, subject_kind, subject_id, caused_by)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict do nothing returning id`,
    [
      t.id,
      t.transfer_key,
      t.kind,
      t.status,
      t.amount,
      t.available_change,
      t.org_id,
      t.program_id,
      t.pending_id,
      t.reason,
      t.subject?.project_id ?? null,
      t.subject?.kind ?? null,
      t.subject?.id ?? null,
      t.caused_by,
    ],
  );
  return row !== undefined;
}

function reusedTransferId(id: string, existing: TransferView): ServiceError {
  return new ServiceError(
    'CONFLICT',
    `Transfer id ${id} was already used for a different ledger write (a ${existing.kind} of ${existing.credits} credits); use a new transfer id.`,
    { transfer_id: id, existing_kind: existing.kind },
  );
}

async function requireOrganization(tx: Tx, org_id: string): Promise<void> {
  if (!(await tx.one('select 1 from organizations where id = ?', [org_id]))) throw new ServiceError('NOT_FOUND', `Organization ${org_id} was not found.`);
}

// ---------------------------------------------------------------------------------------------------------------------
// Posted transfers: grant, purchase, allocation, adjustment

type PostedInput = {
  transfer_key: string;
  kind: TransferKind;
  debit_account_id: string;
  credit_account_id: string;
  amount: number;
  available_change: number;
  org_id: string | null;
  program_id: string | null;
  reason: string;
  caused_by: string;
  /** How to name the debited balance when it cannot cover the amount. */
  debit_label: string;
};

async function postTransfer(tx: Tx, input: PostedInput): Promise<TransferView> {
  const id = transferIdFor(input.transfer_key);
  const inserted = await insertTransfer(tx, { ...input, id, status: 'posted', pending_id: null, subject: null });
  if (!inserted) {
    const existing = (await findTransfer(tx, id))!;
    if (existing.kind !== input.kind || existing.credits !== input.amount || existing.org_id !== input.org_id || existing.program_id !== input.program_id) {
      throw reusedTransferId(input.transfer_key, existing);
    }
    return existing;
  }
  const accounts = await lockAccounts(tx, [input.debit_account_id, input.credit_account_id]);
  const debit = accounts.get(input.debit_account_id)!;
  if (!SYSTEM_ACCOUNT_KINDS.includes(debit.kind) && spendable(debit) < input.amount) {
    throw insufficientCredits(spendable(debit), input.amount, input.debit_label);
  }
  const deltas = new Map<string, Delta>();
  addDelta(deltas, input.debit_account_id, { debits_posted: input.amount });
  addDelta(deltas, input.credit_account_id, { credits_posted: input.amount });
  await writeLegsAndDeltas(
    tx,
    id,
    [{ leg_no: 1, debit_account_id: input.debit_account_id, credit_account_id: input.credit_account_id, amount: input.amount, program_id: input.program_id }],
    deltas,
  );
  return (await findTransfer(tx, id))!;
}

/** Issues credits to an organization's own balance (operator grants; billing passes kind 'purchase'). */
export async function grantCredits(
  tx: Tx,
  input: { org_id: string; credits: number; reason: string; caused_by: string; kind?: 'grant' | 'purchase'; transfer_id?: string },
): Promise<TransferView> {
  const amount = checkCredits(input.credits, 'credits');
  const reason = checkText(input.reason, 'reason', REASON_LENGTH_MAX);
  await requireOrganization(tx, input.org_id);
  const issuance = await ensureAccount(tx, 'system_issuance', {});
  const own = await ensureAccount(tx, 'org_own', { org_id: input.org_id });
  return postTransfer(tx, {
    transfer_key: input.transfer_id ?? newId('txn'),
    kind: input.kind ?? 'grant',
    debit_account_id: issuance,
    credit_account_id: own,
    amount,
    available_change: amount,
    org_id: input.org_id,
    program_id: null,
    reason,
    caused_by: input.caused_by,
    debit_label: 'the issuance account',
  });
}

/** Creates a sponsor program's pool account if missing (sponsor room, at program creation). */
export async function ensureProgramPool(tx: Tx, input: { program_id: string; ends_at: string }): Promise<string> {
  return ensureAccount(tx, 'program_pool', { program_id: checkText(input.program_id, 'program_id', 64), ends_at: input.ends_at });
}

/** Puts credits into a sponsor program's pool (a grant by an operator, or a program's purchase). */
export async function fundProgramPool(
  tx: Tx,
  input: { program_id: string; ends_at: string; credits: number; reason: string; caused_by: string; kind?: 'grant' | 'purchase'; transfer_id?: string },
): Promise<TransferView> {
  const amount = checkCredits(input.credits, 'credits');
  const reason = checkText(input.reason, 'reason', REASON_LENGTH_MAX);
  const issuance = await ensureAccount(tx, 'system_issuance', {});
  const pool = await ensureProgramPool(tx, input);
  return postTransfer(tx, {
    transfer_key: input.transfer_id ?? newId('txn'),
    kind: input.kind ?? 'grant',
    debit_account_id: issuance,
    credit_account_id: pool,
    amount,
    available_change: 0,
    org_id: null,
    program_id: input.program_id,
    reason,
    caused_by: input.caused_by,
    debit_label: 'the issuance account',
  });
}

/**
 * Moves credits from a program's pool to the (program, organization) sponsored balance, which inherits the pool's
 * ends_at. The sponsor room checks the program's rules (window, cap, enrollment) before calling. 402 when the pool is short.
 */
export async function allocateCredits(
  tx: Tx,
  input: { program_id: string; org_id: string; credits: number; reason: string; caused_by: string; transfer_id?: string },
): Promise<TransferView> {
  const amount = checkCredits(input.credits, 'credits');
  const reason = checkText(input.reason, 'reason', REASON_LENGTH_MAX);
  await requireOrganization(tx, input.org_id);
  const pool = await tx.one<{ id: string; ends_at: unknown }>(`select id, ends_at from credit_accounts where kind = 'program_pool' and program_id = ?`, [
    input.program_id,
  ]);
  if (!pool) throw new ServiceError('NOT_FOUND', `Program ${input.program_id} has no credit pool; fund it first.`);
  const sponsored = await ensureAccount(tx, 'sponsored', { program_id: input.program_id, org_id: input.org_id, ends_at: isoRequired(pool.ends_at) });
  await ensureAccount(tx, 'system_usage', { org_id: input.org_id });
  return postTransfer(tx, {
    transfer_key: input.transfer_id ?? newId('txn'),
    kind: 'allocation',
    debit_account_id: pool.id,
    credit_account_id: sponsored,
    amount,
    available_change: amount,
    org_id: input.org_id,
    program_id: input.program_id,
    reason,
    caused_by: input.caused_by,
    debit_label: `program ${input.program_id}'s pool`,
  });
}

/** An operator correction of an organization's own credits: positive adds, negative removes (402 if not covered). */
export async function adjustCredits(
  tx: Tx,
  input: { org_id: string; credits_change: number; reason: string; caused_by: string; transfer_id?: string },
): Promise<TransferView> {
  const amount = checkCredits(Math.abs(input.credits_change), 'credits_change');
  const reason = checkText(input.reason, 'reason', REASON_LENGTH_MAX);
  await requireOrganization(tx, input.org_id);
  const issuance = await ensureAccount(tx, 'system_issuance', {});
  const own = await ensureAccount(tx, 'org_own', { org_id: input.org_id });
  const adding = input.credits_change > 0;
  return postTransfer(tx, {
    transfer_key: input.transfer_id ?? newId('txn'),
    kind: 'adjustment',
    debit_account_id: adding ? issuance : own,
    credit_account_id: adding ? own : issuance,
    amount,
    available_change: input.credits_change,
    org_id: input.org_id,
    program_id: null,
    reason,
    caused_by: input.caused_by,
    debit_label: 'the organization',
  });
}

// ---------------------------------------------------------------------------------------------------------------------
// Two-phase: reserve, settle, release

export type ReservationLeg = { leg_no: number; source: 'own' | 'sponsored'; program_id: string | null; credits: number };
export type ReservationView = { reservation_id: string; status: TransferStatus; credits_reserved: number; legs: ReservationLeg[] };

function reservationView(t: TransferView): ReservationView {
  return {
    reservation_id: t.id,
    status: t.status,
    credits_reserved: t.credits,
    legs: t.sources.map((s, index) => ({ leg_no: index + 1, ...s })),
  };
}

const ORG_FUNDING_KINDS = `('org_own', 'sponsored', 'system_usage')`;

async function lockOrgAccounts(tx: Tx, org_id: string): Promise<Account[]> {
  const rows = await tx.query<AccountRow>(`select * from credit_accounts where org_id = ? and kind in ${ORG_FUNDING_KINDS} order by id for update`, [org_id]);
  return rows.map(account);
}

/**
 * Holds `credits` for an evaluation subject: a pending transfer drawing sponsored balances first (the program ending
 * soonest first), then the organization's own credits. 402 INSUFFICIENT_CREDITS naming available and needed when the
 * balances cannot cover it. Idempotent by transfer_id: a repeated call returns the first reservation.
 */
export async function reserve(
  tx: Tx,
  input: { transfer_id: string; org_id: string; subject: Subject | null; credits: number; reason: string; caused_by: string },
): Promise<ReservationView> {
  const amount = checkCredits(input.credits, 'credits');
  const reason = checkText(input.reason, 'reason', REASON_LENGTH_MAX);
  const subject = checkSubject(input.subject);
  const id = transferIdFor(input.transfer_id);
  const inserted = await insertTransfer(tx, {
    id,
    transfer_key: input.transfer_id,
    kind: 'reservation',
    status: 'pending',
    amount,
    available_change: -amount,
    org_id: input.org_id,
    program_id: null,
    pending_id: null,
    reason,
    subject,
    caused_by: input.caused_by,
  }).catch(async (error) => {
    if ((error as { code?: string }).code === '23503') throw new ServiceError('NOT_FOUND', `Organization ${input.org_id} was not found.`);
    throw error;
  });
  if (!inserted) {
    const existing = (await findTransfer(tx, id))!;
    if (existing.kind !== 'reservation' || existing.credits !== amount || existing.org_id !== input.org_id) throw reusedTransferId(input.transfer_id, existing);
    return reservationView(existing);
  }
  let accounts = await lockOrgAccounts(tx, input.org_id);
  if (!accounts.some((a) => a.kind === 'system_usage') || !accounts.some((a) => a.kind === 'org_own')) {
    // First reservation of this organization: create its own and usage accounts, then lock again in id order.
    await ensureAccount(tx, 'org_own', { org_id: input.org_id });
    await ensureAccount(tx, 'system_usage', { org_id: input.org_id });
    accounts = await lockOrgAccounts(tx, input.org_id);
  }
  const usage = accounts.find((a) => a.kind === 'system_usage')!;
  const sources: FundingSource[] = accounts
    .filter((a) => a.kind === 'org_own' || a.kind === 'sponsored')
    .map((a) => ({
      account_id: a.id,
      kind: a.kind as 'org_own' | 'sponsored',
      program_id: a.program_id,
      ends_at_ms: a.ends_at ? Date.parse(a.ends_at) : null,
      spendable_credits: spendable(a),
    }));
  const plan = planDraw(sources, amount, Date.now());
  if (!plan.ok) throw insufficientCredits(plan.available_credits, amount, undefined, input.org_id);
  const legs: Leg[] = plan.draws.map((draw, index) => ({
    leg_no: index + 1,
    debit_account_id: draw.account_id,
    credit_account_id: usage.id,
    amount: draw.credits,
    program_id: draw.program_id,
  }));
  const deltas = new Map<string, Delta>();
  for (const leg of legs) {
    addDelta(deltas, leg.debit_account_id, { debits_pending: leg.amount });
    addDelta(deltas, leg.credit_account_id, { credits_pending: leg.amount });
  }
  await writeLegsAndDeltas(tx, id, legs, deltas);
  return {
    reservation_id: id,
    status: 'pending',
    credits_reserved: amount,
    legs: legs.map((leg) => ({ leg_no: leg.leg_no, source: leg.program_id ? 'sponsored' : 'own', program_id: leg.program_id, credits: leg.amount })),
  };
}

export type ResolutionView = {
  transfer_id: string;
  reservation_id: string;
  /** 'release' also when a settlement used nothing: no credits were posted. */
  kind: 'settlement' | 'release';
  credits_posted: number;
  credits_voided: number;
};

function resolutionView(t: TransferView, reserved: number): ResolutionView {
  const credits_posted = t.kind === 'settlement' ? t.credits : 0;
  return {
    transfer_id: t.id,
    reservation_id: t.reservation_id!,
    kind: t.kind as 'settlement' | 'release',
    credits_posted,
    credits_voided: reserved - credits_posted,
  };
}

type ResolveInput = { transfer_id: string; reservation_id: string; credits_used: number | null; reason?: string; caused_by?: string };
type LockedReservation = TransferRow & { leg_rows: unknown };

/** The reservation row, locked: the lock every resolution of it queues on; its legs come along in the same round trip. */
async function lockReservation(tx: Tx, reservation_id: string): Promise<LockedReservation | undefined> {
  return tx.one<LockedReservation>(
    `select t.*, (select json_agg(json_build_object('leg_no', l.leg_no, 'debit_account_id', l.debit_account_id, 'credit_account_id', l.credit_account_id,
       'amount', l.amount, 'program_id', l.program_id) order by l.leg_no) from credit_legs l where l.transfer_id = t.id) as leg_rows
     from credit_transfers t where t.id = ? for update of t`,
    [reservation_id],
  );
}

/** A transfer id used before: the same resolution again answers what it committed; anything else is refused. */
async function replayResolution(tx: Tx, input: ResolveInput, existing: TransferView): Promise<ResolutionView> {
  const credits_used = input.credits_used ?? 0;
  const reservation = (await findTransfer(tx, input.reservation_id))!;
  const view = resolutionView(existing, reservation.credits);
  const asked = input.credits_used === null ? 'release' : credits_used > 0 ? 'settlement' : 'release';
  if (existing.reservation_id !== input.reservation_id || view.kind !== asked || view.credits_posted !== credits_used)
    throw reusedTransferId(input.transfer_id, existing);
  return view;
}

/** No pending reservation to resolve: a replay of this very resolution, or the reason it cannot happen. */
async function unresolvable(tx: Tx, input: ResolveInput, id: string, reservation: LockedReservation | undefined): Promise<ResolutionView> {
  if (reservation?.kind !== 'reservation') {
    const existing = await findTransfer(tx, id);
    if (existing) throw reusedTransferId(input.transfer_id, existing);
    throw new ServiceError('NOT_FOUND', `Reservation ${input.reservation_id} was not found.`);
  }
  const resolver = await tx.one<{ id: string }>('select id from credit_transfers where pending_id = ?', [input.reservation_id]);
  // Resolved by this very transfer id: a retried or concurrent call finds what the first one committed.
  if (resolver?.id === id) return replayResolution(tx, input, (await findTransfer(tx, id))!);
  const existing = await findTransfer(tx, id);
  if (existing) throw reusedTransferId(input.transfer_id, existing);
  throw new ServiceError(
    'CONFLICT',
    `Reservation ${input.reservation_id} was already ${reservation.status === 'posted' ? 'settled' : 'released'} by ${resolver?.id}; it resolves once.`,
    {
      reservation_id: input.reservation_id,
      resolved_by: resolver?.id ?? null,
    },
  );
}

/** A settlement posts at most what was reserved. */
function checkCreditsUsed(input: ResolveInput, reserved: number): void {
  const credits_used = input.credits_used ?? 0;
  if (input.credits_used !== null) checkCredits(credits_used, 'credits_used', 0);
  if (credits_used > reserved) {
    throw new ServiceError(
      'VALIDATION_FAILED',
      `credits_used (${credits_used}) exceeds the ${reserved} credits reserved by ${input.reservation_id}; a settlement posts at most the reservation.`,
      [{ path: '/credits_used', message: `must be at most ${reserved}` }],
    );
  }
}

function reservedLegs(reservation: LockedReservation): Leg[] {
  const legRows = (typeof reservation.leg_rows === 'string' ? JSON.parse(reservation.leg_rows) : reservation.leg_rows) as {
    leg_no: number;
    debit_account_id: string;
    credit_account_id: string;
    amount: unknown;
    program_id: string | null;
  }[];
  return legRows.map((l) => ({ ...l, amount: credits(l.amount) }));
}

/** The resolving transfer's row; throws when its id already names some other ledger write. */
async function insertResolution(tx: Tx, input: ResolveInput, id: string, reservation: LockedReservation, reserved: number): Promise<'settlement' | 'release'> {
  const credits_used = input.credits_used ?? 0;
  const kind = credits_used > 0 ? 'settlement' : 'release';
  const inserted = await insertTransfer(tx, {
    id,
    transfer_key: input.transfer_id,
    kind,
    status: 'posted',
    amount: kind === 'settlement' ? credits_used : reserved,
    available_change: reserved - credits_used,
    org_id: reservation.org_id,
    program_id: null,
    pending_id: input.reservation_id,
    reason: checkText(input.reason ?? `${kind} of ${input.reservation_id}`, 'reason', REASON_LENGTH_MAX),
    subject: reservation.subject_kind ? { project_id: reservation.subject_project_id!, kind: reservation.subject_kind, id: reservation.subject_id! } : null,
    caused_by: input.caused_by ?? reservation.caused_by,
  });
  // The id is taken while the reservation is still pending: it names some other ledger write.
  if (!inserted) throw reusedTransferId(input.transfer_id, (await findTransfer(tx, id))!);
  return kind;
}

/**
 * One ledger transaction resolving a reservation. Its locks keep their order: the reservation row first (every
 * resolution of it queues there), then the accounts of its legs in lockAccounts' fixed order.
 */
async function resolve(tx: Tx, input: ResolveInput): Promise<ResolutionView> {
  const id = transferIdFor(input.transfer_id);
  const credits_used = input.credits_used ?? 0;
  const reservation = await lockReservation(tx, input.reservation_id);
  if (reservation?.kind !== 'reservation' || reservation.status !== 'pending') return unresolvable(tx, input, id, reservation);
  const reserved = credits(reservation.amount);
  checkCreditsUsed(input, reserved);
  const legs = reservedLegs(reservation);
  const plan = planSettlement(
    legs.map((l) => ({ leg_no: l.leg_no, credits: l.amount })),
    credits_used,
  );
  const kind = await insertResolution(tx, input, id, reservation, reserved);
  await lockAccounts(
    tx,
    legs.flatMap((l) => [l.debit_account_id, l.credit_account_id]),
  );
  const deltas = new Map<string, Delta>();
  const posted: Leg[] = [];
  for (const leg of legs) {
    const step = plan.find((p) => p.leg_no === leg.leg_no)!;
    addDelta(deltas, leg.debit_account_id, { debits_pending: -leg.amount, debits_posted: step.credits_posted });
    addDelta(deltas, leg.credit_account_id, { credits_pending: -leg.amount, credits_posted: step.credits_posted });
    // The settlement's legs keep the reservation's leg numbers, so each posting names the balance it came from.
    if (step.credits_posted > 0) posted.push({ ...leg, amount: step.credits_posted });
  }
  await writeLegsAndDeltas(tx, id, posted, deltas, {
    sql: 'update credit_transfers set status = ?, resolved_at = now() where id = ?',
    params: [kind === 'settlement' ? 'posted' : 'voided', input.reservation_id],
  });
  return { transfer_id: id, reservation_id: input.reservation_id, kind, credits_posted: credits_used, credits_voided: reserved - credits_used };
}

/**
 * Posts `credits_used` of a reservation (legs consumed in their order) and voids the rest. A settlement of 0 is
 * recorded as a release. Idempotent by transfer_id; a reservation resolves at most once (409 CONFLICT otherwise).
 */
export async function settle(
  tx: Tx,
  input: { transfer_id: string; reservation_id: string; credits_used: number; reason?: string; caused_by?: string },
): Promise<ResolutionView> {
  checkCredits(input.credits_used, 'credits_used', 0);
  return resolve(tx, input);
}

/** Voids a reservation: nothing is charged. Idempotent by transfer_id. */
export async function release(tx: Tx, input: { transfer_id: string; reservation_id: string; reason?: string; caused_by?: string }): Promise<ResolutionView> {
  return resolve(tx, { ...input, credits_used: null });
}

// ---------------------------------------------------------------------------------------------------------------------
// Reading

/** Balances as the API returns them (domain/contracts/credits.ts). */
export type CreditSource = Static<typeof CreditSourceBody>;
export type CreditBalances = Omit<Static<typeof OrganizationCredits>, 'add_credits'>;

/** Available (spendable now) and reserved credits, in total and per source, in funding order. */
export async function balances(tx: Tx, org_id: string, now_ms = Date.now()): Promise<CreditBalances> {
  const rows = await tx.query<AccountRow>(
    `select * from credit_accounts where org_id = ? and kind in ('org_own', 'sponsored') order by kind desc, ends_at, id`,
    [org_id],
  );
  const sources: CreditSource[] = [];
  let available_credits = 0;
  let reserved_credits = 0;
  for (const a of rows.map(account)) {
    const ended = a.kind === 'sponsored' && Date.parse(a.ends_at!) <= now_ms;
    const available = ended ? 0 : spendable(a);
    available_credits += available;
    reserved_credits += a.debits_pending;
    if (a.kind === 'org_own') sources.push({ source: 'own', available_credits: available, reserved_credits: a.debits_pending });
    else
      sources.push({
        source: 'sponsored',
        program_id: a.program_id!,
        ends_at: a.ends_at!,
        ended,
        available_credits: available,
        reserved_credits: a.debits_pending,
      });
  }
  // Own credits last: the order a reservation draws in.
  sources.sort((a, b) => (a.source === b.source ? 0 : a.source === 'sponsored' ? -1 : 1));
  if (!sources.some((s) => s.source === 'own')) sources.push({ source: 'own', available_credits: 0, reserved_credits: 0 });
  return { org_id, available_credits, reserved_credits, sources };
}

/** An organization's ledger, newest first; fetches limit+1 rows for `page()`. */
export async function listLedger(tx: Tx, org_id: string, offset: number, limit: number): Promise<TransferView[]> {
  const rows = await tx.query<TransferRow>(`select t.*, ${LEGS_JSON} from credit_transfers t where t.org_id = ? order by t.seq desc offset ? limit ?`, [
    org_id,
    offset,
    limit + 1,
  ]);
  return rows.map(transferView);
}

/**
 * What a sponsor report needs for one program (spec: Sponsor institution and program — program report): settled and
 * held sponsored credits, allocated credits, the pool's balance and distinct subjects with sponsored reservations.
 */
export async function sponsoredUsage(
  tx: Tx,
  program_id: string,
): Promise<{ pool_balance: number; credits_allocated: number; credits_used: number; credits_reserved: number; evaluations_funded: number }> {
  const row = await tx.one<Record<string, unknown>>(
    `select
       coalesce(sum(l.amount) filter (where t.kind = 'allocation'), 0) as credits_allocated,
       coalesce(sum(l.amount) filter (where t.kind = 'settlement'), 0) as credits_used,
       coalesce(sum(l.amount) filter (where t.kind = 'reservation' and t.status = 'pending'), 0) as credits_reserved,
       count(distinct t.subject_kind || ':' || t.subject_id) filter (where t.kind = 'reservation') as evaluations_funded
     from credit_legs l join credit_transfers t on t.id = l.transfer_id
     where l.program_id = ?`,
    [program_id],
  );
  const pool = await tx.one<AccountRow>(`select * from credit_accounts where kind = 'program_pool' and program_id = ?`, [program_id]);
  return {
    pool_balance: pool ? spendable(account(pool)) : 0,
    credits_allocated: credits(row!.credits_allocated),
    credits_used: credits(row!.credits_used),
    credits_reserved: credits(row!.credits_reserved),
    evaluations_funded: credits(row!.evaluations_funded),
  };
}

/** Whole-ledger sums: in double entry, debits equal credits, posted and pending alike (used by tests and checks). */
export async function ledgerTotals(tx: Tx): Promise<Balances & { negative_spendable_accounts: number }> {
  const row = await tx.one<Record<string, unknown>>(
    `select coalesce(sum(debits_pending), 0) as debits_pending, coalesce(sum(debits_posted), 0) as debits_posted,
            coalesce(sum(credits_pending), 0) as credits_pending, coalesce(sum(credits_posted), 0) as credits_posted,
            count(*) filter (where kind not in ('system_issuance', 'system_usage') and credits_posted - debits_posted - debits_pending < 0) as negative_spendable_accounts
     from credit_accounts`,
  );
  return {
    debits_pending: credits(row!.debits_pending),
    debits_posted: credits(row!.debits_posted),
    credits_pending: credits(row!.credits_pending),
    credits_posted: credits(row!.credits_posted),
    negative_spendable_accounts: credits(row!.negative_spendable_accounts),
  };
}

export { CREDITS_MAX };
