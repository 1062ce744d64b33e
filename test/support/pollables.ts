// One of each pollable resource, inserted as their create endpoints and workflows would leave them (no workflow
// starts): a project with an intake draft (drafting), a review (searching), a run (running) of a world revision, an
// authoring session (drafting, or waiting on a first checkpoint) and a pending purchase of a pack. Used by the row
// cache tests and bench/api.
import type { Checkpoint } from '../../domain/authoring/checkpoint.ts';
import type { WorldSpec } from '../../domain/contracts/worldSpec.ts';
import { newId } from '../../domain/ids.ts';
import { createOrganization, createUser } from '../../store/accounts/accounts.ts';
import type { Tx } from '../../store/db.ts';
import { createProject } from '../../store/projects/projects.ts';

export type Pollables = { org: string; user: string; project: string; draft: string; review: string; run: string; session: string; intent: string };

export async function seedPollables(tx: Tx, options: { label: string; world: WorldSpec; checkpoint?: Checkpoint }): Promise<Pollables> {
  const user = await createUser(tx, `${options.label}@example.org`, `${options.label} password 1234`);
  const org = await createOrganization(tx, options.label, user.id);
  const project = await createProject(tx, { org_id: org.id, title: `${options.label} project`, created_by: user.id });
  const draft = newId('drf');
  await tx.query(
    `insert into intake_drafts (id, project_id, org_id, source_ids, status, credits_max, created_by) values (?, ?, ?, '[]'::jsonb, 'drafting', 100, ?)`,
    [draft, project.id, org.id, user.id],
  );
  const plan = newId('plan');
  await tx.query(`insert into evaluation_plans (id, project_id, org_id, intake_revision, plan, created_by) values (?, ?, ?, 1, '{}'::jsonb, ?)`, [
    plan,
    project.id,
    org.id,
    user.id,
  ]);
  const review = newId('rev');
  await tx.query(`insert into reviews (id, project_id, org_id, plan_id, status, credits_reserved, created_by) values (?, ?, ?, ?, 'searching', 50, ?)`, [
    review,
    project.id,
    org.id,
    plan,
    user.id,
  ]);
  const revision = newId('wrev');
  await tx.query(`insert into world_revisions (id, project_id, org_id, revision, name, spec, created_by) values (?, ?, ?, 1, ?, ?::jsonb, ?)`, [
    revision,
    project.id,
    org.id,
    options.label,
    JSON.stringify(options.world),
    user.id,
  ]);
  const run = newId('run');
  await tx.query(
    `insert into runs (id, org_id, project_id, world_revision_id, status, budget_limit_credits, credits_estimate, events_estimate,
       credits_reserved, replications_requested, wall_clock_limit_seconds, created_by)
     values (?, ?, ?, ?, 'running', 1000, 10, 1000, 100, 10, 60, ?)`,
    [run, org.id, project.id, revision, user.id],
  );
  const session = newId('sess');
  await tx.query(
    `insert into authoring_sessions (id, org_id, project_id, status, ai_limits, wait_seconds_max, checkpoint_count, created_by)
     values (?, ?, ?, ?, '{}'::jsonb, 3600, ?, ?)`,
    [session, org.id, project.id, options.checkpoint ? 'waiting' : 'drafting', options.checkpoint ? 1 : 0, user.id],
  );
  if (options.checkpoint) {
    await tx.query('insert into authoring_checkpoints (session_id, number, body) values (?, ?, ?::jsonb)', [
      session,
      options.checkpoint.number,
      JSON.stringify(options.checkpoint),
    ]);
  }
  const pack_key = `pack_${newId('pi').slice(3, 11)}`;
  await tx.query(`insert into billing_packs (pack_key, title, price_id, credits, live_mode) values (?, 'A pack', ?, 1000, false)`, [
    pack_key,
    `price_${pack_key}`,
  ]);
  const intent = newId('pi');
  await tx.query(
    `insert into purchase_intents (id, owner_id, org_id, pack_key, price_id, amount, currency, credits, live_mode, return_url, status, expires_at, created_by)
     values (?, ?, ?, ?, ?, 1500, 'eur', 1000, false, 'https://example.org/back', 'pending', now() + interval '1 day', ?)`,
    [intent, org.id, org.id, pack_key, `price_${pack_key}`, user.id],
  );
  return { org: org.id, user: user.id, project: project.id, draft, review, run, session, intent };
}
