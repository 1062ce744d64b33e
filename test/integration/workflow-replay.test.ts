// Runs in flight when the service is upgraded: a world run's history recorded by the code before its row and ledger
// steps became local activities (patched('run-local-steps')) replays on today's workflow code without a
// nondeterminism error, so a worker restarted on the new code carries such a run on along its old path.
// The fixture is the GP triage sample's run as the commit before f392239 recorded it: its history from
// `fetchHistory()`, encoded as protobuf by @temporalio/proto (the proto3 JSON route, `historyFromJSON`, fails in this
// install: @temporalio/common and @temporalio/proto each hold their own protobufjs, so its `instanceof Type` is false).
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { inject, describe, expect, it } from 'vitest';
import { RUN_LOCAL_STEPS_PATCH } from '../../workflows/worldRun.ts';
import { encryptedDataConverter } from '../../integrations/temporal/codec.ts';

const FIXTURE = new URL('../fixtures/histories/world-run-before-local-steps.bin', import.meta.url);

describe('world-run histories recorded before the local steps', () => {
  const History = temporal.api.history.v1.History;
  const history = History.decode(readFileSync(FIXTURE));

  it('is a run of the old path: each row and ledger step an activity of its own, no patch marker', () => {
    const activities = history.events.flatMap((event) => event.activityTaskScheduledEventAttributes?.activityType?.name ?? []);
    expect(activities).toEqual(['startRun', 'reserveCredits', 'runReplications', 'settleCredits', 'finishRun']);
    expect(history.events.some((event) => event.markerRecordedEventAttributes)).toBe(false);
    expect(history.events.at(-1)?.eventType).toBe(temporal.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED);
  });

  it(`replays on today's workflow code, which takes the old path for it (patch '${RUN_LOCAL_STEPS_PATCH}' absent)`, async () => {
    await expect(
      Worker.runReplayHistory({ workflowBundle: { codePath: inject('workflow_bundle_path') } }, history, 'run-before-local-steps'),
    ).resolves.toBeUndefined();
  });

  it('replays with the payload codec every worker now has: the recorded payloads, written before encryption, pass through', async () => {
    const plain = history.events.flatMap((event) => event.workflowExecutionStartedEventAttributes?.input?.payloads ?? []);
    expect(plain.length).toBeGreaterThan(0);
    expect(plain.every((payload) => Buffer.from(payload.metadata!.encoding!).toString() === 'json/plain')).toBe(true);
    const dataConverter = encryptedDataConverter(randomBytes(32));
    await expect(
      Worker.runReplayHistory({ workflowBundle: { codePath: inject('workflow_bundle_path') }, dataConverter }, history, 'run-before-encryption'),
    ).resolves.toBeUndefined();
  });

  it('fails the replay when the history does not match the code: the check can fail', async () => {
    // The same history with the replications activity renamed: today's code schedules runReplications there.
    const altered = History.decode(readFileSync(FIXTURE));
    for (const event of altered.events) {
      const type = event.activityTaskScheduledEventAttributes?.activityType;
      if (type?.name === 'runReplications') type.name = 'runSomethingElse';
    }
    await expect(Worker.runReplayHistory({ workflowBundle: { codePath: inject('workflow_bundle_path') } }, altered, 'altered')).rejects.toThrow();
  });
});
