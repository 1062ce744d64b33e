// World bodies (spec: Public endpoints — validate; Projects, worlds, runs): a WorldSpec document as sent, the problems
// validation finds, and a saved world revision.
import { Type } from 'typebox';
import { PROBLEMS_LISTED_MAX } from '../errors.ts';
import { Id, Timestamp } from './common.ts';

export const WorldDocument = Type.Object({}, { additionalProperties: true, description: 'a WorldSpec 1.0.0 document; its schema is at /v1/schemas/WorldSpec' });
export const WorldProblem = Type.Object({ pointer: Type.String({ description: 'JSON pointer into the world' }), message: Type.String() });
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
