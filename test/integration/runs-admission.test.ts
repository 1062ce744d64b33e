// Run admission reserves under the organization's credit lock: concurrent creates beyond the balance are
// refused at once with 402, nothing is queued for them, the balance never goes negative, and a refusal is not recorded
// under its Idempotency-Key (a retry after adding credits is admitted).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grantCredits } from '../../store/credits/ledger.ts';
import { eventually, http, type HttpResult, signedInOwner, startTestService, type TestService, type TestUser } from '../support/harness.ts';
import { queueWorld } from '../support/worlds.ts';

const CONCURRENT_CREATES = 20;
const RUNS_COVERED = 2;

let service: TestService;
let owner: TestUser;
let credits_estimate: number;

/** A new organization with a saved world, granted `credits`. */
async function organization(label: string, credits: (credits_estimate: number) => number) {
  const user = await signedInOwner(service, label);
  const project = await http(service, 'POST', '/v1/projects', { token: user.session, body: { title: 'Admission', org_id: user.org_id } });
  const saved = await http(service, 'POST', `/v1/projects/${project.body.id}/worlds`, {
    token: user.session,
    body: queueWorld({ servers: 1, arrivals_per_minute: 0.5, mean_service_minutes: 1, replications: 2 }),
  });
  const revision: string = saved.body.world_revision_id;
  const estimate: number = (
    await http(service, 'POST', '/v1/runs/estimate', { token: user.session, body: { world_revision_id: revision, budget_limit_credits: 1 } })
  ).body.credits_estimate;
  await service.db.transaction((tx) => grantCredits(tx, { org_id: user.org_id, credits: credits(estimate), reason: 'test grant', caused_by: 'test' }));
  const create = (key: string) =>
    http(service, 'POST', '/v1/runs', {
      token: user.session,
      body: { world_revision_id: revision, budget_limit_credits: estimate },
      headers: { 'idempotency-key': key },
    });
  return { user, world_revision_id: revision, credits_estimate: estimate, create };
}

let create: (key: string) => Promise<HttpResult>;

beforeAll(async () => {
  service = await startTestService();
  // Enough for two runs, one credit short of a third.
  const org = await organization('admission', (estimate) => RUNS_COVERED * estimate + estimate - 1);
  ({ user: owner, credits_estimate, create } = org);
});
afterAll(async () => {
  await service?.stop();
});

describe('run admission', () => {
  it(`admits ${RUNS_COVERED} of ${CONCURRENT_CREATES} concurrent creates against a balance that covers ${RUNS_COVERED}, refusing the rest with 402 at once`, async () => {
    const answers = await Promise.all(Array.from({ length: CONCURRENT_CREATES }, (_, index) => create(`admission-${index}`)));
    const accepted = answers.filter((answer) => answer.status === 202);
    const refused = answers.filter((answer) => answer.status === 402);
    expect(accepted).toHaveLength(RUNS_COVERED);
    expect(refused).toHaveLength(CONCURRENT_CREATES - RUNS_COVERED);
    for (const answer of refused) {
      expect(answer.body).toMatchObject({ code: 'INSUFFICIENT_CREDITS', details: { needed_credits: credits_estimate } });
      expect(answer.body.details.available_credits).toBeLessThan(credits_estimate);
    }
    // Nothing was queued for the refused creates: only the admitted runs exist.
    const rows = await service.db.query<{ id: string }>('select id from runs where org_id = ?', [owner.org_id]);
    expect(rows.map((row) => row.id).sort()).toEqual(accepted.map((answer) => answer.body.run_id).sort());
    for (const answer of accepted) {
      const ended = await eventually(
        async () => {
          const run = await http(service, 'GET', `/v1/runs/${answer.body.run_id}`, { token: owner.session });
          return run.body.settled_at ? run.body : null;
        },
        60_000,
        'an admitted run to settle',
      );
      expect(ended.status).toBe('succeeded');
    }
    const negative = await service.db.query('select id from credit_accounts where org_id = ? and credits_posted - debits_posted - debits_pending < 0', [
      owner.org_id,
    ]);
    expect(negative).toEqual([]);
    const balance = await http(service, 'GET', `/v1/orgs/${owner.org_id}/credits`, { token: owner.session });
    expect(balance.body.available_credits).toBeGreaterThanOrEqual(0);
  });

  it('replays an admitted create under its key, and does not record a refusal: the same key is admitted once credits are added', async () => {
    const org = await organization('admission-keys', (estimate) => estimate);
    const admitted = await org.create('first');
    expect(admitted.status).toBe(202);
    const replayed = await org.create('first');
    expect(replayed.status).toBe(202);
    expect(replayed.body.run_id).toBe(admitted.body.run_id);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');

    // The first run holds (or has spent part of) the whole balance: a second create is refused, and the refusal is not
    // kept under its key.
    const refused = await org.create('second');
    expect(refused.status).toBe(402);
    await service.db.transaction((tx) => grantCredits(tx, { org_id: org.user.org_id, credits: org.credits_estimate, reason: 'top-up', caused_by: 'test' }));
    const retried = await org.create('second');
    expect(retried.status).toBe(202);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    const rows = await service.db.query<{ id: string }>('select id from runs where org_id = ?', [org.user.org_id]);
    expect(rows).toHaveLength(2);
  });

  it('sends X-Content-Type-Options: nosniff with a download (the signed export of a finished run)', async () => {
    const finished = await service.db.one<{ id: string }>(`select id from runs where org_id = ? and status = 'succeeded' limit 1`, [owner.org_id]);
    const link = await http(service, 'POST', `/v1/runs/${finished!.id}/export`, { token: owner.session });
    expect(link.status).toBe(200);
    const download = await fetch(link.body.url);
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('application/zip');
    expect(download.headers.get('x-content-type-options')).toBe('nosniff');
    await download.arrayBuffer();
  });
});
