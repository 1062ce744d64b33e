import { Readable } from 'node:stream';
import { Type } from 'typebox';
import { ServiceError } from '../../../domain/errors.ts';
import { buildRunExportOnPool } from '../../../compute/simulation/export.ts';
import { type StoredRunExport, storedRunExport, storeRunExport } from '../../../store/runs/exports.ts';
import { EXPORT_LINK_LIFETIME_SECONDS, verifyExportToken } from '../../../store/runs/exportLinks.ts';
import { allRunEventChunks, getRun, type RunView } from '../../../store/runs/runs.ts';
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

/** Builds in flight in this process, by run: concurrent first downloads of a run share one build. */
const building = new Map<string, Promise<StoredRunExport>>();

/**
 * The run's ZIP (manifest, world, metrics, comparison, findings, cost report and the stored trace): the stored one, or
 * built once on the compute pool as the run's organization's work and stored for every later download, on any process.
 */
async function runExport(deps: AppDeps, run: RunView): Promise<StoredRunExport> {
  const stored = await storedRunExport(deps.db, run.run_id, run.org_id);
  if (stored) return stored;
  let build = building.get(run.run_id);
  if (!build) {
    build = (async () => {
      const loaded = await runResults(deps, run);
      const event_chunks = await allRunEventChunks(deps.db, run.run_id);
      const archive = await buildRunExportOnPool(
        { manifest: manifestOf(run, loaded), world: loaded.world, results: loaded.results, event_chunks },
        { org_id: run.org_id },
      );
      return storeRunExport(deps.db, { run_id: run.run_id, org_id: run.org_id, archive });
    })().finally(() => building.delete(run.run_id));
    building.set(run.run_id, build);
  }
  return build;
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
      const archive = await runExport(deps, run);
      ctx.status = 200;
      ctx.type = 'application/zip';
      ctx.set('Content-Disposition', `attachment; filename="crucible-${run.run_id}.zip"`);
      ctx.set('Cache-Control', 'no-store');
      ctx.set('ETag', `"${archive.sha256}"`);
      ctx.length = archive.size_bytes;
      // Streamed part by part from the database as the socket takes them: a slow client paces the reads.
      ctx.body = Readable.from(archive.parts(), { objectMode: false });
    },
  });
}
