// Every activity the worker registers. Each room adds its group here.
import type { ActivityDeps } from './deps.ts';
import { maintenanceActivities } from './maintenance.ts';

export function createActivities(deps: ActivityDeps) {
  return {
    ...maintenanceActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
