// A world run split into shards (domain/simulation/shards.ts) over the real service (PGlite or PostgreSQL, the Temporal
// dev server, the worker pool): the same stored results and trace whatever the shard size and the shards in flight, and
// the same as the engine computes in-process; a budget met across shards stops the run within its reservation.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorldSpec } from '../../domain/contracts/worldSpec.ts';
import { creditsForEvents, eventTrace, runSequential } from '../../domain/simulation/index.ts';
import { runWorkflowId } from '../../domain/jobs.ts';
import { grantCredits } from '../../store/credits/ledger.ts';
import { allRunEvents, loadReplications } from '../../store/runs/runs.ts';
import { eventually, http, signedInOwner, startTestService, type TestService, type TestUser } from '../support/harness.ts';
import { burstyWorld, queueWorld } from '../support/worlds.ts';

let service: TestService;
let owner: TestUser;
let project_id: string;

beforeAll(async () => {
  service = await startTestService();
  owner = await signedInOwner(service, 'shards');
  await service.db.transaction((tx) => grantCredits(tx, { org_id: owner.org_id, credits: 1_000_000, reason: 'test grant', caused_by: 'test' }));
  const project = await http(service, 'POST', '/v1/projects', { token: owner.session, body: { title: 'Shards', org_id: owner.org_id } });
  project_id = project.body.id;
});
afterAll(async () => {
  await service?.stop();
});

/** JSON with every object's keys sorted: the same value gives the same text whether it came from the engine or the database. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return `{${entries
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

const digest = (value: unknown) => createHash('sha256').update(canonical(value)).digest('hex');

/** The worker plans each run with its shard settings as they are when the run starts. */
function shardSettings(replications: number | null, in_flight: number): void {
  service.config.run_shards.replications = replications;
  service.config.run_shards.in_flight = in_flight;
}

async function runToEnd(world: WorldSpec, budget?: number) {
  const saved = await http(service, 'POST', `/v1/projects/${project_id}/worlds`, { token: owner.session, body: world });
  expect(saved.status).toBe(201);
  const quote = await http(service, 'POST', '/v1/runs/estimate', {
    token: owner.session,
    body: { world_revision_id: saved.body.world_revision_id, budget_limit_credits: 1_000_000 },
  });
  const created = await http(service, 'POST', '/v1/runs', {
    token: owner.session,
    body: { world_revision_id: saved.body.world_revision_id, budget_limit_credits: budget ?? quote.body.credits_estimate * 2 },
  });
  expect(created.status).toBe(202);
  const run_id = created.body.run_id as string;
  const run = await eventually(
    async () => {
      const response = await http(service, 'GET', `/v1/runs/${run_id}`, { token: owner.session });
      return response.body.settled_at !== null && !['queued', 'running'].includes(response.body.status) ? response.body : null;
    },
    120_000,
    `run ${run_id} to end and settle`,
  );
  const handle = service.service.client.workflow.getHandle(runWorkflowId(run_id));
  await handle.result();
  const history = await handle.fetchHistory();
  const shards = (history.events ?? []).flatMap((event) => event.activityTaskScheduledEventAttributes?.activityType?.name ?? []);
  return { run, shards, quote: quote.body };
}

