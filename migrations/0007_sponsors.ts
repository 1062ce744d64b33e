import { Migration } from '@mikro-orm/migrations';

// Sponsor programs (spec: Sponsor institution and program; States and transitions; Sponsor API). Institutions and their
// administrators are provisioned by operators only; programs belong to one institution; redemption codes are stored
// only as digests; one enrollment per organization and per person per program is enforced by unique indexes.
export class Migration0007Sponsors extends Migration {
  override name = '0007_sponsors';
  up(): void {
    this.addSql(`create table sponsor_institutions (
      id text primary key,
      name text not null check (char_length(name) between 1 and 200),
      verified_at timestamptz,
      created_at timestamptz not null default now()
    )`);
    this.addSql(`create table sponsor_admins (
      institution_id text not null references sponsor_institutions(id),
      user_id text not null references users(id),
      created_at timestamptz not null default now(),
      primary key (institution_id, user_id)
    )`);
    this.addSql('create index sponsor_admins_user on sponsor_admins (user_id)');
    this.addSql(`create table sponsor_programs (
      id text primary key,
      institution_id text not null references sponsor_institutions(id),
      name text not null check (char_length(name) between 1 and 200),
      status text not null check (status in ('draft', 'active', 'closed')),
      starts_at timestamptz not null,
      ends_at timestamptz not null,
      per_recipient_cap bigint not null check (per_recipient_cap between 1 and 9007199254740991),
      max_recipients integer not null check (max_recipients >= 1),
      eligible_email_domains text[] not null default '{}',
      requires_approval boolean not null,
      report_min_cohort integer not null check (report_min_cohort >= 5),
      created_by text not null references users(id),
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      activated_at timestamptz,
      closed_at timestamptz,
      constraint sponsor_programs_window check (ends_at > starts_at)
    )`);
    this.addSql('create index sponsor_programs_institution on sponsor_programs (institution_id, created_at desc, id desc)');
    this.addSql(`create table sponsor_codes (
      id text primary key,
      program_id text not null references sponsor_programs(id),
      digest text not null unique,
      expires_at timestamptz not null,
      max_uses integer not null check (max_uses >= 1),
      uses integer not null default 0 check (uses >= 0 and uses <= max_uses),
      revoked_at timestamptz,
      created_at timestamptz not null default now()
    )`);
    this.addSql('create index sponsor_codes_program on sponsor_codes (program_id)');
    this.addSql(`create table sponsor_enrollments (
      id text primary key,
      program_id text not null references sponsor_programs(id),
      org_id text not null references organizations(id),
      redeemed_by text not null references users(id),
      code_id text not null references sponsor_codes(id),
      status text not null check (status in ('pending', 'active', 'declined')),
      decided_by text references users(id),
      decision_note text check (char_length(decision_note) <= 1000),
      decided_at timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      unique (program_id, org_id),
      unique (program_id, redeemed_by)
    )`);
    this.addSql('create index sponsor_enrollments_program on sponsor_enrollments (program_id, status)');
  }
}
