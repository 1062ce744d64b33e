// A script on @crucible/sdk as installed from its tarball: the walk from a pasted paragraph to a review, the walk from
// a bundled sample world to run results, and the error class. Needs CRUCIBLE_URL, CRUCIBLE_TOKEN (scopes read, write,
// run) and CRUCIBLE_ORG. Prints one JSON summary line. The tarball test type-checks it with tsc --noEmit and runs it.
import { readFileSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { BUNDLED, CrucibleApiError, createCrucibleClient, jobEnded, resourceUrl, unwrap, unwrapAs } from '@crucible/sdk';

const base_url = process.env.CRUCIBLE_URL!;
const org_id = process.env.CRUCIBLE_ORG!;
const client = createCrucibleClient({ baseUrl: base_url, getToken: async () => process.env.CRUCIBLE_TOKEN });
const poll_max = 600;

/** Explicit polling: the SDK never polls by itself. */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (let attempt = 0; attempt < poll_max; attempt += 1) {
    const value = await read();
    if (done(value)) return value;
    await delay(100);
  }
  throw new Error('gave up polling');
}

const paragraph = [
  'Problem: heart failure patients are readmitted to hospital within 30 days of discharge.',
  'Our solution: a remote monitoring app that nurses use to review daily weight and symptoms.',
  'Intended users: heart failure nurses in community care.',
  'Stage: idea, nothing is built yet.',
].join('\n');

// Walk 1: pasted paragraph → review.
const project = unwrap(await client.POST('/v1/projects', { body: { title: 'SDK walk', org_id }, idempotencyKey: `sdk-project-${Date.now()}` }));
const project_id: string = project.id;
const extracted = unwrapAs<{ sources: { id: string; status: string }[] }>(
  await client.POST('/v1/intakes/extract', { body: { text: [paragraph], project_id } }),
);
const parsed = unwrap(
  await client.POST('/v1/projects/{project_id}/intakes/parse', { path: { project_id: project_id }, body: { source_ids: [extracted.sources[0]!.id] } }),
);
const draft = await until(
  async () =>
    unwrapAs<{ id: string; status: string; spec: unknown }>(
      await client.GET('/v1/intake-drafts/{draft_id}', { path: { draft_id: (parsed as { id: string }).id } }),
    ),
  (d) => jobEnded('intake_draft', d.status),
);
unwrap(await client.POST('/v1/projects/{project_id}/intakes', { path: { project_id: project_id }, body: { spec: draft.spec, draft_id: draft.id } as never }));
const plan = unwrapAs<{ id: string }>(await client.POST('/v1/projects/{project_id}/evaluation-plans', { path: { project_id: project_id }, body: {} as never }));
unwrap(
  await client.POST('/v1/projects/{project_id}/evaluation-plans/{plan_id}/approve', {
    path: { project_id: project_id, plan_id: plan.id },
    body: { scope: 'hosted_inference' },
  }),
);
const started = unwrapAs<{ id: string }>(
  await client.POST('/v1/projects/{project_id}/reviews', {
    path: { project_id: project_id },
    body: { plan_id: plan.id },
    idempotencyKey: `sdk-review-${project_id}`,
  }),
);
const review = await until(
  async () =>
    unwrapAs<{ status: string; review?: { dimensions: unknown[] } }>(await client.GET('/v1/reviews/{review_id}', { path: { review_id: started.id } })),
  (r) => jobEnded('review', r.status),
);

// Walk 2: a bundled sample world → run results.
const world_name = BUNDLED.sample_worlds[0];
const world = JSON.parse(readFileSync(resourceUrl(`worlds/${world_name}.json`), 'utf8'));
const validation = unwrapAs<{ valid: boolean }>(await client.POST('/v1/world-specs/validate', { body: world }));
const saved = unwrapAs<{ world_revision_id: string }>(await client.POST('/v1/projects/{project_id}/worlds', { path: { project_id }, body: world }));
const quote = unwrapAs<{ runnable: boolean; credits_estimate: number }>(
  await client.POST('/v1/runs/estimate', { body: { world_revision_id: saved.world_revision_id, budget_limit_credits: 1_000_000 } }),
);
const created = unwrapAs<{ run_id: string }>(
  await client.POST('/v1/runs', {
    body: { world_revision_id: saved.world_revision_id, budget_limit_credits: quote.credits_estimate * 2 },
    idempotencyKey: `sdk-run-${saved.world_revision_id}`,
  }),
);
const run = await until(
  async () => unwrapAs<{ status: string }>(await client.GET('/v1/runs/{run_id}', { path: { run_id: created.run_id } })),
  (r) => jobEnded('run', r.status),
);
const results = unwrapAs<{ findings: unknown[]; metrics: unknown[] }>(await client.GET('/v1/runs/{run_id}/results', { path: { run_id: created.run_id } }));

// Errors: 404, 409 and 422 raise CrucibleApiError with the envelope's fields.
async function failure(promise: Promise<unknown>) {
  try {
    await promise;
    return null;
  } catch (error) {
    if (!(error instanceof CrucibleApiError)) throw error;
    return { status: error.status, code: error.code, message: error.message, details: error.details, request_id: error.request_id };
  }
}
const not_found = await failure(client.GET('/v1/projects/{project_id}', { path: { project_id: 'proj_doesnotexist' } }).then(unwrap));
const conflict = await failure(client.POST('/v1/runs/{run_id}/cancel', { path: { run_id: created.run_id } }).then(unwrap));
const invalid = await failure(client.POST('/v1/projects', { body: { title: '', org_id } }).then(unwrap));

console.log(
  JSON.stringify({
    review_status: review.status,
    dimensions: review.review?.dimensions.length ?? 0,
    world_valid: validation.valid,
    runnable: quote.runnable,
    run_status: run.status,
    findings: results.findings.length,
    metrics: results.metrics.length,
    errors: { not_found, conflict, invalid },
  }),
);
