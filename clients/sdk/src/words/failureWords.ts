// A failed or canceled step in the app's own words: the sentence a person reads for a job's recorded failure
// ({code, message}); the code and the raw message are for the "Technical details" disclosure. Shared by the server
// (the message a review records when the literature service stays away) and the web app, through the SDK. No sentence
// here promises a retry: by the time a failure is recorded, none will come.
// The codes are written out (not imported from the service's domain/ai/call.ts and domain/reviews/literature.ts): the
// SDK imports nothing of the service; a unit test checks every typed failure of those modules has its sentence here.

export const LITERATURE_UNREACHABLE_SENTENCE = "The literature service can't be reached from this server. Nothing was charged.";

/** A model call none of whose attempts was answered (the recorded message says what happened on the last). */
const AI_PROVIDER_NO_ANSWER_SENTENCE =
  'The AI provider gave no answer: it could not be reached, did not answer in time, or was too busy. Nothing was charged. Try again later.';

/** The app's sentence per failure code (a job's `failure.code`, domain/contracts/jobFailure.ts): the services it calls first, then the service's own refusals. */
const SENTENCES: Record<string, string> = {
  PROVIDER_ERROR:
    'The AI provider gave no usable answer: it could not be reached, did not answer in time, was too busy, or answered with something the service could not use. Nothing was charged. Try again later.',
  PROVIDER_KEY_REJECTED:
    'The AI provider could not be used with its key: the key was refused, none is stored, or the stored one can no longer be read. Check the provider key in Settings. Nothing was charged.',
  CANCELED: 'Canceled: it was stopped before it finished. Only what it used until then was charged.',
  // The typed failures a job recorded before its codes were mapped to the API's (still read by the mapping).
  LITERATURE_UNAVAILABLE: LITERATURE_UNREACHABLE_SENTENCE,
  LiteratureUnavailable: LITERATURE_UNREACHABLE_SENTENCE,
  LiteratureRequestRejected: 'The literature service refused the search. Nothing was charged.',
  ProviderUnavailable: AI_PROVIDER_NO_ANSWER_SENTENCE,
  AiCallError: AI_PROVIDER_NO_ANSWER_SENTENCE,
  ProviderAuthRejected: 'The AI provider refused the key it was called with. Check the provider key in Settings. Nothing was charged.',
  ProviderRequestRejected: 'The AI provider refused the request. Nothing was charged.',
  ProviderOutputInvalid: 'The AI provider answered with something the service could not use. Nothing was charged.',
  ProviderNotConfigured: 'The AI provider is not set up on this service. Ask the person who runs it, or add your own provider key in Settings.',
  PROVIDER_NOT_CONFIGURED: 'The AI provider is not set up on this service. Ask the person who runs it, or add your own provider key in Settings.',
  ProviderKeyMissing: 'Your organization has no key for the AI provider chosen. Add one in Settings, or use the service’s AI.',
  ProviderKeyUndecryptable: 'The stored provider key can no longer be read. Add the key again in Settings.',
  INSUFFICIENT_CREDITS: 'Your organization did not have enough credits for this step. Nothing was charged.',
  INTERNAL: 'Something went wrong inside the service. Nothing was charged.',
  AiCallInvalid: 'Something went wrong inside the service. Nothing was charged.',
  TEMPORARILY_UNAVAILABLE: 'The service was too busy to take this step. Nothing was charged.',
};

/** The code's sentence, or null when the recorded message is the best words there are (a rule the step broke). */
export function failureSentence(code: string): string | null {
  return Object.hasOwn(SENTENCES, code) ? SENTENCES[code]! : null;
}

export type StepEnd = { status: string; failure: { code: string; message: string } | null };

/** How a failed or canceled step reads: its sentence, then (for the disclosure) its code and raw message. */
export function stepEndInWords(end: StepEnd): { sentence: string; code: string | null; detail: string | null } {
  if (end.status === 'canceled') {
    return { sentence: 'Canceled: it was stopped before it finished. Only what it used until then was charged.', code: null, detail: null };
  }
  if (!end.failure) return { sentence: 'It stopped by a failure. Nothing was charged.', code: null, detail: null };
  return { sentence: failureSentence(end.failure.code) ?? end.failure.message, code: end.failure.code, detail: end.failure.message };
}
