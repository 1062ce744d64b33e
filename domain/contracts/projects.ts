// Project bodies (spec: Project; Projects, worlds, runs endpoints).
import { Type } from 'typebox';
import { Id, Name, Timestamp } from './common.ts';

/** A project's title, trimmed, has 1 to this many characters (the handler's check names it). */
export const PROJECT_TITLE_LENGTH_MAX = 200;
/** The title as sent, before trimming: longer is refused by the schema before any work. */
export const PROJECT_TITLE_INPUT_LENGTH_MAX = 1000;
/** An organization id as a request names it (body or query). */
export const ORG_ID_LENGTH_MAX = 64;

export const OrgIdInput = Type.String({ minLength: 1, maxLength: ORG_ID_LENGTH_MAX });

export const CreateProjectBody = Type.Object(
  { title: Name({ maxLength: PROJECT_TITLE_INPUT_LENGTH_MAX }), org_id: OrgIdInput },
  { additionalProperties: false },
);

export const Project = Type.Object({ id: Id('proj'), org_id: Id('org'), title: Type.String(), created_by: Type.String(), created_at: Timestamp });
