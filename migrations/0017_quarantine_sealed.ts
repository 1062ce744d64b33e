import { Migration } from '@mikro-orm/migrations';

// A quarantined source's raw lines (spec: Intake source, excluded_for_privacy) are kept sealed under SERVICE_MASTER_KEY
// like provider keys (AES-256-GCM; nonce and tag beside the ciphertext), one row per source, and purged by the
// maintenance workflow after CRUCIBLE_QUARANTINE_RETENTION_DAYS. `intake_sources.lines` holds processed text only from
// now on. Lines quarantined before this migration were plaintext that nothing reads (the API never returns them, no
// provider ever receives them): they are dropped, not sealed, since SQL has no master key (docs/decisions.md).
export class Migration0017QuarantineSealed extends Migration {
  override name = '0017_quarantine_sealed';
  up(): void {
    this.addSql(`create table intake_quarantine (
      source_id text primary key references intake_sources(id) on delete cascade,
      org_id text not null references organizations(id),
      ciphertext bytea not null,
      nonce bytea not null,
      auth_tag bytea not null,
      created_at timestamptz not null default now()
    )`);
    this.addSql('create index intake_quarantine_created on intake_quarantine (created_at)');
    this.addSql(`update intake_sources set lines = null where status = 'excluded_for_privacy'`);
  }
}
