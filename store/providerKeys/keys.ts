// Provider keys of an organization (spec: Provider key). One live key per (organization, provider): storing a new one
// revokes the previous one in the same transaction (docs/decisions.md). Revocation destroys the ciphertext, nonce and tag.
import type { Static } from 'typebox';
import type { ByokProvider } from '../../domain/ai/keys.ts';
import type { ProviderKey } from '../../domain/contracts/providerKeys.ts';
import { lastFour } from '../../domain/ai/keys.ts';
import { ServiceError } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import { iso, isoRequired } from '../../domain/time.ts';
import type { Tx } from '../db.ts';
import { openProviderKey, ProviderKeyDecryptionError, sealProviderKey, type SealedKey } from './crypto.ts';

/** What a listing may show: never more than the last four characters (spec: Provider key). */
/** A provider key as the API shows it (domain/contracts/providerKeys.ts). */
export type ProviderKeyView = Static<typeof ProviderKey>;

const VIEW_COLUMNS = 'id, provider, label, last4, created_at, revoked_at';

function view(row: Record<string, unknown>): ProviderKeyView {
  return {
    id: row.id as string,
    provider: row.provider as ByokProvider,
    label: row.label as string,
    last4: row.last4 as string,
    created_at: isoRequired(row.created_at),
    revoked_at: iso(row.revoked_at),
  };
}

const bytes = (value: unknown): Buffer => Buffer.from(value as Uint8Array);

/** Stores a key sealed under the master key and revokes the organization's previous live key for the provider. */
export async function addProviderKey(
  tx: Tx,
  master_key: Buffer | null,
  input: { org_id: string; provider: ByokProvider; label: string; api_key: string; created_by: string },
): Promise<{ key: ProviderKeyView; replaced_key_id: string | null }> {
  // Serializes adds per organization so the one-live-key index never races.
  await tx.query('select id from organizations where id = ? for update', [input.org_id]);
  const replaced = await tx.query<{ id: string }>(
    `update provider_keys set revoked_at = now(), revoked_by = ?, ciphertext = null, nonce = null, auth_tag = null
     where org_id = ? and provider = ? and revoked_at is null returning id`,
    [input.created_by, input.org_id, input.provider],
  );
  const id = newId('key');
  const sealed = sealProviderKey(master_key, { org_id: input.org_id, key_id: id }, input.api_key);
  const [row] = await tx.query(
    `insert into provider_keys (id, org_id, provider, label, last4, ciphertext, nonce, auth_tag, created_by)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?) returning ${VIEW_COLUMNS}`,
    [id, input.org_id, input.provider, input.label, lastFour(input.api_key), sealed.ciphertext, sealed.nonce, sealed.auth_tag, input.created_by],
  );
  return { key: view(row!), replaced_key_id: replaced[0]?.id ?? null };
}

/** The organization's keys, live and revoked, newest first (limit+1 rows for paging). */
export async function listProviderKeys(tx: Tx, org_id: string, offset: number, limit: number): Promise<ProviderKeyView[]> {
  const rows = await tx.query(`select ${VIEW_COLUMNS} from provider_keys where org_id = ? order by created_at desc, id desc offset ? limit ?`, [
    org_id,
    offset,
    limit + 1,
  ]);
  return rows.map(view);
}

/** Revokes a key and destroys its ciphertext, nonce and tag. Revoking a revoked key returns it unchanged. */
export async function revokeProviderKey(tx: Tx, org_id: string, key_id: string, revoked_by: string): Promise<ProviderKeyView> {
  const [updated] = await tx.query(
    `update provider_keys set revoked_at = now(), revoked_by = ?, ciphertext = null, nonce = null, auth_tag = null
     where id = ? and org_id = ? and revoked_at is null returning ${VIEW_COLUMNS}`,
    [revoked_by, key_id, org_id],
  );
  if (updated) return view(updated);
  const existing = await tx.one(`select ${VIEW_COLUMNS} from provider_keys where id = ? and org_id = ?`, [key_id, org_id]);
  if (!existing) throw new ServiceError('NOT_FOUND', `Provider key ${key_id} was not found.`);
  return view(existing);
}

