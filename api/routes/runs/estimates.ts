// The estimate of a world revision, computed once. A revision never changes and the estimate depends on nothing else
// (not the organization, the budget or the balance), but it may run a pilot of up to PILOT_EVENTS events on the API's
// event loop (a few to some 40 ms for the sample worlds): an estimate followed by a create, or a client polling the
// estimate, pays it once per process. The model check's warnings (a comparison of nothing) are computed with it.
import { estimateWithModelCheck, type ModelWarning, type RunEstimate } from '../../../domain/simulation/index.ts';
import type { WorldRevisionView } from '../../../store/worlds/worlds.ts';

/** Estimates kept per process, the least recently used dropped first. */
export const ESTIMATES_KEPT_MAX = 256;

/** The estimate with the model check's warnings (computed beside it, kept with it). */
export type RevisionEstimate = RunEstimate & { warnings: ModelWarning[] };

const kept = new Map<string, Readonly<RevisionEstimate>>();

/** The estimate of this revision: the same object for every caller, never to be changed. */
export function estimateOf(revision: Pick<WorldRevisionView, 'world_revision_id' | 'world'>): Readonly<RevisionEstimate> {
  const id = revision.world_revision_id;
  const known = kept.get(id);
  if (known) {
    kept.delete(id);
    kept.set(id, known);
    return known;
  }
  const estimate = Object.freeze(estimateWithModelCheck(revision.world));
  kept.set(id, estimate);
  if (kept.size > ESTIMATES_KEPT_MAX) kept.delete(kept.keys().next().value as string);
  return estimate;
}

/** How many estimates this process keeps (for tests). */
export function estimatesKept(): number {
  return kept.size;
}
