// Loads a project for the rooms that act inside one (worlds, reviews, plans, intake, runs, authoring).
import type { Context } from 'koa';
import type { Scope } from '../../../domain/accounts/rules.ts';
import { cachedRow } from '../../../store/rowCache.ts';
import { findProject, type ProjectView } from '../../../store/projects/projects.ts';
import { authorizeOwned } from '../../auth.ts';
import type { AppDeps } from '../../context.ts';
import { type Rendered, rendered } from '../../poll.ts';

/** Loads a project the caller may act on under the route's declared scope; another organization's project is a plain 404. */
export async function loadProject(deps: AppDeps, ctx: Context, project_id: string, scope?: Scope): Promise<ProjectView> {
  return authorizeOwned(deps, ctx, `Project ${project_id}`, await findProject(deps.db, project_id), { scope });
}

/**
 * A project's answer rendered once per version (as a run's: api/routes/runs/load.ts): its row and its JSON text, kept
 * beside the row in the row cache under the project's id, so the notices that drop the row drop it too. A read then
 * costs one cache read and no serialising. The body is the same for every caller; access is checked on the row.
 */
export async function projectAnswer(deps: AppDeps, id: string): Promise<{ project: ProjectView; body: Rendered } | undefined> {
  return cachedRow(deps.db, id, 'answer', async () => {
    const project = await findProject(deps.db, id);
    return project && { project, body: rendered(project) };
  });
}
