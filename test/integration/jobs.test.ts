// The long jobs' seams on the real service and Temporal dev server: the worker's one failure boundary (a ServiceError
// fails once, not once per retry), the maintenance schedule (one workflow execution per tick, a cadence that keeps an idle
// hour to a few dozen executions) and the search attributes that let an operator find any job by its organization.
import { randomBytes } from 'node:crypto';
import { ApplicationFailure, ScheduleOverlapPolicy, WorkflowFailedError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  JOB_SEARCH_ATTRIBUTES,
  MAINTENANCE_INTERVAL_MINUTES,
  MAINTENANCE_WORKFLOW_TYPE,
  intakeDraftWorkflowId,
  reviewWorkflowId,
  runWorkflowId,
} from '../../domain/jobs.ts';
import { estimateRun } from '../../domain/simulation/index.ts';
import { maintenanceScheduleId } from '../../runtime/service.ts';
import { grantCredits } from '../../store/credits/ledger.ts';
import { createDraft } from '../../store/intake/drafts.ts';
import { createReview } from '../../store/reviews/reviews.ts';
import type { maintenanceWorkflow } from '../../workflows/maintenance.ts';
import { probeAttempts } from '../support/activities.ts';
import { eventually, http, signedInOwner, startTestService, type TestService, type TestUser } from '../support/harness.ts';
import { ideaStageIntake, withoutCitations } from '../support/reviewFixtures.ts';
import { BOUNDARY_PROBE_ATTEMPTS_MAX, type failureBoundaryProbeWorkflow } from '../support/workflows/boundary.ts';
import { queueWorld } from '../support/worlds.ts';

/** "A few dozen": what an hour of idle service may add to the Temporal UI's list of executions. */
const IDLE_HOUR_EXECUTIONS_MAX = 36;
/** The dev server's visibility store is eventually consistent: how long a search may take to see a new execution. */
const VISIBILITY_WAIT_MS = 60_000;

let service: TestService;
let owner: TestUser;

beforeAll(async () => {
  service = await startTestService();
  owner = await signedInOwner(service, 'jobs');
}, 120_000);
afterAll(async () => {
  await service?.stop();
});

const unique = (label: string) => `${label}-${randomBytes(5).toString('hex')}`;

async function countExecutions(query: string): Promise<number> {
  return (await service.service.client.workflow.count(query)).count;
}

describe('the worker failure boundary', () => {
  const probe = async (throws: 'service_error' | 'internal' | 'plain_error') => {
    const probe_id = unique(throws);
    const failure = await service.service.client.workflow
      .execute<typeof failureBoundaryProbeWorkflow>('failureBoundaryProbeWorkflow', {
        taskQueue: service.task_queue,
        workflowId: probe_id,
        args: [{ probe_id, throws }],
      })
      .then(
        () => null,
        (error: unknown) => error,
      );
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    const cause = (failure as WorkflowFailedError).cause?.cause;
    expect(cause).toBeInstanceOf(ApplicationFailure);
    return { attempts: probeAttempts.get(probe_id), failure: cause as ApplicationFailure };
  };

  it('runs an activity that throws a ServiceError once and records a non-retryable failure of its code', async () => {
    const { attempts, failure } = await probe('service_error');
    expect(attempts).toBe(1);
    expect(failure.type).toBe('CONFLICT');
    expect(failure.nonRetryable).toBe(true);
    expect(failure.details).toEqual([{ probe_id: expect.any(String) }]);
  });

  it('runs an activity that breaks an invariant once, as INTERNAL', async () => {
    const { attempts, failure } = await probe('internal');
    expect(attempts).toBe(1);
    expect(failure.type).toBe('INTERNAL');
    expect(failure.nonRetryable).toBe(true);
  });

  it('retries any other error up to the attempts its profile allows', async () => {
    const { attempts, failure } = await probe('plain_error');
    expect(attempts).toBe(BOUNDARY_PROBE_ATTEMPTS_MAX);
    expect(failure.nonRetryable).toBe(false);
  });
});

