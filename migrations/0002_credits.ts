import { Migration } from '@mikro-orm/migrations';

// The credit ledger (ARCHITECTURE.md: The credit ledger). Double entry with two-phase transfers,
// TigerBeetle's model: every leg debits one account and credits another by the same amount, a reservation is pending
// until a settlement posts part of it (voiding the rest) or a release voids it.
export class Migration0002Credits extends Migration {
  override name = '0002_credits';
  up(): void {
    this.addSql(`create table credit_accounts (
      id text primary key,
      kind text not null check (kind in ('org_own', 'program_pool', 'sponsored', 'system_issuance', 'system_usage')),
      org_id text references organizations(id),
      program_id text,
      ends_at timestamptz,
      debits_pending bigint not null default 0 check (debits_pending >= 0),
      debits_posted bigint not null default 0 check (debits_posted >= 0),
      credits_pending bigint not null default 0 check (credits_pending >= 0),
      credits_posted bigint not null default 0 check (credits_posted >= 0),
      created_at timestamptz not null default now(),
      constraint credit_accounts_owner check (
        (kind = 'org_own' and org_id is not null and program_id is null)
        or (kind = 'program_pool' and org_id is null and program_id is not null and ends_at is not null)
        or (kind = 'sponsored' and org_id is not null and program_id is not null and ends_at is not null)
        or (kind = 'system_issuance' and org_id is null and program_id is null)
        or (kind = 'system_usage' and org_id is not null and program_id is null)
      ),
      constraint credit_accounts_spendable_not_negative check (
        kind in ('system_issuance', 'system_usage') or credits_posted - debits_posted - debits_pending >= 0
      )
    )`);
    this.addSql(`create unique index credit_accounts_one_own on credit_accounts (org_id) where kind = 'org_own'`);
    // Usage is one account per organization, so reservations of different organizations never queue on one hot row.
    this.addSql(`create unique index credit_accounts_one_usage on credit_accounts (org_id) where kind = 'system_usage'`);
    this.addSql(`create unique index credit_accounts_one_pool on credit_accounts (program_id) where kind = 'program_pool'`);
    this.addSql(`create unique index credit_accounts_one_sponsored on credit_accounts (program_id, org_id) where kind = 'sponsored'`);
    this.addSql(`create unique index credit_accounts_one_issuance on credit_accounts (kind) where kind = 'system_issuance'`);
    this.addSql('create index credit_accounts_org on credit_accounts (org_id, kind)');

    this.addSql(`create table credit_transfers (
      id text primary key,
      seq bigint generated always as identity,
      transfer_key text not null unique check (char_length(transfer_key) between 1 and 200),
      kind text not null check (kind in ('grant', 'purchase', 'allocation', 'reservation', 'settlement', 'release', 'adjustment')),
      status text not null check (status in ('pending', 'posted', 'voided')),
      amount bigint not null check (amount between 1 and 9007199254740991),
      available_change bigint not null,
      org_id text references organizations(id),
      program_id text,
      pending_id text references credit_transfers(id),
      reason text not null check (char_length(reason) between 1 and 500),
      subject_project_id text,
      subject_kind text check (subject_kind in ('intake_draft', 'review', 'run', 'session')),
      subject_id text,
      caused_by text not null,
      created_at timestamptz not null default now(),
      resolved_at timestamptz,
      constraint credit_transfers_status check (kind = 'reservation' or status = 'posted'),
      constraint credit_transfers_link check ((kind in ('settlement', 'release')) = (pending_id is not null)),
      constraint credit_transfers_subject check ((subject_kind is null) = (subject_id is null) and (subject_kind is null) = (subject_project_id is null))
    )`);
    // A reservation resolves at most once: one settlement or release per reservation, enforced by the database.
    this.addSql('create unique index credit_transfers_resolves_once on credit_transfers (pending_id) where pending_id is not null');
    this.addSql('create index credit_transfers_org on credit_transfers (org_id, seq desc)');
    this.addSql('create index credit_transfers_program on credit_transfers (program_id, seq desc) where program_id is not null');
    this.addSql('create index credit_transfers_subject on credit_transfers (subject_kind, subject_id) where subject_id is not null');

    this.addSql(`create table credit_legs (
      transfer_id text not null references credit_transfers(id),
      leg_no integer not null check (leg_no between 1 and 64),
      debit_account_id text not null references credit_accounts(id),
      credit_account_id text not null references credit_accounts(id),
      amount bigint not null check (amount between 1 and 9007199254740991),
      program_id text,
      primary key (transfer_id, leg_no),
      constraint credit_legs_two_accounts check (debit_account_id <> credit_account_id)
    )`);
    // Sponsor reports sum settled and held sponsored credits per program from these.
    this.addSql('create index credit_legs_program on credit_legs (program_id) where program_id is not null');
  }
}
