// Saved WorldSpec revisions: numbered 1, 2, 3... per project with no gap or duplicate (spec: Versioning — distinct world
// revision saves serialize revision numbering). The run room reads a revision's document through getWorldRevision.
import type { Static } from 'typebox';
import type { WorldSpec } from '../../domain/contracts/worldSpec.ts';
import type { WorldRevisionSummary as WorldRevisionSummaryBody } from '../../domain/contracts/worlds.ts';
import { invariant } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import { isoRequired } from '../../domain/time.ts';
import type { Tx } from '../db.ts';
import { lockProject } from '../projects/projects.ts';

/** A revision without its document, as the API lists it (domain/contracts/worlds.ts). */
export type WorldRevisionSummary = Static<typeof WorldRevisionSummaryBody>;

/** A revision with its document, typed as the WorldSpec it was validated as. */
export type WorldRevisionView = WorldRevisionSummary & { world: WorldSpec };

function json<T>(value: unknown): T {
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}

function summary(row: Record<string, unknown>): WorldRevisionSummary {
  return {
    world_revision_id: row.id as string,
    project_id: row.project_id as string,
    org_id: row.org_id as string,
    revision: Number(row.revision),
    name: row.name as string,
    created_by: row.created_by as string,
    created_at: isoRequired(row.created_at),
  };
}

function view(row: Record<string, unknown>): WorldRevisionView {
  return { ...summary(row), world: json<WorldSpec>(row.spec) };
}

/**
 * Saves a valid world as revision n+1 of its project. Locks the project row first, so concurrent saves queue and each
 * reads the number the previous one wrote. The caller has validated the world (validateWorld) before.
 */
export async function createWorldRevision(tx: Tx, input: { project_id: string; world: WorldSpec; created_by: string }): Promise<WorldRevisionView> {
  const project = await lockProject(tx, input.project_id);
  invariant(project !== undefined, `project ${input.project_id} exists when a world is saved`);
  const last = await tx.one<{ revision: number | null }>('select max(revision) as revision from world_revisions where project_id = ?', [input.project_id]);
  const revision = Number(last?.revision ?? 0) + 1;
  const [row] = await tx.query(
    `insert into world_revisions (id, project_id, org_id, revision, name, spec, created_by)
     values (?, ?, ?, ?, ?, ?::jsonb, ?) returning *`,
    [newId('wrev'), input.project_id, project.org_id, revision, input.world.name, JSON.stringify(input.world), input.created_by],
  );
  return view(row!);
}

export async function getWorldRevision(tx: Tx, id: string): Promise<WorldRevisionView | undefined> {
  const row = await tx.one('select * from world_revisions where id = ?', [id]);
  return row && view(row);
}

/** A project's revisions without their documents, newest first; fetches limit+1 rows for `page()`. */
export async function listWorldRevisions(tx: Tx, project_id: string, offset: number, limit: number): Promise<WorldRevisionSummary[]> {
  const rows = await tx.query(
    'select id, project_id, org_id, revision, name, created_by, created_at from world_revisions where project_id = ? order by revision desc offset ? limit ?',
    [project_id, offset, limit + 1],
  );
  return rows.map(summary);
}
