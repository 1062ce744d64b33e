import { Migration } from '@mikro-orm/migrations';

// Billing: operator-bound credit packs, purchase intents saved before checkout, and the small record of each reconciled
// provider event (spec: Billing pack and purchase intent; Events rule 5).
export class Migration0008Billing extends Migration {
  override name = '0008_billing';
  up(): void {
    this.addSql(`create table billing_packs (
      pack_key text primary key,
      title text not null,
      price_id text not null,
      credits bigint not null check (credits between 1 and 9007199254740991),
      live_mode boolean not null,
      created_at timestamptz not null default now(),
      retired_at timestamptz
    )`);
    // spec: Billing pack and purchase intent — exactly one owner: an organization or a program.
    this.addSql(`create table purchase_intents (
      id text primary key,
      owner_id text not null,
      org_id text references organizations(id),
      program_id text,
      pack_key text not null references billing_packs(pack_key),
      price_id text not null,
      amount bigint not null check (amount >= 0),
      currency text not null,
      credits bigint not null check (credits between 1 and 9007199254740991),
      live_mode boolean not null,
      return_url text not null,
      status text not null check (status in ('pending', 'completed', 'failed', 'refunded')),
      session_id text unique,
      checkout_url text,
      expires_at timestamptz not null,
      transaction_id text,
      conflict text,
      flagged_reason text,
      flagged_at timestamptz,
      created_by text not null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      check ((org_id is null) <> (program_id is null))
    )`);
    this.addSql('create index purchase_intents_owner_created on purchase_intents (owner_id, created_at)');
    this.addSql('create index purchase_intents_flagged on purchase_intents (flagged_at) where flagged_at is not null');
    // spec: Events rule 5 — only a session/intent/status summary, never the provider's payload.
    this.addSql(`create table billing_events (
      id text primary key,
      intent_id text not null references purchase_intents(id),
      session_id text not null,
      trigger text not null,
      outcome text not null check (outcome in ('completed', 'failed', 'pending', 'conflict', 'flagged', 'unchanged')),
      created_at timestamptz not null default now()
    )`);
    this.addSql('create index billing_events_intent on billing_events (intent_id, created_at)');
  }
}
