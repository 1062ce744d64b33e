import { Migration } from '@mikro-orm/migrations';

// Evaluation plans, their approvals, concept reviews and each review's retrieved literature.
export class Migration0005Review extends Migration {
  override name = '0005_review';
  up(): void {
    this.addSql(`create table evaluation_plans (
      id text primary key,
      project_id text not null references projects(id),
      org_id text not null references organizations(id),
      intake_revision integer not null check (intake_revision >= 1),
      plan jsonb not null,
      created_by text not null,
      created_at timestamptz not null default now()
    )`);
    this.addSql('create index evaluation_plans_project on evaluation_plans (project_id, created_at desc, id desc)');
    this.addSql(`create table plan_approvals (
      plan_id text not null references evaluation_plans(id),
      scope text not null,
      approved_by text not null,
      approved_at timestamptz not null default now(),
      primary key (plan_id, scope)
    )`);
    this.addSql(`create table reviews (
      id text primary key,
      project_id text not null references projects(id),
      org_id text not null references organizations(id),
      plan_id text not null references evaluation_plans(id),
      status text not null check (status in ('queued', 'searching', 'drafting', 'verifying', 'succeeded', 'failed', 'canceled')),
      byok_provider text check (byok_provider in ('openai', 'anthropic', 'google')),
      credits_reserved bigint not null check (credits_reserved between 0 and 9007199254740991),
      credits_used bigint check (credits_used between 0 and 9007199254740991),
      literature_query text,
      searched_at timestamptz,
      result jsonb,
      failure jsonb,
      created_by text not null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      finished_at timestamptz,
      check ((status in ('succeeded', 'failed', 'canceled')) = (finished_at is not null)),
      check (status <> 'succeeded' or result is not null)
    )`);
    this.addSql('create index reviews_project on reviews (project_id, created_at desc, id desc)');
    this.addSql("create index reviews_unfinished on reviews (created_at) where status = 'queued'");
    this.addSql(`create table review_records (
      review_id text not null references reviews(id),
      position integer not null check (position >= 0),
      record_id text not null,
      record jsonb not null,
      open_text text,
      primary key (review_id, record_id)
    )`);
  }
}
