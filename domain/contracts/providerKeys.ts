// Provider key and AI usage bodies (spec: Provider key; Provider keys endpoints).
import { Type } from 'typebox';
import { PROVIDER_KEY_LENGTH_MAX, PROVIDER_KEY_LENGTH_MIN } from '../ai/keys.ts';
import { Credits, Id, Name, Timestamp } from './common.ts';

/** The label as sent, before trimming (the trimmed label's limit is PROVIDER_KEY_LABEL_LENGTH_MAX, domain/ai/keys.ts). */
export const PROVIDER_KEY_LABEL_INPUT_LENGTH_MAX = 1000;
/** A key is shown by its last characters only, never more than these. */
export const PROVIDER_KEY_SHOWN_LENGTH_MAX = 4;

// spec: Provider key — BYOK_PROVIDERS, spelled out so the static type keeps the literals.
export const ByokProvider = Type.Union([Type.Literal('openai'), Type.Literal('anthropic'), Type.Literal('google')]);

export const CreateProviderKeyBody = Type.Object(
  {
    provider: ByokProvider,
    label: Name({ maxLength: PROVIDER_KEY_LABEL_INPUT_LENGTH_MAX }),
    // Length and characters are checked by checkProviderKey, whose messages never echo the key.
    api_key: Type.String({
      description: `accepted on creation only, never returned; ${PROVIDER_KEY_LENGTH_MIN} to ${PROVIDER_KEY_LENGTH_MAX} printable characters, no whitespace`,
    }),
  },
  { additionalProperties: false },
);

export const ProviderKey = Type.Object({
  id: Id('key'),
  provider: ByokProvider,
  label: Type.String(),
  last4: Type.String({ maxLength: PROVIDER_KEY_SHOWN_LENGTH_MAX, description: 'the last four characters of the key; never more' }),
  created_at: Timestamp,
  revoked_at: Type.Union([Timestamp, Type.Null()]),
});

export const ProviderKeyCreated = Type.Object({
  id: Id('key'),
  provider: ByokProvider,
  label: Type.String(),
  last4: Type.String({ maxLength: PROVIDER_KEY_SHOWN_LENGTH_MAX }),
  created_at: Timestamp,
});

export const AiSubject = Type.Object({ project_id: Type.Union([Type.String(), Type.Null()]), kind: Type.String(), id: Type.String() });

export const AiUsage = Type.Object({
  id: Id('use'),
  org_id: Id('org'),
  provider: Type.Union([ByokProvider, Type.Literal('offline')]),
  model: Type.String(),
  byok: Type.Boolean(),
  input_tokens: Type.Integer({ minimum: 0 }),
  output_tokens: Type.Integer({ minimum: 0 }),
  duration_ms: Type.Integer({ minimum: 0 }),
  subject: AiSubject,
  task: Type.String(),
  credits_charged: Credits,
  /** The call's price beyond what was left of its job's reservation: absorbed by the service, never charged. */
  credits_absorbed: Credits,
  created_at: Timestamp,
});
