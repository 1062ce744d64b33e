import { Migration } from '@mikro-orm/migrations';

// Intake: screened sources, drafting runs, confirmed IntakeSpec revisions.
export class Migration0004Intake extends Migration {
  override name = '0004_intake';
  up(): void {
    // `lines` holds the numbered text (line n is lines[n-1]) for processed and quarantined sources alike; the API never
    // returns it for a quarantined source and the drafting activity reads only processed ones (spec: Intake source).
    this.addSql(`create table intake_sources (
      id text primary key,
      org_id text not null references organizations(id),
      project_id text references projects(id),
      status text not null check (status in ('processed', 'unsupported', 'excluded_for_privacy', 'error')),
      kind text not null check (kind in ('text', 'markdown', 'json', 'pdf', 'unknown')),
      name text not null,
      content_type text,
      size_bytes bigint not null check (size_bytes >= 0),
      line_count integer not null check (line_count >= 0),
      lines jsonb,
      findings jsonb not null default '[]'::jsonb,
      findings_not_listed integer not null default 0,
      details jsonb not null default '{}'::jsonb,
      created_by text not null,
      created_at timestamptz not null default now(),
      check (status <> 'processed' or lines is not null)
    )`);
    this.addSql('create index intake_sources_org on intake_sources (org_id, created_at desc, id desc)');
    this.addSql('create index intake_sources_project on intake_sources (project_id, created_at desc, id desc)');
    this.addSql(`create table intake_drafts (
      id text primary key,
      project_id text not null references projects(id),
      org_id text not null references organizations(id),
      source_ids jsonb not null,
      skipped_source_ids jsonb not null default '[]'::jsonb,
      byok_provider text check (byok_provider in ('openai', 'anthropic', 'google')),
      status text not null check (status in ('queued', 'drafting', 'succeeded', 'failed', 'canceled')),
      credits_max bigint not null check (credits_max >= 0),
      spec jsonb,
      dropped_citations jsonb,
      usage jsonb,
      error jsonb,
      created_by text not null,
      created_at timestamptz not null default now(),
      started_at timestamptz,
      finished_at timestamptz,
      updated_at timestamptz not null default now()
    )`);
    this.addSql('create index intake_drafts_project on intake_drafts (project_id, created_at desc, id desc)');
    this.addSql('create index intake_drafts_status on intake_drafts (status, created_at)');
    this.addSql(`create table intake_revisions (
      id text primary key,
      project_id text not null references projects(id),
      org_id text not null references organizations(id),
      revision integer not null check (revision >= 1),
      spec jsonb not null,
      dropped_citations jsonb not null default '[]'::jsonb,
      dropped_claims jsonb not null default '[]'::jsonb,
      draft_id text references intake_drafts(id),
      created_by text not null,
      created_at timestamptz not null default now(),
      unique (project_id, revision)
    )`);
  }
}
