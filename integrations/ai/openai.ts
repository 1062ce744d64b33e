// OpenAI adapter: Chat Completions with response_format json_schema (structured outputs), official SDK.
import OpenAI from 'openai';
import {
  type AdapterRequest,
  NAMED_TOOL_PARAMETERS,
  failureForStatus,
  failureForTimeout,
  failureForTransport,
  outputInvalid,
  type RawStructuredReply,
} from './common.ts';
import { isStrictCompatible, parseJsonReply } from './schema.ts';

export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

export async function callOpenAi(request: AdapterRequest): Promise<RawStructuredReply> {
  // Explicit nulls keep OPENAI_ORG_ID / OPENAI_PROJECT_ID / OPENAI_BASE_URL from the environment out of the call.
  const client = new OpenAI({
    apiKey: request.api_key,
    organization: null,
    project: null,
    baseURL: request.base_url ?? OPENAI_DEFAULT_BASE_URL,
    maxRetries: 0, // Temporal owns retrying
    timeout: request.timeout_ms,
    logLevel: 'off', // the SDK's debug logs would include request headers
  });
  let completion: OpenAI.Chat.Completions.ChatCompletion;
  try {
    completion = await client.chat.completions.create(
      {
        model: request.model,
        messages: [
          { role: 'system', content: request.system },
          { role: 'user', content: request.prompt },
        ],
        response_format: {
          type: 'json_schema',
          json_schema: { name: request.schema_name, schema: request.json_schema, strict: isStrictCompatible(request.json_schema) },
        },
        max_completion_tokens: request.max_output_tokens,
        // The registry's tools as function definitions the model sees; tool_choice none: it answers with the schema.
        ...(request.tools.length > 0
          ? {
              tools: request.tools.map((tool) => ({
                type: 'function' as const,
                function: { name: tool.name, description: tool.description, parameters: NAMED_TOOL_PARAMETERS },
              })),
              tool_choice: 'none' as const,
            }
          : {}),
      },
      { signal: request.abort_signal },
    );
  } catch (error) {
    if (error instanceof OpenAI.APIUserAbortError) throw error;
    if (error instanceof OpenAI.APIConnectionTimeoutError) throw failureForTimeout('openai', request.timeout_ms);
    if (error instanceof OpenAI.APIError && typeof error.status === 'number') {
      const body = error.error as { message?: unknown } | undefined;
      throw failureForStatus('openai', error.status, typeof body?.message === 'string' ? body.message : '', request.api_key, error.headers);
    }
    throw failureForTransport('openai', error);
  }
  const choice = completion.choices[0];
  if (!choice) throw outputInvalid('openai', 'the reply had no choices');
  if (choice.message.refusal) throw outputInvalid('openai', 'the model refused to answer');
  if (choice.finish_reason === 'length') throw outputInvalid('openai', 'the reply was cut off at max_output_tokens');
  return {
    value: parseJsonReply('openai', choice.message.content),
    usage: { input_tokens: completion.usage?.prompt_tokens ?? 0, output_tokens: completion.usage?.completion_tokens ?? 0 },
  };
}
