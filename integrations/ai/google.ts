// Google adapter: Gemini generateContent with responseMimeType application/json and responseJsonSchema.
import { ApiError, FinishReason, GoogleGenAI } from '@google/genai';
import {
  type AdapterRequest,
  failureForStatus,
  failureForTimeout,
  failureForTransport,
  outputInvalid,
  type RawStructuredReply,
  toolsAsText,
} from './common.ts';
import { parseJsonReply } from './schema.ts';

export const GOOGLE_DEFAULT_BASE_URL = 'https://generativelanguage.googleapis.com';

type GoogleErrorBody = { error?: { message?: unknown; details?: Array<{ reason?: unknown }> } };

/** The error body inside an ApiError, whose message is the JSON the API sent. */
function googleErrorBody(error: ApiError): GoogleErrorBody {
  try {
    return JSON.parse(error.message) as GoogleErrorBody;
  } catch {
    return {};
  }
}

/** Gemini answers an invalid key with 400 and reason API_KEY_INVALID; that is an auth rejection, not a bad request. */
function isInvalidKey(body: GoogleErrorBody): boolean {
  return (body.error?.details ?? []).some((detail) => detail.reason === 'API_KEY_INVALID');
}

export async function callGoogle(request: AdapterRequest): Promise<RawStructuredReply> {
  const client = new GoogleGenAI({
    vertexai: false,
    apiKey: request.api_key,
    // No retryOptions: the SDK then makes exactly one attempt (Temporal owns retrying).
    httpOptions: { baseUrl: request.base_url ?? GOOGLE_DEFAULT_BASE_URL, timeout: request.timeout_ms },
  });
  let response: Awaited<ReturnType<typeof client.models.generateContent>>;
  try {
    response = await client.models.generateContent({
      model: request.model,
      contents: [{ role: 'user', parts: [{ text: request.prompt }] }],
      config: {
        systemInstruction: request.system + toolsAsText(request.tools),
        responseMimeType: 'application/json',
        responseJsonSchema: request.json_schema,
        maxOutputTokens: request.max_output_tokens,
        abortSignal: request.abort_signal,
      },
    });
  } catch (error) {
    if (error instanceof ApiError && typeof error.status === 'number') {
      const body = googleErrorBody(error);
      const said = typeof body.error?.message === 'string' ? body.error.message : '';
      throw failureForStatus('google', error.status === 400 && isInvalidKey(body) ? 401 : error.status, said, request.api_key);
    }
    if (request.abort_signal?.aborted) throw error;
    // An abort the caller did not ask for is the SDK's own timer (httpOptions.timeout).
    if (error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError')) throw failureForTimeout('google', request.timeout_ms);
    throw failureForTransport('google', error);
  }
  const candidate = response.candidates?.[0];
  if (!candidate) throw outputInvalid('google', 'the reply had no candidates');
  if (candidate.finishReason === FinishReason.MAX_TOKENS) throw outputInvalid('google', 'the reply was cut off at max_output_tokens');
  return {
    value: parseJsonReply('google', response.text),
    usage: {
      input_tokens: response.usageMetadata?.promptTokenCount ?? 0,
      output_tokens: (response.usageMetadata?.candidatesTokenCount ?? 0) + (response.usageMetadata?.thoughtsTokenCount ?? 0),
    },
  };
}
