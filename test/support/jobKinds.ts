// What a test needs to create each kind of job through the API as a user would (a run, a review, an intake draft, an
// authoring session): the material it needs, the credits its create reserves, its create call, its id, its read path,
// and when its metered work is over. Shared by the admission tests and the operator-cancel tests.
import { expect } from 'vitest';
import { firstStepCreditsMax } from '../../domain/authoring/session.ts';
import { intakeDraftCreditsBound } from '../../domain/intake/register.ts';
import { buildIntakeDraftUserMessage } from '../../domain/prompts/intakeDraft.ts';
import { reviewCreditsEstimate } from '../../domain/reviews/limits.ts';
import { latestIntakeRevision } from '../../store/intake/revisions.ts';
import { processedSourceLines } from '../../store/intake/sources.ts';
import { projectWithIntake, waiting } from './authoring.ts';
import { textFile } from './corpus.ts';
import { eventually, http, type HttpResult, type TestService, type TestUser } from './harness.ts';
import { ideaStageIntake, withoutCitations } from './reviewFixtures.ts';
import { queueWorld } from './worlds.ts';

export async function newProject(service: TestService, user: TestUser, title: string): Promise<string> {
  const created = await http(service, 'POST', '/v1/projects', { token: user.session, body: { title, org_id: user.org_id } });
  expect(created.status).toBe(201);
  return created.body.id;
}

/** A project with a confirmed idea-stage intake and a plan with hosted_inference approved. */
export async function approvedPlan(service: TestService, user: TestUser): Promise<{ project_id: string; plan_id: string }> {
  const project_id = await newProject(service, user, 'Admitted review');
  const confirmed = await http(service, 'POST', `/v1/projects/${project_id}/intakes`, {
    token: user.session,
    body: { spec: withoutCitations(ideaStageIntake()) },
  });
  expect(confirmed.status).toBe(201);
  const plan = await http(service, 'POST', `/v1/projects/${project_id}/evaluation-plans`, { token: user.session, body: {} });
  expect(plan.status).toBe(201);
  const approved = await http(service, 'POST', `/v1/projects/${project_id}/evaluation-plans/${plan.body.id}/approve`, {
    token: user.session,
    body: { scope: 'hosted_inference' },
  });
  expect(approved.status).toBe(200);
  return { project_id, plan_id: plan.body.id };
}

/** A project with one processed source, uploaded as a user would. */
export async function projectWithSource(service: TestService, user: TestUser): Promise<{ project_id: string; source_id: string }> {
  const project_id = await newProject(service, user, 'Admitted draft');
  const form = new FormData();
  form.append('project_id', project_id);
  const file = textFile();
  if (file.input.kind !== 'file') throw new Error('a file input');
  form.append('files', new Blob([file.input.bytes as Uint8Array<ArrayBuffer>], { type: 'text/plain' }), file.input.filename);
  const extracted = await fetch(`${service.url}/v1/intakes/extract`, { method: 'POST', headers: { authorization: `Bearer ${user.session}` }, body: form });
  expect(extracted.status).toBe(201);
  return { project_id, source_id: ((await extracted.json()) as { sources: Array<{ id: string }> }).sources[0]!.id };
}

/** What one kind needs for a test: a way to create one job, what it reserves, where it is read, and when it has ended (or waits). */
export type JobKindForTests = {
  table: 'runs' | 'reviews' | 'intake_drafts' | 'authoring_sessions';
  subject_kind: string;
  accepted_status: number;
  /** Sets up an organization's material; returns the job's reservation and its create call. */
  prepare(user: TestUser): Promise<{ credits: number; create(idempotency_key: string): Promise<HttpResult> }>;
  id(body: any): string;
  /** GET path of one job. */
  path(id: string): string;
  /** Resolves once the job's metered work is over (ended, or an authoring session waiting after its first step). */
  settled(user: TestUser, id: string): Promise<void>;
};

export const FINISHED = ['succeeded', 'failed', 'canceled', 'timed_out'];

/** Waits until the job read at `path` satisfies `done`; answers its last read. */
export async function readUntil(service: TestService, user: TestUser, path: string, done: (body: any) => boolean, what: string): Promise<any> {
  return eventually(
    async () => {
      const read = await http(service, 'GET', path, { token: user.session });
      return done(read.body) ? read.body : null;
    },
    120_000,
    what,
  );
}

export const JOB_KIND_NAMES = ['run', 'review', 'intake_draft', 'authoring'] as const;
export type JobKindName = (typeof JOB_KIND_NAMES)[number];

