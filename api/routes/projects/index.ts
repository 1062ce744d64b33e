// Projects (spec: Projects, worlds, runs endpoints): the room's operations in the order they are documented.
import type { AppDeps } from '../../context.ts';
import type { RouteDef } from '../../registry.ts';
import { createProjectRoute } from './createProject.ts';
import { getProjectRoute } from './getProject.ts';
import { listProjectsRoute } from './listProjects.ts';

export function projectRoutes(deps: AppDeps): RouteDef[] {
  return [createProjectRoute(deps), getProjectRoute(deps), listProjectsRoute(deps)];
}