describe('a run in shards', () => {
  it('stores the same results and trace whatever the shard size and the shards in flight, the engine’s own', async () => {
    const world = queueWorld({ servers: 2, arrivals_per_minute: 1.5, mean_service_minutes: 1, replications: 7, horizon_minutes: 4_000, seed: 77 });
    const variant_ids = world.variants.map((variant) => variant.id);
    const digests: string[] = [];
    for (const [size, in_flight, shards_expected] of [
      [1, 8, 7],
      [3, 2, 3],
      [7, 8, 1],
    ] as const) {
      shardSettings(size, in_flight);
      const { run, shards } = await runToEnd(world);
      expect(run.status).toBe('succeeded');
      expect(shards).toEqual(Array.from({ length: shards_expected }, () => 'runShard'));
      expect(run.replications_completed).toBe(world.replications * variant_ids.length);
      // Charged once, for the stored events.
      expect(run.credits_used).toBe(creditsForEvents(run.events_simulated));
      const stored = await loadReplications(service.db, run.run_id, variant_ids);
      const events = await allRunEvents(service.db, run.run_id);
      digests.push(digest({ stored, events }));
    }
    expect(new Set(digests).size).toBe(1);
    // The engine in this process, one replication after another: the same results, the same trace.
    const sequential = runSequential(world);
    const expected = digest({
      stored: sequential.map(({ trace: _trace, ...kept }) => ({ ...kept, trace: null })),
      events: eventTrace(world, sequential).events,
    });
    expect(digests[0]).toBe(expected);
  });

  it('stops at the budget judged across shards running at once, within the reservation, charging once', async () => {
    shardSettings(1, 8);
    const world = burstyWorld();
    const balance = async () => (await http(service, 'GET', `/v1/orgs/${owner.org_id}/credits`, { token: owner.session })).body;
    const before = (await balance()).available_credits;
    const estimate = await http(service, 'POST', '/v1/runs/estimate', {
      token: owner.session,
      body: { world_revision_id: await save(world), budget_limit_credits: 1_000_000 },
    });
    const { run, shards } = await runToEnd(world, estimate.body.credits_estimate);
    expect(run.status).toBe('timed_out');
    expect(run.stop_reason).toBe('budget');
    expect(shards.length).toBeGreaterThan(1);
    expect(shards.length).toBeLessThan(world.replications);
    // Never past the reservation, whatever the shards' timing: the stored events fit it, in complete pairs.
    expect(creditsForEvents(run.events_simulated)).toBeLessThanOrEqual(run.credits_reserved);
    expect(run.replications_completed % 2).toBe(0);
    expect(run.replications_completed).toBeGreaterThan(0);
    expect(run.replications_completed).toBeLessThan(run.replications_requested);
    expect(run.credits_used).toBe(Math.min(run.credits_reserved, creditsForEvents(run.events_simulated + run.events_discarded)));
    const after = await balance();
    expect(after.available_credits).toBe(before - run.credits_used);
    expect(after.reserved_credits).toBe(0);
  });

  it('stops at the precision rule (stop_when) judged across shards, keeping complete pairs that are the engine’s own', async () => {
    const MIN = 5;
    const IN_FLIGHT = 4;
    const base = queueWorld({ servers: 2, arrivals_per_minute: 1.5, mean_service_minutes: 1, replications: 40, horizon_minutes: 2_000, seed: 91 });
    // A half-width any interval meets: the rule holds as soon as every variant has its minimum of pairs.
    const world: WorldSpec = { ...base, stop_when: { measure: 'wait', half_width: 1e6, min_replications: MIN } };
    const variants = world.variants.length;

    // One shard: the engine's own rule between replications, so exactly the minimum.
    shardSettings(world.replications, IN_FLIGHT);
    const whole = await runToEnd(world);
    expect(whole.run.status).toBe('succeeded');
    expect(whole.run.stop_reason).toBeNull();
    expect(whole.run.replications_completed).toBe(MIN * variants);

    // Shards of one replication, several in flight: the first shard to end once the stored pairs meet the rule says so,
    // no shard is dispatched after it, and the shards already running (at most IN_FLIGHT - 1) end by themselves.
    shardSettings(1, IN_FLIGHT);
    const { run, shards } = await runToEnd(world);
    expect(run.status).toBe('succeeded');
    expect(run.replications_completed % variants).toBe(0);
    const pairs = run.replications_completed / variants;
    expect(pairs).toBeGreaterThanOrEqual(MIN);
    expect(pairs).toBeLessThanOrEqual(MIN + IN_FLIGHT - 1);
    expect(shards.length).toBe(pairs);
    expect(run.credits_used).toBe(Math.min(run.credits_reserved, creditsForEvents(run.events_simulated + run.events_discarded)));
    // What it kept is replications 0..pairs-1 of every variant, exactly as the engine computes them.
    const stored = await loadReplications(
      service.db,
      run.run_id,
      world.variants.map((variant) => variant.id),
    );
    expect(stored.map((result) => result.replication_index)).toEqual(Array.from({ length: pairs }, (_, index) => Array(variants).fill(index)).flat());
    const engine = runSequential({ ...world, stop_when: undefined, replications: pairs }).map(({ trace: _trace, ...kept }) => ({ ...kept, trace: null }));
    expect(digest(stored)).toBe(digest(engine));

    // A rule no interval meets runs every replication.
    const strict: WorldSpec = { ...base, replications: 8, stop_when: { measure: 'wait', half_width: 1e-9, min_replications: 2 } };
    const all = await runToEnd(strict);
    expect(all.run.status).toBe('succeeded');
    expect(all.run.replications_completed).toBe(8 * variants);
  });
});

async function save(world: WorldSpec): Promise<string> {
  const saved = await http(service, 'POST', `/v1/projects/${project_id}/worlds`, { token: owner.session, body: world });
  return saved.body.world_revision_id;
}
