import { Migration } from '@mikro-orm/migrations';

// A run's export archive is stored in parts of EXPORT_PART_BYTES (store/runs/exports.ts), read and sent one part at a
// time: on the embedded PGlite every statement runs on the API's thread, and one statement writing or reading a
// 20-variant run's whole archive held it for a large part of a second. The row in run_exports keeps the archive's size,
// digest and time. Archives stored before are dropped, not split (SQL alone would copy each into parts within one
// statement): they are a cache of what a run's stored results give, and the next download builds each again, once.
export class Migration0018RunExportParts extends Migration {
  override name = '0018_run_export_parts';
  up(): void {
    this.addSql('delete from run_exports');
    this.addSql('alter table run_exports drop column archive');
    this.addSql(`create table run_export_parts (
      run_id text not null references run_exports(run_id) on delete cascade,
      part integer not null check (part >= 0),
      bytes bytea not null,
      primary key (run_id, part)
    )`);
  }
}
