// Reading an intake source for the room's operations: checked for the caller (another organization's is a plain 404).
import type { Context } from 'koa';
import { findSource } from '../../../store/intake/sources.ts';
import { authorizeOwned } from '../../auth.ts';
import type { AppDeps } from '../../context.ts';

export async function loadSource(deps: AppDeps, ctx: Context, id: string) {
  return authorizeOwned(deps, ctx, `Intake source ${id}`, await findSource(deps.db, id));
}
