// A fake Gemini API: POST /v1/models/{model}:generateContent (and v1beta) with JSON responses, in the real wire format.
import {
  AI_FAKE_DEFAULT_USAGE,
  type AiFake,
  type AiFakeAnswer as Answer,
  type FakeReply,
  noAnswer,
  type RecordedRequest,
  ScriptQueue,
  startFakeServer,
} from './http.ts';

const STATUS_NAMES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
};

// The SDK (3.x) calls v1 by default; v1beta is the older path. The API serves both.
const GENERATE_PATH = /^\/v1(?:beta)?\/models\/([^/:]+):generateContent$/;

function googleError(status: number, message: string, headers?: Record<string, string>, reason?: string): FakeReply {
  const details = reason ? [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason, domain: 'googleapis.com' }] : undefined;
  return { status, headers, body: { error: { code: status, message, status: STATUS_NAMES[status] ?? 'UNKNOWN', ...(details ? { details } : {}) } } };
}

/** Gemini answers a bad key with 400 API_KEY_INVALID (not 401); `invalid_key_status` picks which the fake sends. */
export async function startFakeGoogle(options: { expected_api_key?: string; invalid_key_status?: 400 | 401 } = {}): Promise<AiFake> {
  const script = new ScriptQueue();
  const state: { expected_api_key?: string } = { expected_api_key: options.expected_api_key };
  const invalidKey = (): FakeReply =>
    options.invalid_key_status === 400
      ? googleError(400, 'API key not valid. Please pass a valid API key.', undefined, 'API_KEY_INVALID')
      : googleError(401, 'Request had invalid authentication credentials.');
  const handle = (request: RecordedRequest): FakeReply => {
    const match = request.method === 'POST' ? GENERATE_PATH.exec(request.path) : null;
    if (!match) return googleError(404, `Not found: ${request.path}`);
    const key = request.headers['x-goog-api-key'] ?? '';
    if (state.expected_api_key !== undefined && key !== state.expected_api_key) return invalidKey();
    const next = script.next();
    const model = decodeURIComponent(match[1]!);
    if ('no_answer' in next) return noAnswer(next, answer({ object: {} }, model));
    if ('error_status' in next) {
      if (next.error_status === 401) return invalidKey();
      return googleError(next.error_status, next.message ?? 'fake error', next.headers);
    }
    return answer(next, model);
  };
  const answer = (next: Answer, model: string): FakeReply => {
    const usage = next.usage ?? AI_FAKE_DEFAULT_USAGE;
    const text = 'raw_text' in next ? next.raw_text : JSON.stringify(next.object);
    return {
      status: 200,
      body: {
        candidates: [{ content: { role: 'model', parts: [{ text }] }, finishReason: 'STOP', index: 0 }],
        usageMetadata: {
          promptTokenCount: usage.input_tokens,
          candidatesTokenCount: usage.output_tokens,
          totalTokenCount: usage.input_tokens + usage.output_tokens,
        },
        modelVersion: model,
        responseId: 'resp_fake',
      },
    };
  };
  const server = await startFakeServer(handle);
  return {
    ...server,
    base_url: server.url,
    script,
    get expected_api_key() {
      return state.expected_api_key;
    },
    set expected_api_key(value) {
      state.expected_api_key = value;
    },
  };
}
