// Run limits over the real service with a short wall-clock limit: a run that reaches it ends timed_out with the
// replications it completed (complete pairs only); an overloaded world is refused at estimate, naming the resource.
// A run the world makes exceed an engine limit mid-way is in runs.test.ts (it needs more than this wall clock).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorldSpec } from '../../domain/contracts/worldSpec.ts';
import { creditsForEvents } from '../../domain/simulation/index.ts';
import { grantCredits } from '../../store/credits/ledger.ts';
import { eventually, http, signedInOwner, startTestService, type TestService, type TestUser } from '../support/harness.ts';
import { queueWorld } from '../support/worlds.ts';

const WALL_CLOCK_LIMIT_SECONDS = 3;
let service: TestService;
let owner: TestUser;
let project_id: string;

beforeAll(async () => {
  service = await startTestService({ env: { CRUCIBLE_RUN_WALL_CLOCK_LIMIT_SECONDS: String(WALL_CLOCK_LIMIT_SECONDS) } });
  owner = await signedInOwner(service, 'limits');
  await service.db.transaction((tx) => grantCredits(tx, { org_id: owner.org_id, credits: 1_000_000, reason: 'test grant', caused_by: 'test' }));
  const project = await http(service, 'POST', '/v1/projects', { token: owner.session, body: { title: 'Limits', org_id: owner.org_id } });
  project_id = project.body.id;
});
afterAll(async () => {
  await service?.stop();
});

async function available(): Promise<{ available_credits: number; reserved_credits: number }> {
  return (await http(service, 'GET', `/v1/orgs/${owner.org_id}/credits`, { token: owner.session })).body;
}

async function runToEnd(world: WorldSpec) {
  const saved = await http(service, 'POST', `/v1/projects/${project_id}/worlds`, { token: owner.session, body: world });
  const quote = await http(service, 'POST', '/v1/runs/estimate', {
    token: owner.session,
    body: { world_revision_id: saved.body.world_revision_id, budget_limit_credits: 1_000_000 },
  });
  expect(quote.body.runnable).toBe(true);
  const created = await http(service, 'POST', '/v1/runs', {
    token: owner.session,
    body: { world_revision_id: saved.body.world_revision_id, budget_limit_credits: quote.body.credits_estimate },
  });
  expect(created.status).toBe(202);
  return eventually(
    async () => {
      const response = await http(service, 'GET', `/v1/runs/${created.body.run_id}`, { token: owner.session });
      return response.body.settled_at !== null && !['queued', 'running'].includes(response.body.status) ? response.body : null;
    },
    90_000,
    'the run to end and settle',
  );
}

/**
 * 99.9% of the referrals go to the scanner by an attribute branch; the estimate follows the declared attribute
 * probabilities, so it sees the scanner offered about 1.66 servers' worth of work against a capacity of 1.
 */
function hiddenOverloadWorld(): WorldSpec {
  return {
    contract: 'WorldSpec',
    version: '1.0.0',
    name: 'Overload hidden by an attribute',
    synthetic: true,
    time_unit: 'minutes',
    horizon: 30_000,
    warm_up: 0,
    replications: 1,
    seed: 3,
    settings: {},
    arrivals: [
      {
        id: 'referrals',
        kind: 'poisson',
        rate: 100,
        to_step: 'route',
        attributes: [
          {
            name: 'urgency',
            values: [
              { value: 'urgent', probability: 0.999 },
              { value: 'routine', probability: 0.001 },
            ],
          },
        ],
      },
    ],
    resources: [{ id: 'scanner', capacity: 1 }],
    steps: [
      { id: 'route', kind: 'branch', by: 'attribute', attribute: 'urgency', options: [{ equals: 'urgent', next: 'scan' }], otherwise: 'done' },
      { id: 'scan', kind: 'service', resource: 'scanner', duration: { dist: 'fixed', value: 0.0166 }, next: 'done' },
      { id: 'done', kind: 'exit' },
    ],
    measured: [{ id: 'scanned', kind: 'count', event: { step: 'scan', at: 'end' }, unit: 'count', denominator: 'replication', censoring: 'none' }],
    variants: [
      { id: 'baseline', label: 'Current', role: 'baseline', changes: [] },
      { id: 'treatment', label: 'Same', role: 'treatment', changes: [] },
    ],
  } as WorldSpec;
}

describe('run limits', { timeout: 120_000 }, () => {
  it('ends timed_out at the wall-clock limit with the replications it completed, charged for the work done', async () => {
    const before = await available();
    // 800 M events in 2,000 replications (400,000 each): some 15 s on both cores at the engine's fastest (about 53 M
    // events/s for this model, bench/simulation), far past the limit, while a baseline/treatment pair completes well
    // inside it (only complete pairs are kept). A tenth of the horizon finished within 3 s once the engine got faster,
    // and the run then stopped at its budget instead.
    const world = queueWorld({ servers: 5, arrivals_per_minute: 4, mean_service_minutes: 1, horizon_minutes: 50_000, replications: 1000 });
    const run = await runToEnd(world);
    expect(run.status).toBe('timed_out');
    expect(run.stop_reason).toBe('wall_clock');
    expect(run.wall_clock_limit_seconds).toBe(WALL_CLOCK_LIMIT_SECONDS);
    expect(run.replications_completed).toBeGreaterThan(0);
    expect(run.replications_completed).toBeLessThan(run.replications_requested);
    expect(run.credits_used).toBe(Math.min(run.credits_reserved, creditsForEvents(run.events_simulated + run.events_discarded)));
    const after = await available();
    expect(after.available_credits).toBe(before.available_credits - run.credits_used);
    expect(after.reserved_credits).toBe(0);
    const results = await http(service, 'GET', `/v1/runs/${run.run_id}/results`, { token: owner.session });
    expect(results.status).toBe(200);
    expect(results.body.manifest).toMatchObject({ status: 'timed_out', replications_completed: run.replications_completed });
  });

  it('refuses an overloaded world at estimate, naming the resource and by how much', async () => {
    const saved = await http(service, 'POST', `/v1/projects/${project_id}/worlds`, { token: owner.session, body: hiddenOverloadWorld() });
    const quote = await http(service, 'POST', '/v1/runs/estimate', {
      token: owner.session,
      body: { world_revision_id: saved.body.world_revision_id, budget_limit_credits: 1_000_000 },
    });
    expect(quote.status).toBe(200);
    expect(quote.body.runnable).toBe(false);
    const issue = quote.body.issues.find((candidate: { kind: string }) => candidate.kind === 'world_limit');
    expect(issue.message).toContain("resource 'scanner'");
    expect(issue.message).toMatch(/6\d% above/);
    expect(issue.message).toContain('ENTITIES_IN_SYSTEM_MAX');
  });
});
