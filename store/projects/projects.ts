// Projects: a title inside an organization (spec: Project).
import type { Static } from 'typebox';
import type { Project } from '../../domain/contracts/projects.ts';
import { newId } from '../../domain/ids.ts';
import { isoRequired } from '../../domain/time.ts';
import type { Tx } from '../db.ts';
import { cachedRow } from '../rowCache.ts';

/** A project as the API returns it (domain/contracts/projects.ts). */
export type ProjectView = Static<typeof Project>;

function view(row: Record<string, unknown>): ProjectView {
  return {
    id: row.id as string,
    org_id: row.org_id as string,
    title: row.title as string,
    created_by: row.created_by as string,
    created_at: isoRequired(row.created_at),
  };
}

export async function createProject(tx: Tx, input: { org_id: string; title: string; created_by: string }): Promise<ProjectView> {
  const [row] = await tx.query('insert into projects (id, org_id, title, created_by) values (?, ?, ?, ?) returning *', [
    newId('proj'),
    input.org_id,
    input.title,
    input.created_by,
  ]);
  return view(row!);
}

export async function findProject(tx: Tx, id: string): Promise<ProjectView | undefined> {
  return cachedRow(tx, id, 'project', async () => {
    const row = await tx.one('select * from projects where id = ?', [id]);
    return row && view(row);
  });
}

export async function listProjects(tx: Tx, org_id: string, offset: number, limit: number): Promise<ProjectView[]> {
  const rows = await tx.query('select * from projects where org_id = ? order by created_at desc, id desc offset ? limit ?', [org_id, offset, limit + 1]);
  return rows.map(view);
}

/** Locks the project row: revision numbering per project serializes on it. */
export async function lockProject(tx: Tx, id: string): Promise<ProjectView | undefined> {
  const row = await tx.one('select * from projects where id = ? for update', [id]);
  return row && view(row);
}
