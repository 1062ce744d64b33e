// An error on the world and run screens, in words: the app's own sentence for the common codes, otherwise the
// envelope's message read as words (no field names, pointers or API paths); the code, the request id and the raw
// message go in the technical details, for support.
import { envelopeOf } from '../client.ts';
import { TechnicalDetails } from '../technical.tsx';
import { AddCreditsWay, addCreditsOf } from '../ui.tsx';
import { type World, plainText, problemText } from './model.ts';

const SENTENCES: Record<string, string> = {
  UNAUTHENTICATED: 'You are signed out. Sign in again and retry.',
  FORBIDDEN: 'Your role in this organization does not allow this. Ask an owner or an admin.',
  NOT_FOUND: 'This was not found: it may have been removed, or it belongs to another organization.',
  INSUFFICIENT_CREDITS: 'Your organization does not have enough credits for this. Lower the budget, or ask for more credits.',
  RATE_LIMITED: 'Too many requests in a short time. Wait a minute and try again.',
  CONFLICT: 'This changed in the meantime. Reload the page and try again.',
  INTERNAL: 'Something went wrong on our side. Try again; if it happens again, contact support with the technical details below.',
  NETWORK: 'The service cannot be reached. Check your connection and try again.',
  PAYLOAD_TOO_LARGE: 'This world is too large to save. Remove what it does not need and try again.',
};

type Detail = { path?: string; pointer?: string; message: string };

export function errorSentence(error: unknown, world: World | null = null): string {
  const envelope = envelopeOf(error);
  if (envelope) return SENTENCES[envelope.code] ?? plainText(envelope.message, world);
  return plainText(error instanceof Error ? error.message : String(error), world);
}

export function PlainError({ error, world = null, lead }: { error: unknown; world?: World | null; lead?: string }) {
  if (!error) return null;
  const envelope = envelopeOf(error);
  const details: Detail[] = envelope && Array.isArray(envelope.details) ? (envelope.details as Detail[]) : [];
  const advice = addCreditsOf(envelope);
  return (
    <div className="error" role="alert">
      <p className="error-message">
        {lead ?? (advice ? 'Your organization does not have enough credits for this. Lower the budget, or add credits:' : errorSentence(error, world))}
      </p>
      {advice && <AddCreditsWay advice={advice} />}
      {details.length > 0 && (
        <ul>
          {details.slice(0, 20).map((d) => (
            <li key={`${d.path ?? d.pointer}:${d.message}`}>{problemText(world, { pointer: (d.path ?? d.pointer) || undefined, message: d.message })}</li>
          ))}
        </ul>
      )}
      {envelope && (
        <TechnicalDetails summary="Technical details of this error">
          <p>
            {envelope.code}
            {envelope.request_id ? ` · request ${envelope.request_id}` : ''}
          </p>
          <p>{envelope.message}</p>
          {details.length > 0 && <pre>{JSON.stringify(details, null, 2)}</pre>}
        </TechnicalDetails>
      )}
    </div>
  );
}