describe('the maintenance schedule', () => {
  it('ticks every few minutes, each tick one workflow execution, so an idle hour adds at most a few dozen', async () => {
    const description = await service.service.client.schedule.getHandle(maintenanceScheduleId(service.config)).describe();
    expect(description.spec.intervals).toMatchObject([{ every: MAINTENANCE_INTERVAL_MINUTES * 60_000 }]);
    expect(description.action).toMatchObject({ type: 'startWorkflow', workflowType: MAINTENANCE_WORKFLOW_TYPE, taskQueue: service.task_queue });
    expect(description.policies.overlap).toBe(ScheduleOverlapPolicy.SKIP);

    // Simulated ticks: the schedule's action, run N times, on an idle service (nothing queued).
    const ticks = 3;
    const started_at = new Date(Date.now() - 1000).toISOString();
    const prefix = unique('tick');
    for (let tick = 0; tick < ticks; tick++) {
      await service.service.client.workflow.execute<typeof maintenanceWorkflow>(MAINTENANCE_WORKFLOW_TYPE, {
        taskQueue: service.task_queue,
        workflowId: `${prefix}-${tick}`,
        args: [{}],
      });
    }
    const mine = `TaskQueue = '${service.task_queue}' AND StartTime >= '${started_at}'`;
    await eventually(
      async () => (await countExecutions(`${mine} AND WorkflowId STARTS_WITH '${prefix}' AND ExecutionStatus = 'Completed'`)) === ticks,
      VISIBILITY_WAIT_MS,
      'the ticks to be visible',
    );
    // Nothing else started on this task queue meanwhile: no child workflow per reconciler, no job for an idle service.
    expect(await countExecutions(`${mine} AND WorkflowType != '${MAINTENANCE_WORKFLOW_TYPE}'`)).toBe(0);
    const executions_per_tick = 1;
    expect((60 / MAINTENANCE_INTERVAL_MINUTES) * executions_per_tick).toBeLessThanOrEqual(IDLE_HOUR_EXECUTIONS_MAX);
  });
});

describe('finding a job in the Temporal UI', () => {
  it('finds a run, a review and a draft by a search naming their organization, with project, kind and id', async () => {
    await service.db.transaction((tx) => grantCredits(tx, { org_id: owner.org_id, credits: 5000, reason: 'jobs test grant', caused_by: 'test' }));
    const project = await http(service, 'POST', '/v1/projects', { token: owner.session, body: { title: 'Findable', org_id: owner.org_id } });
    expect(project.status).toBe(201);
    const project_id = project.body.id as string;

    // A run, started by its route.
    const world = queueWorld({ servers: 1, arrivals_per_minute: 0.5, mean_service_minutes: 1, replications: 1, horizon_minutes: 500, warm_up_minutes: 50 });
    const saved = await http(service, 'POST', `/v1/projects/${project_id}/worlds`, { token: owner.session, body: world });
    expect(saved.status).toBe(201);
    const run = await http(service, 'POST', '/v1/runs', {
      token: owner.session,
      body: { world_revision_id: saved.body.world_revision_id, budget_limit_credits: estimateRun(world).credits_estimate * 2 },
    });
    expect(run.status, JSON.stringify(run.body)).toBe(202);

    // A review and a draft whose rows committed without their start: the maintenance reconcilers start them with the
    // same startJob the routes use.
    const confirmed = await http(service, 'POST', `/v1/projects/${project_id}/intakes`, {
      token: owner.session,
      body: { spec: withoutCitations(ideaStageIntake()) },
    });
    expect(confirmed.status).toBe(201);
    const plan = await http(service, 'POST', `/v1/projects/${project_id}/evaluation-plans`, { token: owner.session, body: {} });
    expect(plan.status).toBe(201);
    const review = await service.db.transaction((tx) =>
      createReview(tx, { project_id, org_id: owner.org_id, plan_id: plan.body.id, byok_provider: null, credits_reserved: 0, created_by: owner.user_id }),
    );
    const draft = await service.db.transaction((tx) =>
      createDraft(tx, {
        project_id,
        org_id: owner.org_id,
        source_ids: [],
        skipped_source_ids: [],
        byok_provider: null,
        credits_max: 0,
        created_by: owner.user_id,
      }),
    );
    const reconciled = await service.service.client.workflow.execute<typeof maintenanceWorkflow>(MAINTENANCE_WORKFLOW_TYPE, {
      taskQueue: service.task_queue,
      workflowId: unique('maintenance'),
      args: [{ older_than_ms: 0 }],
    });
    expect(reconciled.reviews_started).toBeGreaterThanOrEqual(1);
    expect(reconciled.intake_drafts_started).toBeGreaterThanOrEqual(1);

    // What an operator types in the Temporal UI (docs/operators.md).
    const expected = [runWorkflowId(run.body.run_id), reviewWorkflowId(review.id), intakeDraftWorkflowId(draft.id)].sort();
    const byOrg = `${JOB_SEARCH_ATTRIBUTES.org_id} = "${owner.org_id}"`;
    const found = await eventually(
      async () => {
        const ids: string[] = [];
        for await (const execution of service.service.client.workflow.list({ query: byOrg })) ids.push(execution.workflowId);
        return expected.every((id) => ids.includes(id)) ? ids.sort() : null;
      },
      VISIBILITY_WAIT_MS,
      'the three jobs to be found by organization',
    );
    expect(found).toEqual(expected);

    const byResource = `${JOB_SEARCH_ATTRIBUTES.resource_id} = "${review.id}" AND ${JOB_SEARCH_ATTRIBUTES.resource_kind} = "review" AND ${JOB_SEARCH_ATTRIBUTES.project_id} = "${project_id}"`;
    expect(await countExecutions(byResource)).toBe(1);
  });
});
