// The app's client of the API: the SDK's typed client (docs/api.md, GET /v1/openapi.json), each call typed by its path.
// The app authenticates with the session cookie that POST /v1/auth/sessions sets (HttpOnly, SameSite=Lax), sent
// because the page and the API share an origin: it never holds or sends an API token.
import { CrucibleApiError, CrucibleNetworkError, createCrucibleClient, type Error as ErrorEnvelope, unwrap, unwrapAs } from '../../clients/sdk/src/client.ts';

export { CrucibleApiError, unwrap, unwrapAs };

export const client = createCrucibleClient({ baseUrl: '', credentials: 'same-origin' });

/** The Idempotency-Key of a creating call: a retry of the same click reuses nothing, each user action is one new operation. */
export function newOperationKey(): string {
  return crypto.randomUUID();
}

/** The error envelope every non-2xx answer carries. */
export type Envelope = ErrorEnvelope;

/** What the app says when a request got no answer at all. */
const UNREACHABLE: Envelope = {
  code: 'NETWORK',
  message: 'The service cannot be reached; check your connection and try again.',
  details: {},
  request_id: '',
};

/** The envelope of a failed call: the service's answer, or the app's own for a request that got none; null for any other error. */
export function envelopeOf(error: unknown): Envelope | null {
  if (error instanceof CrucibleApiError) return error.body as Envelope;
  if (error instanceof CrucibleNetworkError) return UNREACHABLE;
  return null;
}
