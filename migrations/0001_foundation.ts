import { Migration } from '@mikro-orm/migrations';

// Foundation: accounts, sessions, API tokens, projects, idempotency records.
export class Migration0001Foundation extends Migration {
  override name = '0001_foundation';
  up(): void {
    this.addSql(`create table users (
      id text primary key,
      email text not null unique,
      password_hash text not null,
      created_at timestamptz not null default now()
    )`);
    this.addSql(`create table organizations (
      id text primary key,
      name text not null,
      created_at timestamptz not null default now()
    )`);
    this.addSql(`create table memberships (
      id text primary key,
      org_id text not null references organizations(id),
      user_id text not null references users(id),
      role text not null check (role in ('owner', 'admin', 'member')),
      created_at timestamptz not null default now(),
      unique (org_id, user_id)
    )`);
    this.addSql(`create table user_sessions (
      id text primary key,
      user_id text not null references users(id),
      created_at timestamptz not null default now(),
      expires_at timestamptz not null,
      revoked_at timestamptz
    )`);
    this.addSql(`create table api_tokens (
      id text primary key,
      user_id text not null references users(id),
      org_id text not null references organizations(id),
      name text not null,
      scopes text[] not null,
      secret_hash text not null,
      created_at timestamptz not null default now(),
      expires_at timestamptz not null,
      revoked_at timestamptz,
      last_used_at timestamptz
    )`);
    this.addSql('create index api_tokens_user on api_tokens (user_id, created_at desc)');
    this.addSql(`create table projects (
      id text primary key,
      org_id text not null references organizations(id),
      title text not null check (char_length(title) between 1 and 200),
      created_by text not null,
      created_at timestamptz not null default now()
    )`);
    this.addSql('create index projects_org on projects (org_id, created_at desc, id desc)');
    this.addSql(`create table idempotency_records (
      namespace text not null,
      owner_id text not null,
      key text not null,
      request_hash text not null,
      status_code integer not null,
      response_body jsonb not null,
      created_at timestamptz not null default now(),
      primary key (namespace, owner_id, key)
    )`);
    this.addSql('create index idempotency_records_created on idempotency_records (created_at)');
  }
}
