// A fake OpenAI API: POST /v1/chat/completions with response_format json_schema, in the real wire format.
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

function openAiError(status: number, message: string, type: string, code: string | null, headers?: Record<string, string>): FakeReply {
  return { status, headers: { 'x-request-id': 'req_fake', ...(headers ?? {}) }, body: { error: { message, type, param: null, code } } };
}

/**
 * `hold`, when given, is awaited before the n-th completion request (0-based) is answered: a test holds a call in flight
 * (e.g. to kill the worker that made it).
 */
export async function startFakeOpenAi(options: { expected_api_key?: string; hold?: (index: number) => Promise<void> } = {}): Promise<AiFake> {
  const script = new ScriptQueue();
  const state: { expected_api_key?: string } = { expected_api_key: options.expected_api_key };
  let completions = 0;
  const held = async (request: RecordedRequest): Promise<FakeReply> => {
    if (options.hold && request.method === 'POST' && request.path === '/v1/chat/completions') await options.hold(completions++);
    return handle(request);
  };
  const handle = (request: RecordedRequest): FakeReply => {
    if (request.method !== 'POST' || request.path !== '/v1/chat/completions') {
      return openAiError(404, `Invalid URL (${request.method} ${request.path})`, 'invalid_request_error', null);
    }
    const key = (request.headers['authorization'] ?? '').replace(/^Bearer /, '');
    // The real API echoes (a masked form of) the key it got; echoing it whole proves the gateway never passes it on.
    if (state.expected_api_key !== undefined && key !== state.expected_api_key) {
      return openAiError(
        401,
        `Incorrect API key provided: ${key}. You can find your API key at https://platform.openai.com/account/api-keys.`,
        'invalid_request_error',
        'invalid_api_key',
      );
    }
    const next = script.next();
    if ('no_answer' in next) return noAnswer(next, answer({ object: {} }, request));
    if ('error_status' in next) {
      if (next.error_status === 401) {
        return openAiError(401, `Incorrect API key provided: ${key}.`, 'invalid_request_error', 'invalid_api_key', next.headers);
      }
      const type = next.error_status === 429 ? 'rate_limit_exceeded' : next.error_status >= 500 ? 'server_error' : 'invalid_request_error';
      return openAiError(next.error_status, next.message ?? `fake ${type}`, type, null, next.headers);
    }
    return answer(next, request);
  };
  const answer = (next: Answer, request: RecordedRequest): FakeReply => {
    const body = request.body as { model?: string };
    const usage = next.usage ?? AI_FAKE_DEFAULT_USAGE;
    const content = 'raw_text' in next ? next.raw_text : JSON.stringify(next.object);
    return {
      status: 200,
      headers: { 'x-request-id': 'req_fake' },
      body: {
        id: 'chatcmpl-fake',
        object: 'chat.completion',
        created: 1_700_000_000,
        model: body.model ?? 'unknown',
        choices: [{ index: 0, message: { role: 'assistant', content, refusal: null, annotations: [] }, logprobs: null, finish_reason: 'stop' }],
        usage: { prompt_tokens: usage.input_tokens, completion_tokens: usage.output_tokens, total_tokens: usage.input_tokens + usage.output_tokens },
      },
    };
  };
  const server = await startFakeServer(options.hold ? held : handle);
  const fake: AiFake = {
    ...server,
    base_url: `${server.url}/v1`,
    script,
    get expected_api_key() {
      return state.expected_api_key;
    },
    set expected_api_key(value) {
      state.expected_api_key = value;
    },
  };
  return fake;
}
