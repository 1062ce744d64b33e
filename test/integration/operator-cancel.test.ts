// A job an operator cancels through Temporal before any worker took it (its workflow's first task then holds the start
// and the cancel together, so the cancel lands during the job's first step): the row still ends, canceled (an authoring
// session: failed with CANCELED), and the credits its create reserved are resolved, nothing charged. An API process with
// no worker creates one job of each kind; the operator cancels each workflow; then a worker of the same queue comes up
// on the same PostgreSQL database and runs them. Real services, Temporal dev server, PostgreSQL.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobWorkflowId } from '../../domain/jobs.ts';
import { balances, grantCredits } from '../../store/credits/ledger.ts';
import { signedInOwner, startTestService, startWorkerOf, type TestService, type TestUser } from '../support/harness.ts';
import { JOB_KIND_NAMES, type JobKindName, jobKinds, readUntil } from '../support/jobKinds.ts';

const key = () => `k-${randomBytes(8).toString('hex')}`;

/** How each kind says it was canceled: its own status, or an authoring session's failure with the CANCELED code. */
const CANCELED: Record<JobKindName, (body: any) => boolean> = {
  run: (body) => body.status === 'canceled' && body.settled_at !== null,
  review: (body) => body.status === 'canceled',
  intake_draft: (body) => body.status === 'canceled',
  authoring: (body) => body.status === 'failed' && body.failure?.code === 'CANCELED',
};

describe.runIf(process.env.DATABASE_URL)('a job canceled through Temporal before a worker took it (PostgreSQL)', () => {
  let api: TestService;
  let worker: Awaited<ReturnType<typeof startWorkerOf>> | undefined;
  let owner: TestUser;
  beforeAll(async () => {
    api = await startTestService({ mode: 'api' });
    owner = await signedInOwner(api, 'operator-cancel');
  });
  afterAll(async () => {
    await worker?.stopWorker();
    await api?.stop();
  }, 240_000);

  it('ends every kind of job canceled, its reservation resolved and nothing charged', async () => {
    const kinds = jobKinds(api);
    const created: Array<{ name: JobKindName; id: string }> = [];
    for (const name of JOB_KIND_NAMES) {
      const { credits, create } = await kinds[name].prepare(owner);
      await api.db.transaction((tx) => grantCredits(tx, { org_id: owner.org_id, credits, reason: 'operator cancel test grant', caused_by: 'test' }));
      const answer = await create(key());
      expect(answer.status, JSON.stringify(answer.body)).toBe(kinds[name].accepted_status);
      created.push({ name, id: kinds[name].id(answer.body) });
    }
    const before = await balances(api.db, owner.org_id);
    expect(before.reserved_credits).toBeGreaterThan(0);
    for (const { name, id } of created) await api.service.client.workflow.getHandle(jobWorkflowId(name, id)).cancel();

    worker = await startWorkerOf(api);
    for (const { name, id } of created) {
      const ended = await readUntil(api, owner, kinds[name].path(id), CANCELED[name], `the canceled ${name} ${id} to end`);
      expect(ended.failure ?? ended.error ?? null, name).toMatchObject({ code: 'CANCELED' });
    }
    const after = await balances(api.db, owner.org_id);
    expect(after.reserved_credits).toBe(0);
    expect(after.available_credits).toBe(before.available_credits + before.reserved_credits);
  }, 300_000);
});
