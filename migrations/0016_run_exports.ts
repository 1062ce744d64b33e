import { Migration } from '@mikro-orm/migrations';

// A run's export ZIP, built once (on a compute pool thread) the first time it is downloaded and served from here after:
// a finished run's results never change, so neither does its archive. One row per run, in the database every API process
// shares (PGlite or PostgreSQL), so a download on any process finds it. org_id is kept beside it so a read is by run and
// organization together.
export class Migration0016RunExports extends Migration {
  override name = '0016_run_exports';
  up(): void {
    this.addSql(`create table run_exports (
      run_id text primary key references runs(id),
      org_id text not null,
      archive bytea not null,
      size_bytes integer not null check (size_bytes > 0),
      sha256 text not null,
      created_at timestamptz not null default now()
    )`);
  }
}
