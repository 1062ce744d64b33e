// Loads a world revision for the rooms that act on one (worlds, runs).
import type { Context } from 'koa';
import type { Scope } from '../../../domain/accounts/rules.ts';
import { getWorldRevision, type WorldRevisionView } from '../../../store/worlds/worlds.ts';
import { authorizeOwned } from '../../auth.ts';
import type { AppDeps } from '../../context.ts';
import { JSON_BODY_LIMIT_BYTES } from '../../http/request.ts';

/** A WorldSpec document is read up to this size (validate and save alike). */
export const WORLD_BODY_LIMIT_BYTES = JSON_BODY_LIMIT_BYTES;

/** Loads a world revision the caller may act on; another organization's revision is a plain 404. */
export async function loadWorldRevision(deps: AppDeps, ctx: Context, world_revision_id: string, scope?: Scope): Promise<WorldRevisionView> {
  return authorizeOwned(deps, ctx, `World revision ${world_revision_id}`, await getWorldRevision(deps.db, world_revision_id), { scope });
}
