// Runs (spec: Projects, worlds, runs; Run states): estimate, create under a credit budget (the world-run workflow
// `run-<id>`), poll, cancel, results, the bounded event trace, paired comparison and signed-link ZIP exports. The run
// row is the source of truth; the workflow moves it through its states.
import '../../../domain/simulation/register.ts';
import type { AppDeps } from '../../context.ts';
import type { RouteDef } from '../../registry.ts';
import { cancelRunRoute } from './cancelRun.ts';
import { compareRunRoute } from './compareRun.ts';
import { createRunRoute } from './createRun.ts';
import { downloadRunExportRoute } from './downloadRunExport.ts';
import { estimateRunRoute } from './estimateRun.ts';
import { exportRunRoute } from './exportRun.ts';
import { getRunRoute } from './getRun.ts';
import { getRunResultsRoute } from './getRunResults.ts';
import { listRunEventsRoute } from './listRunEvents.ts';
import { listRunsRoute } from './listRuns.ts';

export function runRoutes(deps: AppDeps): RouteDef[] {
  return [
    estimateRunRoute(deps),
    createRunRoute(deps),
    getRunRoute(deps),
    listRunsRoute(deps),
    cancelRunRoute(deps),
    getRunResultsRoute(deps),
    listRunEventsRoute(deps),
    compareRunRoute(deps),
    exportRunRoute(deps),
    downloadRunExportRoute(deps),
  ];
}
