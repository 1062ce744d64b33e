import { Migration } from '@mikro-orm/migrations';

// Worlds and runs: saved WorldSpec revisions, runs, their completed replications and the bounded event trace.
export class Migration0006WorldsRuns extends Migration {
  override name = '0006_worlds_runs';
  up(): void {
    // spec: Versioning — distinct world revision saves serialize revision numbering (gapless per project).
    this.addSql(`create table world_revisions (
      id text primary key,
      project_id text not null references projects(id),
      org_id text not null references organizations(id),
      revision integer not null check (revision >= 1),
      name text not null,
      spec jsonb not null,
      created_by text not null,
      created_at timestamptz not null default now(),
      unique (project_id, revision)
    )`);
    this.addSql(`create table runs (
      id text primary key,
      org_id text not null references organizations(id),
      project_id text not null references projects(id),
      world_revision_id text not null references world_revisions(id),
      status text not null check (status in ('queued', 'running', 'succeeded', 'timed_out', 'canceled', 'failed')),
      budget_limit_credits bigint not null check (budget_limit_credits between 1 and 9007199254740991),
      credits_estimate bigint not null check (credits_estimate >= 0),
      events_estimate bigint not null check (events_estimate >= 0),
      credits_reserved bigint not null check (credits_reserved >= 0 and credits_reserved <= budget_limit_credits),
      credits_used bigint check (credits_used >= 0 and credits_used <= credits_reserved),
      replications_requested integer not null check (replications_requested >= 0),
      events_discarded bigint not null default 0 check (events_discarded >= 0),
      stop_reason text check (stop_reason in ('budget', 'wall_clock')),
      wall_clock_limit_seconds integer not null check (wall_clock_limit_seconds >= 1),
      error jsonb,
      created_by text not null,
      created_at timestamptz not null default now(),
      started_at timestamptz,
      finished_at timestamptz,
      settled_at timestamptz,
      updated_at timestamptz not null default now()
    )`);
    this.addSql('create index runs_project on runs (project_id, created_at desc, id desc)');
    this.addSql('create index runs_status on runs (status, created_at)');
    // One row per completed replication: a retried activity writes the same key and nothing changes.
    this.addSql(`create table run_replications (
      run_id text not null references runs(id),
      variant_id text not null,
      replication_index integer not null check (replication_index >= 0),
      events_total bigint not null check (events_total >= 0),
      result jsonb not null,
      created_at timestamptz not null default now(),
      primary key (run_id, variant_id, replication_index)
    )`);
    // The bounded trace: every event of replication 0 of each variant up to EVENT_TRACE_CAP_PER_VARIANT, in a total order.
    this.addSql(`create table run_events (
      run_id text not null references runs(id),
      variant_order integer not null check (variant_order >= 0),
      position integer not null check (position >= 0),
      variant_id text not null,
      replication_index integer not null,
      sequence bigint not null,
      time double precision not null,
      kind text not null,
      entity integer,
      step text,
      resource text,
      value double precision,
      primary key (run_id, variant_order, position)
    )`);
  }
}
