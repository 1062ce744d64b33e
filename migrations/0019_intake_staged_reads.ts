import { Migration } from '@mikro-orm/migrations';

// An extraction request with a PDF is read by a worker, not by the API process that received it (docs/deploy.md "Where
// the work runs"): the API stages the request's sources here, sealed under SERVICE_MASTER_KEY like provider keys
// (AES-256-GCM; nonce and tag beside the ciphertext), and the worker's activity deletes the row in the transaction that
// stores the sources. A row outlives its request only when the API process died while waiting; the next staging
// deletes such rows after an hour (docs/decisions.md).
export class Migration0019IntakeStagedReads extends Migration {
  override name = '0019_intake_staged_reads';
  up(): void {
    this.addSql(`create table intake_staged_reads (
      id text primary key,
      org_id text not null references organizations(id),
      project_id text references projects(id),
      created_by text not null,
      ciphertext bytea not null,
      nonce bytea not null,
      auth_tag bytea not null,
      created_at timestamptz not null default now()
    )`);
    this.addSql('create index intake_staged_reads_created on intake_staged_reads (created_at)');
  }
}
