import { Migration } from '@mikro-orm/migrations';

// Provider keys (BYOK) and metered AI calls (spec: Provider key).
export class Migration0003ProviderKeys extends Migration {
  override name = '0003_provider_keys';
  up(): void {
    // A live key holds all three sealed parts; a revoked key holds none (spec: revocation destroys the ciphertext).
    this.addSql(`create table provider_keys (
      id text primary key,
      org_id text not null references organizations(id),
      provider text not null check (provider in ('openai', 'anthropic', 'google')),
      label text not null check (char_length(label) between 1 and 100),
      last4 text not null check (char_length(last4) <= 4),
      ciphertext bytea,
      nonce bytea,
      auth_tag bytea,
      created_by text not null,
      created_at timestamptz not null default now(),
      revoked_at timestamptz,
      revoked_by text,
      check (
        (revoked_at is null and ciphertext is not null and nonce is not null and auth_tag is not null)
        or (revoked_at is not null and ciphertext is null and nonce is null and auth_tag is null)
      )
    )`);
    // One live key per (organization, provider): a new key replaces the old one (docs/decisions.md).
    this.addSql('create unique index provider_keys_live on provider_keys (org_id, provider) where revoked_at is null');
    this.addSql('create index provider_keys_org on provider_keys (org_id, created_at desc, id desc)');
    this.addSql(`create table ai_usage (
      id text primary key,
      org_id text not null references organizations(id),
      provider text not null check (provider in ('openai', 'anthropic', 'google', 'offline')),
      model text not null,
      byok boolean not null,
      key_id text references provider_keys(id),
      input_tokens integer not null check (input_tokens >= 0),
      output_tokens integer not null check (output_tokens >= 0),
      duration_ms integer not null check (duration_ms >= 0),
      project_id text,
      subject_kind text not null,
      subject_id text not null,
      task text not null,
      credits_charged bigint not null check (credits_charged between 0 and 9007199254740991),
      workflow_id text not null,
      run_id text not null,
      activity_id text not null,
      created_at timestamptz not null default now(),
      check (not byok or credits_charged = 0),
      unique (workflow_id, run_id, activity_id)
    )`);
    this.addSql('create index ai_usage_org on ai_usage (org_id, created_at desc, id desc)');
  }
}
