// The GP triage sample scaled f-fold, for the benchmarks that need a run of a given size (bench/scaling.ts,
// bench/scale-out.ts): the work of a factor f is f times the sample's replications, up to REPLICATIONS_MAX; past it the
// horizon grows by the rest of the factor, so the simulated events still grow f-fold.
import { readFileSync } from 'node:fs';
import { HORIZON_DAYS_MAX, REPLICATIONS_MAX } from '../domain/simulation/limits.ts';

// biome-ignore lint/suspicious/noExplicitAny: a world read from its JSON file
type Json = Record<string, any>;

export const SAMPLE = JSON.parse(readFileSync(new URL('../samples/worlds/gp_triage_digital_front_door.json', import.meta.url), 'utf8')) as Json;

/** The sample scaled f-fold: replications up to REPLICATIONS_MAX, the rest of the factor on the horizon. */
export function scaledSample(factor: number): { world: Json; how: string } {
  const wanted = SAMPLE.replications * factor;
  const replications = Math.min(wanted, REPLICATIONS_MAX);
  const stretch = wanted / replications;
  const horizon = Math.round(SAMPLE.horizon * stretch);
  if (horizon / (24 * 60) > HORIZON_DAYS_MAX) throw new Error(`factor ${factor} needs a horizon of ${horizon} minutes, past HORIZON_DAYS_MAX`);
  const how = stretch === 1 ? `${replications} replications` : `${replications} replications (REPLICATIONS_MAX) × horizon ${stretch}× (${horizon} min)`;
  return { world: { ...SAMPLE, replications, horizon, name: `${SAMPLE.name} ×${factor}` }, how };
}
