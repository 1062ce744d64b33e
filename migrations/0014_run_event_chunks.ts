import { Migration } from '@mikro-orm/migrations';

// The bounded trace is stored in chunks of up to RUN_EVENT_CHUNK_SIZE events (store/runs/runs.ts), one row each, instead
// of one row per event: a traced replication of 10,000 events was 10,000 inserts with their key and WAL, most of a small
// world's run time (docs/performance.md). A chunk's events are a JSON array of
// [sequence, time, kind, entity, step, resource, value] tuples in the trace's order, kept as text (the service never
// queries inside it). Events already stored move over in the same order; the API reads them as before.
export class Migration0014RunEventChunks extends Migration {
  override name = '0014_run_event_chunks';
  up(): void {
    this.addSql(`create table run_event_chunks (
      run_id text not null references runs(id),
      variant_order integer not null check (variant_order >= 0),
      chunk integer not null check (chunk >= 0),
      variant_id text not null,
      replication_index integer not null,
      event_count integer not null check (event_count between 1 and 1000),
      events text not null,
      primary key (run_id, variant_order, chunk)
    )`);
    this.addSql(`insert into run_event_chunks (run_id, variant_order, chunk, variant_id, replication_index, event_count, events)
      select run_id, variant_order, "position" / 1000, min(variant_id), min(replication_index), count(*),
        json_agg(json_build_array("sequence", "time", kind, entity, step, resource, "value") order by "position")::text
      from run_events group by run_id, variant_order, "position" / 1000`);
    this.addSql('drop table run_events');
  }
}
