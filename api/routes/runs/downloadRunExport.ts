import { Type } from 'typebox';
import { ServiceError } from '../../../domain/errors.ts';
import { buildExportFiles, compare, costReport, eventTrace, findings, summarize } from '../../../domain/simulation/index.ts';
import { zipExport } from '../../../compute/simulation/export.ts';
import { EXPORT_LINK_LIFETIME_SECONDS, verifyExportToken } from '../../../store/runs/exportLinks.ts';
import { allRunEvents, getRun, type RunView } from '../../../store/runs/runs.ts';
import type { AppDeps } from '../../context.ts';
import { route, type RouteDef } from '../../registry.ts';
import { manifestOf, requireResults, runResults } from './load.ts';

/** The run a signed link names, checked: an altered or expired link is 401, a run of another organization 404. */
async function linkedRun(deps: AppDeps, token: string): Promise<RunView> {
  const verified = verifyExportToken(deps.config.session_secret!, token);
  if (!verified.ok) {
    throw new ServiceError(
      'UNAUTHENTICATED',
      verified.reason === 'expired'
        ? `The export link has expired (links work for ${EXPORT_LINK_LIFETIME_SECONDS / 60} minutes); request a new one with POST /v1/runs/{run_id}/export.`
        : 'The export link is not valid (it was altered or cut short); request a new one with POST /v1/runs/{run_id}/export.',
      { reason: verified.reason },
    );
  }
  const run = await getRun(deps.db, verified.claims.run_id);
  if (!run || run.org_id !== verified.claims.org_id) throw new ServiceError('NOT_FOUND', `Run ${verified.claims.run_id} was not found.`);
  return run;
}

/** The ZIP's bytes: manifest, world, metrics, comparison, findings, cost report and the stored trace. */
async function exportZip(deps: AppDeps, run: RunView): Promise<Buffer> {
  const loaded = await runResults(deps, run);
  const events = await allRunEvents(deps.db, run.run_id);
  // The stored trace goes back onto replication 0 of each variant, so eventTrace sees what the run kept.
  const withTrace = loaded.results.map((result) =>
    result.replication_index === 0 ? { ...result, trace: events.filter((event) => event.variant_id === result.variant_id) } : result,
  );
  const summaries = summarize(loaded.world, loaded.results);
  const comparison = compare(loaded.world, loaded.results);
  const costs = costReport(loaded.world, loaded.results);
  const files = buildExportFiles({
    manifest: manifestOf(run, loaded),
    world: loaded.world,
    summaries,
    comparison,
    findings: findings(loaded.world, summaries, comparison, costs),
    cost_report: costs,
    trace: eventTrace(loaded.world, withTrace),
  });
  return Buffer.from(zipExport(files));
}

export function downloadRunExportRoute(deps: AppDeps): RouteDef {
  return route({
    method: 'get',
    path: '/v1/exports/{token}',
    operation_id: 'downloadRunExport',
    summary: 'Download a run export (ZIP) through its signed link; no bearer credential',
    tag: 'runs',
    auth: 'signed',
    responses: {
      200: {
        description: 'the ZIP: manifest, world, metrics (CSV and JSON), comparison, findings, cost report, events and an HTML report',
        schema: Type.String({ format: 'binary' }),
        content_type: 'application/zip',
      },
      401: { description: 'UNAUTHENTICATED: the link was altered or has expired; ask for a new one' },
    },
    handler: async (ctx, input) => {
      const run = await linkedRun(deps, input.params.token ?? '');
      requireResults(run);
      const zip = await exportZip(deps, run);
      ctx.status = 200;
      ctx.type = 'application/zip';
      ctx.set('Content-Disposition', `attachment; filename="crucible-${run.run_id}.zip"`);
      ctx.set('Cache-Control', 'no-store');
      ctx.body = zip;
    },
  });
}
