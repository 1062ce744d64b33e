import { Migration } from '@mikro-orm/migrations';

// Authoring sessions (beta; spec: Authoring session checkpoint, Endpoints — Authoring sessions): one row per session that
// GET reads (so a session is readable while no worker runs) and every checkpoint the workflow wrote.
export class Migration0009Authoring extends Migration {
  override name = '0009_authoring';
  up(): void {
    this.addSql(`create table authoring_sessions (
      id text primary key,
      org_id text not null references organizations(id),
      project_id text not null references projects(id),
      intake_revision_id text,
      status text not null check (status in ('drafting', 'waiting', 'approved', 'expired', 'failed')),
      byok_provider text,
      ai_limits jsonb not null,
      starting_world jsonb,
      wait_seconds_max integer not null check (wait_seconds_max >= 1),
      checkpoint_count integer not null default 0,
      cap_reached boolean not null default false,
      world_revision_id text references world_revisions(id),
      error jsonb,
      created_by text not null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      ended_at timestamptz
    )`);
    this.addSql('create index authoring_sessions_project on authoring_sessions (project_id, created_at desc, id)');
    this.addSql(`create table authoring_checkpoints (
      session_id text not null references authoring_sessions(id),
      number integer not null check (number >= 1),
      body jsonb not null,
      created_at timestamptz not null default now(),
      primary key (session_id, number)
    )`);
  }
}