/** The four kinds of job, created through `service`'s API (call it once the service is up). */
export function jobKinds(service: TestService): Record<JobKindName, JobKindForTests> {
  const ended = (user: TestUser, path: string, what: string) => readUntil(service, user, path, (body) => FINISHED.includes(body.status), what);
  return {
    run: {
      table: 'runs',
      subject_kind: 'run',
      accepted_status: 202,
      async prepare(user) {
        const project_id = await newProject(service, user, 'Admitted run');
        const world = queueWorld({ servers: 1, arrivals_per_minute: 0.5, mean_service_minutes: 1, replications: 2 });
        const saved = await http(service, 'POST', `/v1/projects/${project_id}/worlds`, { token: user.session, body: world });
        expect(saved.status).toBe(201);
        const world_revision_id: string = saved.body.world_revision_id;
        const estimate = await http(service, 'POST', '/v1/runs/estimate', { token: user.session, body: { world_revision_id, budget_limit_credits: 1 } });
        const budget_limit_credits: number = estimate.body.credits_estimate;
        const priced = await http(service, 'POST', '/v1/runs/estimate', { token: user.session, body: { world_revision_id, budget_limit_credits } });
        return {
          credits: priced.body.reserved_credits,
          create: (idempotency_key) =>
            http(service, 'POST', '/v1/runs', {
              token: user.session,
              body: { world_revision_id, budget_limit_credits },
              headers: { 'idempotency-key': idempotency_key },
            }),
        };
      },
      id: (body) => body.run_id,
      path: (id) => `/v1/runs/${id}`,
      settled: async (user, id) => {
        await readUntil(service, user, `/v1/runs/${id}`, (run) => FINISHED.includes(run.status) && run.settled_at !== null, `run ${id} to settle`);
      },
    },
    review: {
      table: 'reviews',
      subject_kind: 'review',
      accepted_status: 201,
      async prepare(user) {
        const { project_id, plan_id } = await approvedPlan(service, user);
        return {
          credits: reviewCreditsEstimate(service.config.ai_credits_per_1k_tokens),
          create: (idempotency_key) =>
            http(service, 'POST', `/v1/projects/${project_id}/reviews`, {
              token: user.session,
              body: { plan_id },
              headers: { 'idempotency-key': idempotency_key },
            }),
        };
      },
      id: (body) => body.id,
      path: (id) => `/v1/reviews/${id}`,
      settled: async (user, id) => {
        await ended(user, `/v1/reviews/${id}`, `review ${id} to end`);
      },
    },
    intake_draft: {
      table: 'intake_drafts',
      subject_kind: 'intake_draft',
      accepted_status: 202,
      async prepare(user) {
        const { project_id, source_id } = await projectWithSource(service, user);
        // The bound the route computes from the same stored lines.
        const prompt = buildIntakeDraftUserMessage(await processedSourceLines(service.db, user.org_id, [source_id]));
        return {
          credits: intakeDraftCreditsBound({ prompt, byok: false, credits_per_1k_tokens: service.config.ai_credits_per_1k_tokens }),
          create: (idempotency_key) =>
            http(service, 'POST', `/v1/projects/${project_id}/intakes/parse`, {
              token: user.session,
              body: { source_ids: [source_id] },
              headers: { 'idempotency-key': idempotency_key },
            }),
        };
      },
      id: (body) => body.id,
      path: (id) => `/v1/intake-drafts/${id}`,
      settled: async (user, id) => {
        await ended(user, `/v1/intake-drafts/${id}`, `draft ${id} to end`);
      },
    },
    authoring: {
      table: 'authoring_sessions',
      subject_kind: 'session',
      accepted_status: 201,
      async prepare(user) {
        const project_id = await projectWithIntake(service, user);
        const intake = await latestIntakeRevision(service.db, project_id);
        return {
          credits: firstStepCreditsMax({
            intake: intake!.spec,
            starting_world: null,
            byok: false,
            credits_per_1k_tokens: service.config.ai_credits_per_1k_tokens,
            ai_limits: service.config.authoring_ai_limits,
          }),
          create: (idempotency_key) =>
            http(service, 'POST', `/v1/projects/${project_id}/authoring-sessions`, {
              token: user.session,
              body: {},
              headers: { 'idempotency-key': idempotency_key },
            }),
        };
      },
      id: (body) => body.id,
      path: (id) => `/v1/authoring-sessions/${id}`,
      settled: async (user, id) => {
        const session = await waiting(service, user, id);
        expect(session.status).toBe('waiting');
      },
    },
  };
}
