// Authoring session bodies (beta; spec: Endpoints — Authoring sessions; Authoring session checkpoint): create, the three
// steps (answers, revise, approve: each a Temporal Update whose arguments are these bodies' `Static<>` types,
// domain/authoring/session.ts) and the session as polled.
import { Type } from 'typebox';
import { BYOK_PROVIDERS } from '../ai/keys.ts';
import { AiLimits, Checkpoint } from './checkpoint.ts';
import { Id, NullableLiteralUnion, Timestamp } from './common.ts';
import { DeprecatedJobError, JobFailureField } from './jobFailure.ts';

/** Answers in one request. */
export const ANSWERS_PER_REQUEST_MAX = 100;
/** Characters of revise instructions. */
export const REVISE_INSTRUCTIONS_CHARS_MAX = 4000;
/** A question id or slot name as a step names it, and the note or reference beside a value. */
export const QUESTION_ID_LENGTH_MAX = 120;
export const SLOT_NAME_LENGTH_MAX = 120;
export const ANSWER_NOTE_LENGTH_MAX = 1000;
export const SLOT_REFERENCE_LENGTH_MAX = 1000;
/** The most a session's own AI limits may name (each is further capped by the deployment's limit). */
export const SESSION_AI_CALLS_MAX = 10_000;
export const SESSION_AI_TOKENS_MAX = 100_000_000;
export const SESSION_AI_ITERATIONS_MAX = 10_000;
export const SESSION_WALL_SECONDS_MAX = 86_400;

const Limits = Type.Object(
  {
    calls_max: Type.Optional(Type.Integer({ minimum: 0, maximum: SESSION_AI_CALLS_MAX })),
    tokens_max: Type.Optional(Type.Integer({ minimum: 0, maximum: SESSION_AI_TOKENS_MAX })),
    ai_iterations_max: Type.Optional(Type.Integer({ minimum: 0, maximum: SESSION_AI_ITERATIONS_MAX })),
    wall_seconds_max: Type.Optional(Type.Integer({ minimum: 0, maximum: SESSION_WALL_SECONDS_MAX })),
  },
  { additionalProperties: false, description: 'lower the deployment AI preparation limit for this whole session; never raises it' },
);

export const CreateAuthoringSessionBody = Type.Object(
  {
    intake_revision: Type.Optional(Type.Integer({ minimum: 1, description: 'an intake revision number of the project; default: the latest confirmed one' })),
    starting_world: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'a valid WorldSpec to start from (e.g. a sample world)' })),
    byok_provider: Type.Optional(NullableLiteralUnion(BYOK_PROVIDERS)),
    ai_limits: Type.Optional(Limits),
  },
  { additionalProperties: false },
);

export const AnswersBody = Type.Object(
  {
    answers: Type.Array(
      Type.Object(
        {
          question_id: Type.String({ minLength: 1, maxLength: QUESTION_ID_LENGTH_MAX }),
          value: Type.Number(),
          note: Type.Optional(Type.String({ maxLength: ANSWER_NOTE_LENGTH_MAX })),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: ANSWERS_PER_REQUEST_MAX },
    ),
  },
  { additionalProperties: false },
);

export const ReviseBody = Type.Object(
  {
    values: Type.Optional(
      Type.Array(
        Type.Object(
          {
            slot: Type.String({ minLength: 1, maxLength: SLOT_NAME_LENGTH_MAX }),
            value: Type.Number(),
            reference: Type.Optional(Type.String({ minLength: 1, maxLength: SLOT_REFERENCE_LENGTH_MAX })),
          },
          { additionalProperties: false },
        ),
        { maxItems: ANSWERS_PER_REQUEST_MAX },
      ),
    ),
    instructions: Type.Optional(Type.String({ minLength: 1, maxLength: REVISE_INSTRUCTIONS_CHARS_MAX, description: 'asks for another AI iteration' })),
  },
  { additionalProperties: false },
);

/** Approve takes no fields (the approver is the caller). */
export const ApproveBody = Type.Object({}, { additionalProperties: false });

export const AuthoringSession = Type.Object({
  id: Id('sess'),
  org_id: Id('org'),
  project_id: Id('proj'),
  intake_revision_id: Type.Union([Type.String(), Type.Null()]),
  status: Type.String({ description: 'drafting, waiting, approved, expired or failed (docs/authoring.md)' }),
  accepts: Type.Array(Type.String(), { description: 'the calls the session accepts now: answers, revise, approve' }),
  byok_provider: Type.Union([Type.String(), Type.Null()]),
  ai_limits: AiLimits,
  cap_reached: Type.Boolean(),
  checkpoint_count: Type.Integer({ minimum: 0 }),
  checkpoint: Type.Union([Checkpoint, Type.Null()], {
    description: 'the latest checkpoint (spec: Authoring session checkpoint); null before the first one and in a listing',
  }),
  world_revision_id: Type.Union([Type.String(), Type.Null()]),
  wait_seconds_max: Type.Integer(),
  failure: JobFailureField,
  error: DeprecatedJobError,
  created_by: Type.String(),
  created_at: Timestamp,
  updated_at: Timestamp,
  ended_at: Type.Union([Timestamp, Type.Null()]),
});
