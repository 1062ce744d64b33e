// The recorded workflow histories the replay tests check today's workflow code against (test/fixtures/histories/):
// one per workflow, recorded by test/support/record-histories.ts against the dev server. Their payloads are encrypted
// as every worker's are, under a fixed master key used for nothing else, so a replay decodes them with the same codec.
import { readFileSync, writeFileSync } from 'node:fs';
import { temporal } from '@temporalio/proto';
import { encryptedDataConverter } from '../../integrations/temporal/codec.ts';

/** The master key the fixtures were recorded under: a fixture's own, never a deployment's. */
export const HISTORY_FIXTURE_MASTER_KEY = Buffer.alloc(32, 'crucible-history-fixture');

/** The workflows a recorded history exists for, by the fixture's file name (without `.bin`). */
export const HISTORY_FIXTURES = {
  'intake-draft': 'intakeDraftWorkflow',
  review: 'conceptReviewWorkflow',
  authoring: 'authoringSessionWorkflow',
  checkout: 'checkoutWorkflow',
  maintenance: 'maintenanceWorkflow',
  'intake-read': 'intakeReadWorkflow',
  run: 'worldRunWorkflow',
  // A world run recorded before runs were split into shards (the whole run one activity); recorded by no script now.
  'run-before-shards': 'worldRunWorkflow',
} as const;

export type HistoryFixture = keyof typeof HISTORY_FIXTURES;

const History = temporal.api.history.v1.History;

function fixturePath(name: HistoryFixture): URL {
  return new URL(`../fixtures/histories/${name}.bin`, import.meta.url);
}

/**
 * A history as protobuf (@temporalio/proto): the proto3 JSON route, `historyFromJSON`, fails in this install
 * (test/integration/workflow-replay.test.ts says why).
 */
export function readHistoryFixture(name: HistoryFixture): temporal.api.history.v1.History {
  return History.decode(readFileSync(fixturePath(name)));
}

export function writeHistoryFixture(name: HistoryFixture, history: temporal.api.history.v1.IHistory): void {
  writeFileSync(fixturePath(name), History.encode(history).finish());
}

/** The codec the fixtures' payloads were written with. */
export function historyFixtureDataConverter() {
  return encryptedDataConverter(HISTORY_FIXTURE_MASTER_KEY);
}
