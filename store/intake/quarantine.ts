// A quarantined source's raw lines at rest (spec: Intake source, excluded_for_privacy): sealed under SERVICE_MASTER_KEY
// with the provider keys' AES-256-GCM helper, bound to the organization and the source, and purged after the retention.
// Nothing here reads them back: they are kept so the service can show its findings honestly, never to return them.
import type { Db, Tx } from '../db.ts';
import { sealUnderMasterKey } from '../providerKeys/crypto.ts';

/** Versioned like the provider keys' binding: the purpose, then the row's owner and id. */
const AAD_PREFIX = 'crucible/quarantined-lines/v1';
/** Rows the maintenance purge deletes per pass; the next tick takes the rest. */
export const QUARANTINE_PURGE_PER_PASS_MAX = 10_000;

/** The additional authenticated data of a quarantined source's lines: a ciphertext moved to another row fails to open. */
export function quarantineBinding(org_id: string, source_id: string): Buffer {
  return Buffer.from(`${AAD_PREFIX}\u0000${org_id}\u0000${source_id}`, 'utf8');
}

export async function storeQuarantinedLines(tx: Tx, input: { master_key: Buffer | null; org_id: string; source_id: string; lines: string[] }): Promise<void> {
  if (!input.master_key) throw new Error('SERVICE_MASTER_KEY is not set: a quarantined source cannot be sealed');
  const sealed = sealUnderMasterKey(input.master_key, quarantineBinding(input.org_id, input.source_id), JSON.stringify(input.lines));
  await tx.query('insert into intake_quarantine (source_id, org_id, ciphertext, nonce, auth_tag) values (?, ?, ?, ?, ?)', [
    input.source_id,
    input.org_id,
    sealed.ciphertext,
    sealed.nonce,
    sealed.auth_tag,
  ]);
}

/** Deletes the sealed lines stored more than `retention_days` ago (at most QUARANTINE_PURGE_PER_PASS_MAX); safe to repeat. */
export async function purgeQuarantinedLines(db: Db, retention_days: number): Promise<number> {
  const rows = await db.query(
    `delete from intake_quarantine where source_id in (
       select source_id from intake_quarantine where created_at < now() - make_interval(days => ?) order by created_at limit ?
     ) returning source_id`,
    [retention_days, QUARANTINE_PURGE_PER_PASS_MAX],
  );
  return rows.length;
}
