// Reading a run for the room's operations: checked for the caller, its results readable, its replications loaded.
import type { Context } from 'koa';
import type { Scope } from '../../../domain/accounts/rules.ts';
import { RUN_ID_LENGTH_MAX } from '../../../domain/contracts/runs.ts';
import type { WorldSpec } from '../../../domain/contracts/worldSpec.ts';
import { ServiceError } from '../../../domain/errors.ts';
import { buildManifest, type ReplicationResult } from '../../../domain/simulation/index.ts';
import { cachedRow } from '../../../store/rowCache.ts';
import { getRun, loadReplications, RESULT_STATUSES, type RunView } from '../../../store/runs/runs.ts';
import { getWorldRevision, type WorldRevisionView } from '../../../store/worlds/worlds.ts';
import { authorizeOwned } from '../../auth.ts';
import type { AppDeps } from '../../context.ts';
import { type Rendered, rendered } from '../../poll.ts';

/**
 * A run's answer rendered once per version: its row, its JSON text and ETag, kept beside the row in the row cache. Every
 * change the run's view reads (its row, its replications) is announced under the run's id (0010, 0012), so it is dropped
 * with the row; a poll then costs one cache read and no serialising or hashing. The body is the same for every caller;
 * access is checked on the row.
 */
export async function runAnswer(deps: AppDeps, id: string): Promise<{ run: RunView; body: Rendered } | undefined> {
  if (id.length > RUN_ID_LENGTH_MAX) return undefined;
  return cachedRow(deps.db, id, 'answer', async () => {
    const run = await getRun(deps.db, id);
    return run && { run, body: rendered(run) };
  });
}

/** Loads a run the caller may act on; another organization's run is a plain 404. */
export async function loadRun(deps: AppDeps, ctx: Context, id: string, scope: Scope): Promise<RunView> {
  return authorizeOwned(deps, ctx, `Run ${id}`, id.length <= RUN_ID_LENGTH_MAX ? await getRun(deps.db, id) : undefined, { scope });
}

export function requireResults(run: RunView): void {
  if (!RESULT_STATUSES.includes(run.status)) {
    throw new ServiceError(
      'CONFLICT',
      `Run ${run.run_id} is ${run.status}; results can be read after it has succeeded or timed out (spec: Run states). Poll GET /v1/runs/${run.run_id}.`,
      { status: run.status },
    );
  }
}

export type RunResults = { world: WorldSpec; revision: WorldRevisionView; results: ReplicationResult[] };

export async function runResults(deps: AppDeps, run: RunView): Promise<RunResults> {
  const revision = (await getWorldRevision(deps.db, run.world_revision_id))!;
  const results = await loadReplications(
    deps.db,
    run.run_id,
    revision.world.variants.map((variant) => variant.id),
  );
  return { world: revision.world, revision, results };
}

export function manifestOf(run: RunView, loaded: RunResults) {
  return buildManifest({
    run_id: run.run_id,
    world_revision_id: run.world_revision_id,
    world: loaded.world,
    results: loaded.results,
    status: run.status as 'succeeded' | 'timed_out',
    started_at: new Date(run.started_at ?? run.created_at),
    finished_at: new Date(run.finished_at ?? run.started_at ?? run.created_at),
    credits_reserved: run.credits_reserved,
    credits_used: run.credits_used ?? 0,
  });
}
