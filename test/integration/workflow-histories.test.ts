// Workflows in flight when the service is upgraded: one recorded history of every workflow (test/support/histories.ts,
// recorded by test/support/record-histories.ts) replays on today's workflow code without a nondeterminism error, so a
// change that would break running executions (another activity, another order, a timer added or removed) fails here
// before it reaches a deployment. Each history is also replayed altered (its first scheduled activity renamed, as the
// code no longer schedules it): the replay must then fail, so each check can fail.
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { describe, expect, inject, it } from 'vitest';
import { HISTORY_FIXTURES, type HistoryFixture, historyFixtureDataConverter, readHistoryFixture } from '../support/histories.ts';

const EventType = temporal.api.enums.v1.EventType;

function replay(history: temporal.api.history.v1.IHistory, workflow_id: string): Promise<void> {
  const options = { workflowBundle: { codePath: inject('workflow_bundle_path') }, dataConverter: historyFixtureDataConverter() };
  return Worker.runReplayHistory(options, history, workflow_id);
}

describe.each(Object.entries(HISTORY_FIXTURES) as [HistoryFixture, string][])('the recorded %s history', (name, workflow_type) => {
  it(`is a closed execution of ${workflow_type} that scheduled activities`, () => {
    const history = readHistoryFixture(name);
    const started = history.events[0]?.workflowExecutionStartedEventAttributes;
    expect(started?.workflowType?.name).toBe(workflow_type);
    expect(history.events.at(-1)?.eventType).toBe(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED);
    expect(history.events.some((event) => event.activityTaskScheduledEventAttributes)).toBe(true);
  });

  it("replays on today's workflow code", async () => {
    await expect(replay(readHistoryFixture(name), `${name}-replay`)).resolves.toBeUndefined();
  });

  it('fails to replay once altered: the check can fail', async () => {
    const altered = readHistoryFixture(name);
    const scheduled = altered.events.find((event) => event.activityTaskScheduledEventAttributes)!.activityTaskScheduledEventAttributes!;
    scheduled.activityType!.name = `${scheduled.activityType!.name}Renamed`;
    await expect(replay(altered, `${name}-altered`)).rejects.toThrow(/[Nn]ondeterminis/);
  });
});
