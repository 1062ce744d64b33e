// A fake Anthropic API: POST /v1/messages answering the forced tool call, in the real wire format.
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

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

function anthropicError(status: number, message: string, headers?: Record<string, string>): FakeReply {
  const type = ERROR_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
  return { status, headers: { 'request-id': 'req_fake', ...(headers ?? {}) }, body: { type: 'error', error: { type, message }, request_id: 'req_fake' } };
}

export async function startFakeAnthropic(options: { expected_api_key?: string } = {}): Promise<AiFake> {
  const script = new ScriptQueue();
  const state: { expected_api_key?: string } = { expected_api_key: options.expected_api_key };
  const handle = (request: RecordedRequest): FakeReply => {
    if (request.method !== 'POST' || request.path !== '/v1/messages') return anthropicError(404, `Not found: ${request.path}`);
    // The SDK (1.x) sends the key as a Bearer token; older clients use x-api-key. The API takes either.
    const key = request.headers['x-api-key'] ?? (request.headers['authorization'] ?? '').replace(/^Bearer /, '');
    if (state.expected_api_key !== undefined && key !== state.expected_api_key) return anthropicError(401, `invalid x-api-key ${key}`);
    const next = script.next();
    if ('no_answer' in next) return noAnswer(next, answer({ object: {} }, request));
    if ('error_status' in next)
      return anthropicError(next.error_status, next.message ?? (next.error_status === 401 ? `invalid x-api-key ${key}` : 'fake error'), next.headers);
    return answer(next, request);
  };
  const answer = (next: Answer, request: RecordedRequest): FakeReply => {
    const body = request.body as { model?: string; tool_choice?: { name?: string } };
    const usage = next.usage ?? AI_FAKE_DEFAULT_USAGE;
    const content =
      'raw_text' in next
        ? [{ type: 'text', text: next.raw_text, citations: null }]
        : [{ type: 'tool_use', id: 'toolu_fake', name: body.tool_choice?.name ?? 'unknown', input: next.object }];
    return {
      status: 200,
      headers: { 'request-id': 'req_fake' },
      body: {
        id: 'msg_fake',
        type: 'message',
        role: 'assistant',
        model: body.model ?? 'unknown',
        content,
        stop_reason: 'raw_text' in next ? 'end_turn' : 'tool_use',
        stop_sequence: null,
        usage: { input_tokens: usage.input_tokens, output_tokens: usage.output_tokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
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
