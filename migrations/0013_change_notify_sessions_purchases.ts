import { Migration } from '@mikro-orm/migrations';
// Authoring sessions and purchases are pollable too (docs/performance.md): their rows announce every change, a session
// announces each new checkpoint (its view shows the latest), and a deleted row is announced, so `GET …?wait=N` on them
// wakes on a change instead of re-reading. Same channel and functions as 0010 and 0012.
export class Migration0013ChangeNotifySessionsPurchases extends Migration {
  override name = '0013_change_notify_sessions_purchases';
  up(): void {
    for (const table of ['authoring_sessions', 'purchase_intents']) {
      this.addSql(`create trigger ${table}_notify_change after update on ${table}
        for each row when (old.* is distinct from new.*) execute function crucible_notify_change()`);
      this.addSql(`create trigger ${table}_notify_delete after delete on ${table} for each row execute function crucible_notify_change_of('id')`);
    }
    this.addSql(`create trigger authoring_checkpoints_notify_change after insert or update or delete on authoring_checkpoints
      for each row execute function crucible_notify_change_of('session_id')`);
  }
}
