import { Migration } from '@mikro-orm/migrations';

// The rows a pollable view reads beside its own announce their parent too, and a deleted row is announced, so the
// in-process row cache on PGlite (store/rowCache.ts) is exact and a long-poll wakes on a run's new replication or a
// review's new AI usage (docs/performance.md). Payload: the id named by the trigger's argument.
export class Migration0012ChangeNotifyReads extends Migration {
  override name = '0012_change_notify_reads';
  up(): void {
    this.addSql(`create or replace function crucible_notify_change_of() returns trigger language plpgsql as $$
      declare
        announced text;
      begin
        announced := (case when tg_op = 'DELETE' then to_jsonb(old) else to_jsonb(new) end) ->> tg_argv[0];
        if announced is not null then
          perform pg_notify('crucible_changed', announced);
        end if;
        return null;
      end $$`);
    for (const [table, column] of [
      ['run_replications', 'run_id'],
      ['ai_usage', 'subject_id'],
    ] as const) {
      this.addSql(`create trigger ${table}_notify_change after insert or update or delete on ${table}
        for each row execute function crucible_notify_change_of('${column}')`);
    }
    for (const table of ['intake_drafts', 'reviews', 'runs', 'projects']) {
      this.addSql(`create trigger ${table}_notify_delete after delete on ${table} for each row execute function crucible_notify_change_of('id')`);
    }
    this.addSql(`create trigger projects_notify_change after update on projects
      for each row when (old.* is distinct from new.*) execute function crucible_notify_change_of('id')`);
  }
}
