// A run's stored trace is kept in chunks of events, one row each (store/runs/runs.ts, migrations/0014_run_event_chunks.ts);
// a chunk's text is a JSON array of [sequence, time, kind, entity, step, resource, value] tuples (doubles round-trip).
// Pure, so a compute pool thread can decode the chunks an export reads without the store.
import type { StoredTraceEvent, TraceEvent } from './index.ts';

/** One stored chunk of a run's trace, as read: its events still as their JSON text (decodeChunk reads them). */
export type EventChunkRow = { variant_id: string; replication_index: number | string; events: string };

type EventTuple = [number, number, TraceEvent['kind'], number | null, string | null, string | null, number | null];

/** A chunk's text. */
export function encodeChunk(events: readonly TraceEvent[]): string {
  return JSON.stringify(events.map((event) => [event.sequence, event.time, event.kind, event.entity, event.step, event.resource, event.value]));
}

/** A stored chunk's events. */
export function decodeChunk(row: EventChunkRow): StoredTraceEvent[] {
  const replication_index = Number(row.replication_index);
  return (JSON.parse(row.events) as EventTuple[]).map(([sequence, time, kind, entity, step, resource, value]) => ({
    variant_id: row.variant_id,
    replication_index,
    sequence,
    time,
    kind,
    entity,
    step,
    resource,
    value,
  }));
}