/** The live key's id for a provider, or undefined: what the API checks before starting a workflow. */
export async function liveProviderKeyId(tx: Tx, org_id: string, provider: ByokProvider): Promise<string | undefined> {
  const row = await tx.one<{ id: string }>('select id from provider_keys where org_id = ? and provider = ? and revoked_at is null', [org_id, provider]);
  return row?.id;
}

/**
 * Opens the live key for a provider. Call it only inside the activity that makes the provider call (spec: Provider
 * key — decrypted only at the moment of a call) and keep the result in a local variable. A key stored under a previous
 * master key (SERVICE_MASTER_KEY_PREVIOUS) opens, and is sealed again under the current one on the way.
 */
export async function openLiveProviderKey(
  tx: Tx,
  master_key: Buffer | null,
  org_id: string,
  provider: ByokProvider,
  previous: readonly Buffer[] = [],
): Promise<{ key_id: string; api_key: string } | undefined> {
  const row = await tx.one('select id, ciphertext, nonce, auth_tag from provider_keys where org_id = ? and provider = ? and revoked_at is null', [
    org_id,
    provider,
  ]);
  if (!row) return undefined;
  const key_id = row.id as string;
  const sealed: SealedKey = { ciphertext: bytes(row.ciphertext), nonce: bytes(row.nonce), auth_tag: bytes(row.auth_tag) };
  const opened = openProviderKey(master_key, { org_id, key_id }, sealed, previous);
  if (opened.under_previous) await resealProviderKey(tx, master_key, { org_id, key_id }, sealed, opened.api_key);
  return { key_id, api_key: opened.api_key };
}

/** Seals a key again under the current master key, only while its row still holds what was opened (a revoke or another reseal wins). */
async function resealProviderKey(
  tx: Tx,
  master_key: Buffer | null,
  binding: { org_id: string; key_id: string },
  was: SealedKey,
  api_key: string,
): Promise<boolean> {
  const sealed = sealProviderKey(master_key, binding, api_key);
  const updated = await tx.query(
    'update provider_keys set ciphertext = ?, nonce = ?, auth_tag = ? where id = ? and org_id = ? and revoked_at is null and nonce = ? returning id',
    [sealed.ciphertext, sealed.nonce, sealed.auth_tag, binding.key_id, binding.org_id, was.nonce],
  );
  return updated.length > 0;
}

/**
 * After a master key rotation: every live key still sealed under a key of SERVICE_MASTER_KEY_PREVIOUS is sealed again
 * under SERVICE_MASTER_KEY, so the previous key can be dropped. Keys no key held opens are counted, never changed.
 */
export async function resealProviderKeys(
  tx: Tx,
  master_key: Buffer | null,
  previous: readonly Buffer[],
): Promise<{ resealed: number; current: number; unreadable: Array<{ key_id: string; org_id: string }> }> {
  const rows = await tx.query('select id, org_id, ciphertext, nonce, auth_tag from provider_keys where revoked_at is null order by id');
  const result = { resealed: 0, current: 0, unreadable: [] as Array<{ key_id: string; org_id: string }> };
  for (const row of rows) {
    const binding = { org_id: row.org_id as string, key_id: row.id as string };
    const sealed: SealedKey = { ciphertext: bytes(row.ciphertext), nonce: bytes(row.nonce), auth_tag: bytes(row.auth_tag) };
    let opened: { api_key: string; under_previous: boolean };
    try {
      opened = openProviderKey(master_key, binding, sealed, previous);
    } catch (error) {
      if (!(error instanceof ProviderKeyDecryptionError)) throw error;
      result.unreadable.push(binding);
      continue;
    }
    if (!opened.under_previous) result.current += 1;
    else if (await resealProviderKey(tx, master_key, binding, sealed, opened.api_key)) result.resealed += 1;
  }
  return result;
}
