// The PGlite row cache (store/rowCache.ts) is exact: a read after a write this process committed sees the write,
// whether the write changed the row itself or a row its view reads (replications, AI usage), inside a transaction or not.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../domain/ids.ts';
import { createOrganization, createUser } from '../../store/accounts/accounts.ts';
import { openDatabase, type Db } from '../../store/db.ts';
import { findDraft } from '../../store/intake/drafts.ts';
import { createProject, findProject } from '../../store/projects/projects.ts';
import { findReview, reviewUsage } from '../../store/review/reviews.ts';
import { getRun } from '../../store/runs/runs.ts';
import { queueWorld } from '../support/worlds.ts';

let db: Db;
let ids: { org: string; user: string; project: string; draft: string; review: string; run: string };

beforeAll(async () => {
  db = await openDatabase({ database_url: null, pglite_dir: 'memory://' });
  await db.migrate();
  ids = await db.transaction(async (tx) => {
    const user = await createUser(tx, 'cache@example.org', 'cache password 1234');
    const org = await createOrganization(tx, 'Cache', user.id);
    const project = await createProject(tx, { org_id: org.id, title: 'Cache project', created_by: user.id });
    const draft = newId('drf');
    await tx.query(
      `insert into intake_drafts (id, project_id, org_id, source_ids, status, credits_max, created_by) values (?, ?, ?, '[]'::jsonb, 'drafting', 100, ?)`,
      [draft, project.id, org.id, user.id],
    );
    const plan = newId('plan');
    await tx.query(`insert into evaluation_plans (id, project_id, org_id, intake_revision, plan, created_by) values (?, ?, ?, 1, '{}'::jsonb, ?)`, [plan, project.id, org.id, user.id]);
    const review = newId('rev');
    await tx.query(`insert into reviews (id, project_id, org_id, plan_id, status, credits_reserved, created_by) values (?, ?, ?, ?, 'searching', 50, ?)`, [
      review,
      project.id,
      org.id,
      plan,
      user.id,
    ]);
    const revision = newId('wrev');
    await tx.query(`insert into world_revisions (id, project_id, org_id, revision, name, spec, created_by) values (?, ?, ?, 1, 'cache', ?::jsonb, ?)`, [
      revision,
      project.id,
      org.id,
      JSON.stringify(queueWorld({ servers: 2, arrivals_per_minute: 1, mean_service_minutes: 1 })),
      user.id,
    ]);
    const run = newId('run');
    await tx.query(
      `insert into runs (id, org_id, project_id, world_revision_id, status, budget_limit_credits, credits_estimate, events_estimate,
         credits_reserved, replications_requested, wall_clock_limit_seconds, created_by)
       values (?, ?, ?, ?, 'running', 1000, 10, 1000, 100, 10, 60, ?)`,
      [run, org.id, project.id, revision, user.id],
    );
    return { org: org.id, user: user.id, project: project.id, draft, review, run };
  });
});
afterAll(async () => {
  await db?.close();
});

describe('the PGlite row cache', () => {
  it('is on for the database itself and answers the same row again', async () => {
    expect(db.row_cache).toBeDefined();
    const first = await findProject(db, ids.project);
    expect(await findProject(db, ids.project)).toEqual(first);
  });

  it('shows a committed change of the row at once', async () => {
    expect((await findDraft(db, ids.draft))?.status).toBe('drafting');
    await db.transaction((tx) => tx.query(`update intake_drafts set status = 'failed' where id = ?`, [ids.draft]));
    expect((await findDraft(db, ids.draft))?.status).toBe('failed');
    expect((await findReview(db, ids.review))?.status).toBe('searching');
    await db.query(`update reviews set status = 'drafting' where id = ?`, [ids.review]);
    expect((await findReview(db, ids.review))?.status).toBe('drafting');
  });

  it("shows a run's new replication and a review's new AI usage at once", async () => {
    expect((await getRun(db, ids.run))?.replications_completed).toBe(0);
    await db.transaction((tx) =>
      tx.query(`insert into run_replications (run_id, variant_id, replication_index, events_total, result) values (?, 'baseline', 0, 123, '{}'::jsonb)`, [ids.run]),
    );
    const run = await getRun(db, ids.run);
    expect(run?.replications_completed).toBe(1);
    expect(run?.events_simulated).toBe(123);

    expect((await reviewUsage(db, ids.review)).calls).toBe(0);
    await db.query(
      `insert into ai_usage (id, org_id, provider, model, byok, input_tokens, output_tokens, duration_ms, project_id, subject_kind, subject_id, task,
         credits_charged, workflow_id, run_id, activity_id)
       values (?, ?, 'anthropic', 'm', false, 10, 20, 1, ?, 'review', ?, 'draft', 3, 'wf', 'r', 'a')`,
      [newId('use'), ids.org, ids.project, ids.review],
    );
    expect(await reviewUsage(db, ids.review)).toEqual({ calls: 1, input_tokens: 10, output_tokens: 20, credits_charged: 3 });
  });

  it('gives each caller its own copy of a kept row', async () => {
    const run = (await getRun(db, ids.run))!;
    run.status = 'canceled';
    expect((await getRun(db, ids.run))?.status).toBe('running');
  });

  it('never serves a transaction from the cache', async () => {
    await getRun(db, ids.run);
    const inside = await db.transaction(async (tx) => {
      await tx.query(`update runs set status = 'timed_out' where id = ?`, [ids.run]);
      return (await getRun(tx, ids.run))?.status;
    });
    expect(inside).toBe('timed_out');
    expect((await getRun(db, ids.run))?.status).toBe('timed_out');
  });
});
