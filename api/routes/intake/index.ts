// Intake endpoints (spec: Intake and review endpoints - extract, parse, intakes).
// Extraction reads and screens without AI and sends nothing anywhere; drafting starts only on an explicit parse request.
import '../../../domain/intake/register.ts';
import type { AppDeps } from '../../context.ts';
import type { RouteDef } from '../../registry.ts';
import { cancelIntakeDraftRoute } from './cancelIntakeDraft.ts';
import { confirmIntakeRoute } from './confirmIntake.ts';
import { extractIntakeSourcesRoute } from './extractIntakeSources.ts';
import { getIntakeRoute } from './getIntake.ts';
import { getIntakeDraftRoute } from './getIntakeDraft.ts';
import { getIntakeSourceRoute } from './getIntakeSource.ts';
import { getIntakeSourceTextRoute } from './getIntakeSourceText.ts';
import { listIntakeDraftsRoute } from './listIntakeDrafts.ts';
import { listIntakeSourcesRoute } from './listIntakeSources.ts';
import { listIntakesRoute } from './listIntakes.ts';
import { parseIntakeRoute } from './parseIntake.ts';

export function intakeRoutes(deps: AppDeps): RouteDef[] {
  return [
    extractIntakeSourcesRoute(deps),
    listIntakeSourcesRoute(deps),
    getIntakeSourceRoute(deps),
    getIntakeSourceTextRoute(deps),
    parseIntakeRoute(deps),
    getIntakeDraftRoute(deps),
    listIntakeDraftsRoute(deps),
    cancelIntakeDraftRoute(deps),
    confirmIntakeRoute(deps),
    listIntakesRoute(deps),
    getIntakeRoute(deps),
  ];
}
