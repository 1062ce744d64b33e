import { Migration } from '@mikro-orm/migrations';

// Pollable resources announce every change of their row on one channel, payload the row id, so a long-poll
// (`GET …?wait=N`) wakes when its resource changes instead of re-reading it (docs/performance.md). A later pollable
// table adds its own trigger with `execute function crucible_notify_change()`.
export class Migration0010ChangeNotify extends Migration {
  override name = '0010_change_notify';
  up(): void {
    this.addSql(`create or replace function crucible_notify_change() returns trigger language plpgsql as $$
      begin
        perform pg_notify('crucible_changed', new.id);
        return null;
      end $$`);
    for (const table of ['intake_drafts', 'reviews', 'runs']) {
      this.addSql(`create trigger ${table}_notify_change after update on ${table}
        for each row when (old.* is distinct from new.*) execute function crucible_notify_change()`);
    }
  }
}
