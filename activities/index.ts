// Every activity the worker registers. Each room adds its group here.
import { aiActivities } from './aiCall.ts';
import { authoringActivities } from './authoring.ts';
import type { ActivityDeps } from './deps.ts';
import { intakeActivities } from './intake.ts';
import { ledgerActivities } from './ledger.ts';
import { maintenanceActivities } from './maintenance.ts';
import { runActivities } from './runs.ts';
import { reviewActivities } from './review.ts';

export function createActivities(deps: ActivityDeps) {
  return {
    ...maintenanceActivities(deps),
    ...ledgerActivities(deps),
    ...aiActivities(deps),
    ...runActivities(deps),
    ...intakeActivities(deps),
    ...reviewActivities(deps),
    ...authoringActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
