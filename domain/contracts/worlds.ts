// World bodies (spec: Public endpoints — validate; Projects, worlds, runs): a WorldSpec document as sent, the problems
// validation finds, and a saved world revision.
import { type Static, Type } from 'typebox';
import { PROBLEMS_LISTED_MAX } from '../errors.ts';
import { Id, LiteralUnion, Timestamp } from './common.ts';

export const WorldDocument = Type.Object({}, { additionalProperties: true, description: 'a WorldSpec 1.0.0 document; its schema is at /v1/schemas/WorldSpec' });
export const WorldProblem = Type.Object({ pointer: Type.String({ description: 'JSON pointer into the world' }), message: Type.String() });
/** The model check (docs/simulation.md): what would make a valid world a comparison of nothing, in words; a warning, not a refusal. */
export const MODEL_WARNING_KINDS = ['variant_changes_nothing', 'unstable_queue', 'deadline_as_duration', 'horizon_too_short'] as const;
export const ModelWarning = Type.Object({
  kind: LiteralUnion(MODEL_WARNING_KINDS, {
    description:
      'variant_changes_nothing: a treatment sets only the baseline values; unstable_queue: a resource busy all the time with a queue growing through the horizon; deadline_as_duration: a time setting taken from a turnaround or a deadline; horizon_too_short: too little measured after the warm-up',
  }),
  pointer: Type.String({ description: 'JSON pointer into the world' }),
  message: Type.String({ description: 'what stands and what would fix it, in words' }),
});
export type ModelWarning = Static<typeof ModelWarning>;
export const WorldValidation = Type.Object({
  valid: Type.Boolean(),
  problems: Type.Array(WorldProblem, { description: `the first ${PROBLEMS_LISTED_MAX} problems found (PROBLEMS_LISTED_MAX)` }),
  problems_not_listed: Type.Integer({ minimum: 0, description: 'how many more problems were found and not listed' }),
});

export const WorldRevisionSummary = Type.Object({
  world_revision_id: Id('wrev'),
  project_id: Id('proj'),
  org_id: Id('org'),
  revision: Type.Integer({ minimum: 1, description: 'gapless per project: 1, 2, 3...' }),
  name: Type.String(),
  created_by: Type.String(),
  created_at: Timestamp,
});
export const WorldRevision = Type.Object({ ...WorldRevisionSummary.properties, world: WorldDocument });
