// Loads a project for the rooms that act inside one (worlds, reviews, plans, intake, runs, authoring).
import type { Context } from 'koa';
import type { Scope } from '../../../domain/accounts/rules.ts';
import { findProject, type ProjectView } from '../../../store/projects/projects.ts';
import { authorizeOwned } from '../../auth.ts';
import type { AppDeps } from '../../context.ts';

/** Loads a project the caller may act on under the route's declared scope; another organization's project is a plain 404. */
export async function loadProject(deps: AppDeps, ctx: Context, project_id: string, scope?: Scope): Promise<ProjectView> {
  return authorizeOwned(deps, ctx, `Project ${project_id}`, await findProject(deps.db, project_id), { scope });
}
