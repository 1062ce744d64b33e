// Where a world run's time goes, by its workflow history (BENCH_WORLD_TRACE=1 with bench/worldrun.ts): every history
// event's time since the one before it (server clock, the same machine as the bench), beside the POST's answer and the
// long-poll's `succeeded`. The histories of one world have the same shape, so the steps line up across runs.
import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';
import { runWorkflowId } from '../domain/jobs.ts';

const EventType = proto.temporal.api.enums.v1.EventType;
type Timestamp = { seconds?: { toNumber(): number } | number | null; nanos?: number | null } | null | undefined;

function ms(time: Timestamp): number {
  const seconds = typeof time?.seconds === 'number' ? time.seconds : (time?.seconds?.toNumber() ?? 0);
  return seconds * 1000 + (time?.nanos ?? 0) / 1e6;
}

/** The steps of one run: [label, ms since the step before]; the clock starts at the POST. */
export async function runSteps(
  client: Client,
  run_id: string,
  at: { post_ms: number; answered_ms: number; seen_ms: number },
): Promise<Array<[string, number]>> {
  const handle = client.workflow.getHandle(runWorkflowId(run_id));
  await handle.result().catch(() => {});
  const history = await handle.fetchHistory();
  const activity_names = new Map<string, string>();
  const steps: Array<[string, number]> = [];
  let before = at.post_ms;
  let seen = false;
  let answered = false;
  for (const event of history.events ?? []) {
    const time = ms(event.eventTime as Timestamp);
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled) activity_names.set(String(event.eventId), scheduled.activityType?.name ?? '?');
    const ref = event.activityTaskStartedEventAttributes?.scheduledEventId ?? event.activityTaskCompletedEventAttributes?.scheduledEventId;
    const name = scheduled?.activityType?.name ?? (ref ? activity_names.get(String(ref)) : undefined);
    if (!answered && time > at.answered_ms) {
      steps.push(['(POST answered)', at.answered_ms - before]);
      before = at.answered_ms;
      answered = true;
    }
    if (!seen && time > at.seen_ms) {
      steps.push(['(long-poll saw succeeded)', at.seen_ms - before]);
      before = at.seen_ms;
      seen = true;
    }
    const type = (EventType[event.eventType ?? 0] ?? '?').replace('EVENT_TYPE_', '').toLowerCase();
    steps.push([name ? `${type} ${name}` : type, time - before]);
    before = time;
  }
  if (!seen) steps.push(['(long-poll saw succeeded)', at.seen_ms - before]);
  return steps;
}

/** The median of each step over runs whose histories have the same shape as the first. */
export function medianSteps(all: Array<Array<[string, number]>>): string {
  const shape = all[0]!.map(([label]) => label).join('|');
  const same = all.filter((steps) => steps.map(([label]) => label).join('|') === shape);
  const lines = all[0]!.map(([label], index) => {
    const values = same.map((steps) => steps[index]![1]).sort((a, b) => a - b);
    return `  ${values[Math.floor(values.length / 2)]!.toFixed(1).padStart(7)} ms  ${label}`;
  });
  return `steps (medians over ${same.length} of ${all.length} runs of the same shape, each since the step before):\n${lines.join('\n')}\n`;
}
